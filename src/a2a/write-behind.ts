/**
 * A task store that writes a task's unfinished states behind the stream. The SDK saves the task on
 * every event before it sends that event, so each of `submitted` and `working` would cost a database
 * round trip before the first artifact chunk reaches the caller. This wrapper answers those saves at
 * once and writes them in order, one chain per task: never two writes of one task at the same time,
 * and only the latest waiting state is written (an older state never lands after a newer one). A
 * final state (completed, failed, canceled, rejected) waits for the task's pending writes, then is
 * written before the save returns, so a finished task is stored before the caller hears the end.
 * A task with writes still pending is read from this request's memory; any other from the store.
 * Once the request is known to create its task (`creating()`, a message checked and not naming a
 * task), a task this store never saved is answered as absent without a read: the SDK loads the new
 * task (its id just generated) before its first save, which would cost one more round trip.
 * A failed write behind is logged (the error's name only) and tried once more with the latest state;
 * the final write's failure fails the save as before.
 */
import type { ListTasksRequest, Task } from '@a2a-js/sdk';
import type { ServerCallContext } from '@a2a-js/sdk/server';
import { FINAL_STATES, type A2aTaskStore } from './task-store';

interface Chain {
  /** The newest state saved and not yet handed to the inner store. */
  waiting: { task: Task; context: ServerCallContext } | undefined;
  /** The latest task saved (what this request reads while writes are pending). */
  latest: Task;
  /** Settles when every write started for this task has ended (never rejects). */
  done: Promise<void>;
}

function logFailed(taskId: string, err: unknown, retried: boolean) {
  console.warn(
    JSON.stringify({
      level: 'warn',
      event: retried ? 'a2a_task_write_behind_dropped' : 'a2a_task_write_behind_failed',
      taskId,
      reason: String((err as Error)?.name ?? 'Error'),
    }),
  );
}

export interface WriteBehindStore extends A2aTaskStore {
  /** From now on, the only tasks this request reads are those it saves (it creates its task). */
  creating(): void;
}

/** `keep` lets a write behind outlive the request's answer (a client that hangs up mid-stream). */
export function writeBehind(inner: A2aTaskStore, keep: (work: Promise<void>) => unknown = () => undefined): WriteBehindStore {
  const chains = new Map<string, Chain>();
  const saved = new Set<string>();
  let onlySaved = false;

  /** Writes the newest waiting state, one at a time, until none waits; one retry on failure. */
  async function drain(taskId: string, chain: Chain): Promise<void> {
    let retried = false;
    while (chain.waiting) {
      const { task, context } = chain.waiting;
      chain.waiting = undefined;
      try {
        await inner.save(task, context);
        retried = false;
      } catch (err) {
        logFailed(taskId, err, retried);
        if (!retried) {
          retried = true;
          // Tried again with the latest state (a newer one saved meanwhile, or this one).
          chain.waiting ??= { task, context };
        }
      }
    }
  }

  function behind(task: Task, context: ServerCallContext) {
    const copy = structuredClone(task);
    let chain = chains.get(task.id);
    if (!chain) {
      chain = { waiting: undefined, latest: copy, done: Promise.resolve() };
      chains.set(task.id, chain);
    }
    chain.latest = copy;
    const idle = chain.waiting === undefined;
    chain.waiting = { task: copy, context };
    if (!idle) return; // a drain already scheduled writes this newest state
    const current = chain;
    current.done = current.done.then(() => drain(task.id, current));
    const mine = current.done;
    keep(mine);
    void mine.then(() => {
      if (chains.get(task.id) === current && current.done === mine && !current.waiting) chains.delete(task.id);
    });
  }

  return {
    creating() {
      onlySaved = true;
    },
    async save(task: Task, context: ServerCallContext) {
      saved.add(task.id);
      const state = task.status?.state ?? 0;
      if (!FINAL_STATES.includes(state)) {
        behind(task, context);
        return;
      }
      const chain = chains.get(task.id);
      if (chain) {
        chain.waiting = undefined; // the final state supersedes any state not yet written
        await chain.done;
        chains.delete(task.id);
      }
      await inner.save(task, context);
    },
    async load(taskId: string, context: ServerCallContext) {
      const chain = chains.get(taskId);
      if (chain) return structuredClone(chain.latest);
      if (onlySaved && !saved.has(taskId)) return undefined;
      return inner.load(taskId, context);
    },
    list(params: ListTasksRequest, context: ServerCallContext) {
      return inner.list(params, context);
    },
    storedState(taskId: string) {
      return inner.storedState(taskId);
    },
  };
}
