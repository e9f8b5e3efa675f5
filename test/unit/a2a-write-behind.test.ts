/** The A2A task store's write-behind: unfinished states answered at once and written in order, the final one awaited. */
import type { Task } from '@a2a-js/sdk';
import { ServerCallContext } from '@a2a-js/sdk/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { A2aTaskStore } from '../../src/a2a/task-store';
import { writeBehind } from '../../src/a2a/write-behind';

const SUBMITTED = 1;
const WORKING = 2;
const COMPLETED = 3;
const ctx = new ServerCallContext();

function task(state: number, text = ''): Task {
  return {
    id: 't1',
    contextId: 'c1',
    status: { state, message: undefined, timestamp: undefined },
    artifacts: text ? [{ artifactId: 'a', name: '', description: '', parts: [], metadata: undefined, extensions: [] }] : [],
    history: [],
    metadata: { text },
  } as unknown as Task;
}

/** A fake inner store: each save waits until released, and records what was written and how many at once. */
function fakeStore() {
  const written: { state: number; text: unknown }[] = [];
  const stored = new Map<string, Task>();
  let inFlight = 0;
  let maxInFlight = 0;
  let failNext = 0;
  const gates: (() => void)[] = [];
  const store: A2aTaskStore = {
    async save(t) {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise<void>((resolve) => gates.push(resolve));
      inFlight--;
      if (failNext > 0) {
        failNext--;
        throw new Error('db down');
      }
      written.push({ state: t.status?.state ?? 0, text: (t.metadata as { text?: unknown })?.text });
      stored.set(t.id, structuredClone(t));
    },
    async load(id) {
      return stored.get(id);
    },
    async list() {
      throw new Error('not served');
    },
    async storedState(id) {
      return stored.get(id)?.status?.state;
    },
  };
  const tick = () => new Promise((r) => setTimeout(r, 0));
  /** Lets every waiting save finish, until none waits. */
  async function releaseAll() {
    for (let i = 0; i < 20; i++) {
      await tick();
      while (gates.length) gates.shift()?.();
    }
  }
  return {
    store,
    written,
    releaseAll,
    tick,
    pending: () => gates.length,
    maxInFlight: () => maxInFlight,
    failTimes: (n: number) => {
      failNext = n;
    },
  };
}

afterEach(() => vi.restoreAllMocks());

describe('writeBehind', () => {
  it('answers unfinished saves at once and writes them in order, one at a time, the waiting ones coalesced', async () => {
    const fake = fakeStore();
    const store = writeBehind(fake.store);
    await store.save(task(SUBMITTED), ctx); // resolves before the inner write ends
    await fake.tick();
    expect(fake.pending()).toBe(1);
    await store.save(task(WORKING), ctx);
    await store.save(task(WORKING, 'Hel'), ctx);
    await store.save(task(WORKING, 'Hello'), ctx);
    expect(fake.pending()).toBe(1); // no second write of the task while the first runs
    await fake.releaseAll();
    expect(fake.written).toEqual([
      { state: SUBMITTED, text: '' },
      { state: WORKING, text: 'Hello' },
    ]);
    expect(fake.maxInFlight()).toBe(1);
  });

  it('reads a task with writes pending from memory, else from the store', async () => {
    const fake = fakeStore();
    const store = writeBehind(fake.store);
    await store.save(task(WORKING, 'partial'), ctx);
    expect((await store.load('t1', ctx))?.status?.state).toBe(WORKING);
    expect(await store.storedState('t1')).toBeUndefined(); // not in the table yet
    await fake.releaseAll();
    expect(await store.storedState('t1')).toBe(WORKING);
    expect((await store.load('t1', ctx))?.metadata).toEqual({ text: 'partial' });
  });

  it('once creating its task, answers a task it never saved as absent without reading the store', async () => {
    const fake = fakeStore();
    const pendingSave = fake.store.save(task(WORKING), ctx);
    await fake.releaseAll();
    await pendingSave;
    const store = writeBehind(fake.store);
    expect((await store.load('t1', ctx))?.id).toBe('t1'); // read from the store before creating()
    store.creating();
    expect(await store.load('t1', ctx)).toBeUndefined();
    await store.save(task(WORKING, 'mine'), ctx);
    expect((await store.load('t1', ctx))?.metadata).toEqual({ text: 'mine' });
    await fake.releaseAll();
    expect((await store.load('t1', ctx))?.metadata).toEqual({ text: 'mine' });
  });

  it('a final state waits for the pending writes, then is written before the save returns', async () => {
    const fake = fakeStore();
    const store = writeBehind(fake.store);
    await store.save(task(SUBMITTED), ctx);
    await store.save(task(WORKING), ctx);
    let ended = false;
    const final = store.save(task(COMPLETED, 'done'), ctx).then(() => {
      ended = true;
    });
    await fake.tick();
    expect(ended).toBe(false);
    await fake.releaseAll();
    await final;
    // The final state supersedes the working state still waiting: submitted, then completed.
    expect(fake.written).toEqual([
      { state: SUBMITTED, text: '' },
      { state: COMPLETED, text: 'done' },
    ]);
    expect(fake.maxInFlight()).toBe(1);
  });

  it('logs a failed write behind (no task text) and tries once more with the latest state', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const fake = fakeStore();
    const store = writeBehind(fake.store);
    fake.failTimes(1);
    await store.save(task(SUBMITTED), ctx);
    await fake.tick();
    await store.save(task(WORKING, 'secret text'), ctx);
    await fake.releaseAll();
    expect(fake.written).toEqual([{ state: WORKING, text: 'secret text' }]);
    expect(warn).toHaveBeenCalledTimes(1);
    const logged = String(warn.mock.calls[0]?.[0]);
    expect(JSON.parse(logged)).toMatchObject({ event: 'a2a_task_write_behind_failed', taskId: 't1', reason: 'Error' });
    expect(logged).not.toContain('secret');
  });

  it("fails the save when the final write fails, as the inner store's does", async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const fake = fakeStore();
    const store = writeBehind(fake.store);
    await store.save(task(WORKING), ctx);
    await fake.releaseAll();
    fake.failTimes(1);
    const final = expect(store.save(task(COMPLETED), ctx)).rejects.toThrow('db down');
    await fake.releaseAll();
    await final;
  });
});
