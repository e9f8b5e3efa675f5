/**
 * Step 3 of a hydration (the CLI's `agent-gateway hydrate` and the dashboard's upload): sending a
 * plan. The rules live here once: with `createMissing`, the keys are created first, 100 per
 * request; then up to `parallel` keys at a time, each key's batches strictly in order (never two in
 * flight for one key, so a rerun cannot store a later batch before an earlier one); when a batch
 * fails, the key's later batches are not sent; an error after which no request can succeed stops
 * the whole run, and whatever is left is reported as not sent. What a call is (retries, signals)
 * and how a failure reads are the caller's: the CLI retries and words for a terminal, the dashboard
 * remembers stored batches in the tab and reports codes.
 */
import type { HydrateRecord } from './parse';
import { type Batch, type HydratePlan, MAX_BATCH_MESSAGES } from './plan';

/** Why planned lines were not stored. */
export type SendFailure =
  /** The gateway (or the network) refused this batch, or the part of it not sent. */
  | { kind: 'refused'; error: unknown }
  /** Creating the key failed. */
  | { kind: 'not_created'; error: unknown }
  /** The batch endpoint said the key is invalid. */
  | { kind: 'invalid_key'; message: string }
  /** An earlier batch of the same key failed (at `line`), so this one was not sent. */
  | { kind: 'earlier_batch_failed'; key: string; line: number; error: unknown }
  /** The run stopped before this was sent. */
  | { kind: 'stopped'; reason: string };

/** A batch that was partly stored before it failed (sent one message at a time): the first `sentBefore` records are stored. */
export class PartlySent extends Error {
  override readonly name = 'PartlySent';
  constructor(
    override readonly cause: unknown,
    readonly sentBefore: number,
  ) {
    super('a batch failed part-way', { cause });
  }
}

export interface SendCounts {
  /** Messages of the plan. */
  total: number;
  /** Stored by this run or an earlier one, or failed. */
  done: number;
  sent: number;
  /** Stored by an earlier run and answered as replays now. */
  replayed: number;
  /** Stored by an earlier run this caller remembers (`isStored`): not sent again. */
  resumed: number;
  failed: number;
}

/** What the batch endpoint says of a key. */
export interface KeyCreated {
  key: string;
  status: string;
  message?: string | undefined;
  reason?: string | undefined;
}

export interface SendOptions {
  /** Keys in flight at once. */
  parallel: number;
  createMissing?: boolean;
  /** Stops the run: what is left is reported as `stopped` with `abortedReason`. */
  signal?: AbortSignal;
  abortedReason?: string;
  /** A batch an earlier run stored: not sent, counted as `resumed`. */
  isStored?: (batch: Batch) => boolean;
  /** Creates up to 100 keys; a result per key. */
  createContexts: (keys: string[]) => Promise<readonly KeyCreated[]>;
  /**
   * Sends one batch; calls `stored(count, replayed)` as its messages are stored (once for the
   * batch, or once per message). Throws `PartlySent` when part of it was stored.
   */
  appendBatch: (batch: Batch, stored: (count: number, replayed: boolean) => void) => Promise<void>;
  /** After this error (while creating keys or appending) no later request can succeed. */
  stopsTheRun: (error: unknown, step: 'create' | 'append') => boolean;
  /** The reason a run stops for, from the failure that stopped it. */
  stopReason: (failure: Extract<SendFailure, { kind: 'refused' | 'not_created' }>) => string;
  onFailed: (records: readonly HydrateRecord[], failure: SendFailure) => void;
  onProgress?: (counts: SendCounts) => void;
  onStop?: (reason: string) => void;
}

export interface SendOutcome extends SendCounts {
  createdKeys: number;
  /** Why the run stopped early, when it did. */
  stopped?: string;
}

/** Sends a plan; resolves when every planned line is stored, failed or not sent. */
export async function sendPlan(plan: HydratePlan, options: SendOptions): Promise<SendOutcome> {
  const isStored = options.isStored ?? (() => false);
  const counts: SendCounts = { total: plan.totalMessages, done: 0, sent: 0, replayed: 0, resumed: 0, failed: 0 };
  let createdKeys = 0;
  let stopped: string | undefined;
  const progress = () => {
    counts.done = counts.sent + counts.replayed + counts.resumed + counts.failed;
    options.onProgress?.({ ...counts });
  };
  const fail = (records: readonly HydrateRecord[], failure: SendFailure) => {
    if (records.length === 0) return;
    options.onFailed(records, failure);
    counts.failed += records.length;
    progress();
  };
  const unsent = (key: string) => (plan.batchesByKey.get(key) ?? []).filter((b) => !isStored(b));
  const failKey = (key: string, failure: SendFailure) => {
    for (const batch of unsent(key)) fail(batch.records, failure);
  };
  const stop = (reason: string) => {
    if (stopped !== undefined) return;
    stopped = reason;
    options.onStop?.(reason);
  };
  const onAbort = () => stop(options.abortedReason ?? 'stopped');
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener('abort', onAbort, { once: true });

  for (const key of plan.keys) {
    for (const batch of plan.batchesByKey.get(key) ?? []) if (isStored(batch)) counts.resumed += batch.records.length;
  }
  let queue = plan.keys.filter((key) => unsent(key).length > 0);
  progress();

  if (options.createMissing && queue.length > 0) {
    const ready: string[] = [];
    for (let i = 0; i < queue.length; i += MAX_BATCH_MESSAGES) {
      const chunk = queue.slice(i, i + MAX_BATCH_MESSAGES);
      if (stopped !== undefined) {
        ready.push(...chunk); // reported as not sent below
        continue;
      }
      try {
        for (const result of await options.createContexts(chunk)) {
          if (result.status === 'invalid')
            failKey(result.key, { kind: 'invalid_key', message: result.message ?? result.reason ?? 'invalid' });
          else {
            if (result.status === 'created') createdKeys++;
            ready.push(result.key);
          }
        }
      } catch (error) {
        if (options.signal?.aborted) {
          ready.push(...chunk);
          continue;
        }
        const failure = { kind: 'not_created', error } as const;
        for (const key of chunk) failKey(key, failure);
        if (options.stopsTheRun(error, 'create')) stop(options.stopReason(failure));
      }
    }
    queue = ready;
  }

  const runKey = async (key: string): Promise<void> => {
    const batches = unsent(key);
    for (let i = 0; i < batches.length; i++) {
      const batch = batches[i] as Batch;
      if (stopped !== undefined) {
        for (const rest of batches.slice(i)) fail(rest.records, { kind: 'stopped', reason: stopped });
        return;
      }
      try {
        await options.appendBatch(batch, (count, replayed) => {
          if (replayed) counts.replayed += count;
          else counts.sent += count;
          progress();
        });
      } catch (thrown) {
        const error = thrown instanceof PartlySent ? thrown.cause : thrown;
        const left = batch.records.slice(thrown instanceof PartlySent ? thrown.sentBefore : 0);
        const failure = { kind: 'refused', error } as const;
        if (options.signal?.aborted) fail(left, { kind: 'stopped', reason: stopped ?? options.abortedReason ?? 'stopped' });
        else fail(left, failure);
        for (const rest of batches.slice(i + 1)) fail(rest.records, { kind: 'earlier_batch_failed', key, line: batch.first, error });
        if (options.stopsTheRun(error, 'append')) stop(options.stopReason(failure));
        return;
      }
    }
  };

  await Promise.all(
    Array.from({ length: Math.min(Math.max(1, Math.floor(options.parallel)), Math.max(1, queue.length)) }, async () => {
      for (let key = queue.shift(); key !== undefined; key = queue.shift()) await runKey(key);
    }),
  );
  options.signal?.removeEventListener('abort', onAbort);
  progress();
  return { ...counts, createdKeys, ...(stopped === undefined ? {} : { stopped }) };
}
