/**
 * The hydration run shared by the CLI and the dashboard (src/hydrate/run.ts) against an in-memory
 * gateway: each key's batches in order and never two at once, the parallel bound, a failed batch
 * holding back its key's later batches, a run stopped by an error or a signal, batches an earlier
 * run stored, a batch stored part-way, and keys created first.
 */
import { describe, expect, it } from 'vitest';
import type { HydrateRecord } from '../../src/hydrate/parse';
import { parseHydrateContent } from '../../src/hydrate/parse';
import { type Batch, planHydration } from '../../src/hydrate/plan';
import { PartlySent, type SendFailure, type SendOptions, sendPlan } from '../../src/hydrate/run';

/** `perKey` lines for each key, interleaved in the file. */
function planOf(keys: string[], perKey: number, maxMessages = 2) {
  const lines: string[] = [];
  for (let i = 0; i < perKey; i++) for (const key of keys) lines.push(JSON.stringify({ key, role: 'user', message: `${key} #${i}` }));
  return planHydration(parseHydrateContent(lines.join('\n'), 'f'.repeat(16)), { maxMessages });
}

class Refused extends Error {
  constructor(readonly fatal: boolean) {
    super(fatal ? 'fatal' : 'refused');
  }
}

/** A gateway in memory: stores batches, tracks what is in flight; `refuse` decides a batch's fate. */
function gateway(refuse: (batch: Batch) => Error | undefined = () => undefined) {
  const stored = new Map<string, string[]>();
  const inFlight = new Set<string>();
  let maxKeysInFlight = 0;
  const failures: { lines: number[]; failure: SendFailure }[] = [];
  const options: SendOptions = {
    parallel: 3,
    createContexts: async (keys) => keys.map((key) => ({ key, status: key.startsWith('bad') ? 'invalid' : 'created', message: 'bad key' })),
    appendBatch: async (batch, done) => {
      expect(inFlight.has(batch.key), `two batches of ${batch.key} at once`).toBe(false);
      inFlight.add(batch.key);
      maxKeysInFlight = Math.max(maxKeysInFlight, inFlight.size);
      await new Promise((resolve) => setTimeout(resolve, 1));
      inFlight.delete(batch.key);
      const error = refuse(batch);
      if (error) throw error;
      stored.set(batch.key, [...(stored.get(batch.key) ?? []), ...batch.records.map((r) => r.message)]);
      done(batch.records.length, false);
    },
    stopsTheRun: (error) => error instanceof Refused && error.fatal,
    stopReason: (failure) => `stopped by ${(failure.error as Error).message}`,
    onFailed: (records: readonly HydrateRecord[], failure) => failures.push({ lines: records.map((r) => r.line), failure }),
  };
  return { stored, failures, options, maxKeysInFlight: () => maxKeysInFlight };
}

describe('sendPlan', () => {
  it("stores every key's messages in file order, at most `parallel` keys at once, never two batches of a key at once", async () => {
    const plan = planOf(['aa', 'bb', 'cc', 'dd', 'ee'], 7);
    const g = gateway();
    const outcome = await sendPlan(plan, g.options);
    expect(outcome).toMatchObject({ total: 35, done: 35, sent: 35, failed: 0 });
    for (const key of plan.keys) expect(g.stored.get(key)).toEqual(Array.from({ length: 7 }, (_, i) => `${key} #${i}`));
    expect(g.maxKeysInFlight()).toBe(3);
    expect(outcome.stopped).toBeUndefined();
  });

  it("holds back a key's later batches after one fails; the other keys go on", async () => {
    const plan = planOf(['aa', 'bb'], 6);
    const g = gateway((batch) => (batch.key === 'aa' && batch.records[0]?.message === 'aa #2' ? new Refused(false) : undefined));
    const outcome = await sendPlan(plan, g.options);
    expect(g.stored.get('aa')).toEqual(['aa #0', 'aa #1']);
    expect(g.stored.get('bb')).toHaveLength(6);
    expect(g.failures.map((f) => f.failure.kind)).toEqual(['refused', 'earlier_batch_failed']);
    expect(outcome).toMatchObject({ sent: 8, failed: 4, done: 12 });
  });

  it('stops the run after an error no later request can pass: what is left is reported as not sent', async () => {
    const plan = planOf(['aa', 'bb', 'cc', 'dd'], 4);
    const g = gateway((batch) => (batch.key === 'aa' ? new Refused(true) : undefined));
    const outcome = await sendPlan({ ...plan }, { ...g.options, parallel: 1 });
    expect(outcome.stopped).toBe('stopped by fatal');
    expect(g.stored.size).toBe(0);
    expect(g.failures.filter((f) => f.failure.kind === 'stopped').flatMap((f) => f.lines)).toHaveLength(12);
    expect(outcome).toMatchObject({ sent: 0, failed: 16, done: 16 });
  });

  it('skips the batches an earlier run stored (counted as resumed) and fails only the unsent part of a batch', async () => {
    const plan = planOf(['aa'], 6);
    const [first, second] = plan.batchesByKey.get('aa') ?? [];
    const g = gateway();
    const options: SendOptions = {
      ...g.options,
      isStored: (batch) => batch === first,
      appendBatch: async (batch, done) => {
        if (batch !== second) return g.options.appendBatch(batch, done);
        done(1, true);
        throw new PartlySent(new Refused(false), 1);
      },
    };
    const outcome = await sendPlan(plan, options);
    expect(outcome).toMatchObject({ total: 6, resumed: 2, replayed: 1, failed: 3, sent: 0, done: 6 });
    expect(g.failures.map((f) => [f.failure.kind, f.lines])).toEqual([
      ['refused', [4]],
      ['earlier_batch_failed', [5, 6]],
    ]);
  });

  it('stops when the signal aborts, with its reason', async () => {
    const plan = planOf(['aa', 'bb'], 6);
    const controller = new AbortController();
    const g = gateway();
    const outcome = await sendPlan(plan, {
      ...g.options,
      signal: controller.signal,
      abortedReason: 'stopped by the user',
      appendBatch: async (batch, done) => {
        await g.options.appendBatch(batch, done);
        controller.abort();
      },
    });
    expect(outcome.stopped).toBe('stopped by the user');
    expect(outcome.sent + outcome.failed).toBe(12);
    expect(outcome.sent).toBeLessThan(12);
    expect(g.failures.every((f) => f.failure.kind === 'stopped' && f.failure.reason === 'stopped by the user')).toBe(true);
  });

  it('creates the keys first: an invalid key fails, the created ones are counted and sent', async () => {
    const plan = planOf(['aa', 'bad'], 2);
    const g = gateway();
    const outcome = await sendPlan(plan, { ...g.options, createMissing: true });
    expect(outcome).toMatchObject({ createdKeys: 1, sent: 2, failed: 2 });
    expect(g.failures).toEqual([{ lines: [2, 4], failure: { kind: 'invalid_key', message: 'bad key' } }]);
  });
});
