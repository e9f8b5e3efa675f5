/**
 * The hydration engine behind `agent-gateway hydrate` (and `npm run bench:hydrate`):
 * `parseHydrateFile` (./hydrate-parse.ts) checks the lines, `planHydration` (./hydrate-plan.ts)
 * cuts them into idempotent batches, and `runHydration` sends them: `--create-missing` creates the
 * keys first (batch endpoint); then up to `parallel` keys at a time, each key's batches strictly in
 * order (never two in flight for one key), retried with backoff on 502/503/504 and network errors
 * (never on 4xx). When a batch fails for good, the key's later batches are not sent (so a rerun
 * cannot store them before it); 401/403/agent errors, or a gateway that stays unavailable, stop
 * the whole run.
 */
import { performance } from 'node:perf_hooks';
import type { AgentClient } from '../client/client';
import { GatewayError } from '../client/errors';
import type { NewContextMessage } from '../client/types';
import type { FailedLine, HydrateRecord } from './hydrate-parse';
import { MAX_BATCH_MESSAGES, type Batch, type HydratePlan } from '../hydrate/plan';
import { describeGatewayError } from './output';
import { isRetryable, withRetry, type RetryOptions } from './retry';

/**
 * Keys in flight by default: enough to keep a local stack's two cores busy (8 gave 25k messages/s
 * against 19k for 4 in `npm run bench:hydrate`); against a deployment, the per-wallet rate limit
 * (3,000 requests a minute) is the bound whatever the concurrency.
 */
export const DEFAULT_PARALLEL = 8;

export interface HydrateProgress {
  /** Messages stored, replayed or failed so far (of `total`). */
  done: number;
  total: number;
  sent: number;
  replayed: number;
  failed: number;
}

export interface HydrateOptions {
  /** Keys in flight at once (default 8). */
  parallel?: number;
  /** Create the keys first with the batch endpoint. */
  createMissing?: boolean;
  /** One request per message on the single-message endpoint (for comparison: the benchmark). */
  single?: boolean;
  retry?: RetryOptions;
  onProgress?: (progress: HydrateProgress) => void;
  /** Notices: retries, a stopped run. */
  onNotice?: (line: string) => void;
}

export interface HydrateResult {
  /** Messages stored by this run. */
  sent: number;
  /** Messages an earlier run had stored (the gateway replayed their batches). */
  replayed: number;
  /** Planned lines that were not stored, with the reason (invalid lines are not included). */
  failed: FailedLine[];
  /** Append requests answered (retries not counted). */
  requests: number;
  createdKeys: number;
  seconds: number;
  /** Why the run stopped early, when it did. */
  stopped?: string;
}

/** A message of a batch sent one by one failed: `cause` is why, `sentBefore` how many went before it. */
class SingleAppendError extends Error {
  override readonly name = 'SingleAppendError';
  constructor(
    override readonly cause: unknown,
    readonly sentBefore: number,
  ) {
    super('single append failed', { cause });
  }
}

/** Errors after which no further request can succeed: stop the run. */
function stopsTheRun(err: unknown): boolean {
  if (!(err instanceof GatewayError)) return true;
  if (err.status === 401 || err.status === 403) return true;
  if (err.code === 'agent_not_found' || err.code === 'agent_kind_not_supported' || err.code === 'misconfigured') return true;
  return isRetryable(err); // still failing after every retry: the gateway is unavailable
}

function reasonOf(err: unknown): string {
  if (err instanceof GatewayError) {
    const hint =
      err.code === 'context_not_found'
        ? ' (create the key first, or pass --create-missing)'
        : err.code.startsWith('key_')
          ? " (the agent key: ask the agent's owner for a key with contexts:write, or a new one)"
          : err.status === 401
            ? ' (log in again: agent-gateway login)'
            : '';
    return `${describeGatewayError(err)}${hint}`;
  }
  return err instanceof Error ? err.message : String(err);
}

function toFailed(record: HydrateRecord, reason: string): FailedLine {
  return { line: record.line, reason, key: record.key, role: record.role, message: record.message };
}

/** Sends a plan to one agent; resolves when every planned line is stored or failed. */
export async function runHydration(agent: AgentClient, plan: HydratePlan, options: HydrateOptions = {}): Promise<HydrateResult> {
  const parallel = Math.max(1, Math.floor(options.parallel ?? DEFAULT_PARALLEL));
  const started = performance.now();
  const failed: FailedLine[] = [];
  let sent = 0;
  let replayed = 0;
  let failedCount = 0;
  let requests = 0;
  let createdKeys = 0;
  let stopped: string | undefined;
  const notice = options.onNotice ?? (() => undefined);
  const retry: RetryOptions = {
    ...options.retry,
    onRetry: (err, attempt, delayMs) => {
      notice(`retrying after ${describeGatewayError(err)} (attempt ${attempt + 1} in ${(delayMs / 1000).toFixed(1)} s)`);
      options.retry?.onRetry?.(err, attempt, delayMs);
    },
  };
  const progress = () =>
    options.onProgress?.({ done: sent + replayed + failedCount, total: plan.totalMessages, sent, replayed, failed: failedCount });
  const failRecords = (records: HydrateRecord[], reason: string) => {
    for (const record of records) failed.push(toFailed(record, reason));
    failedCount += records.length;
    progress();
  };
  const failKey = (key: string, reason: string) => {
    for (const batch of plan.batchesByKey.get(key) ?? []) failRecords(batch.records, reason);
  };
  const stop = (reason: string) => {
    if (stopped === undefined) {
      stopped = reason;
      notice(`stopping: ${reason}`);
    }
  };

  const queue = [...plan.keys];
  if (options.createMissing && queue.length > 0) {
    const ready: string[] = [];
    for (let i = 0; i < queue.length; i += MAX_BATCH_MESSAGES) {
      const chunk = queue.slice(i, i + MAX_BATCH_MESSAGES);
      if (stopped !== undefined) {
        for (const key of chunk) failKey(key, `not sent: the run stopped (${stopped})`);
        continue;
      }
      try {
        const { results } = await withRetry(() => agent.createContexts(chunk), retry);
        for (const result of results) {
          if (result.status === 'invalid') failKey(result.key, `key: ${result.message ?? result.reason ?? 'invalid'}`);
          else {
            if (result.status === 'created') createdKeys++;
            ready.push(result.key);
          }
        }
      } catch (err) {
        const reason = `creating the keys failed: ${reasonOf(err)}`;
        for (const key of chunk) failKey(key, reason);
        if (stopsTheRun(err)) stop(reason);
      }
    }
    queue.splice(0, queue.length, ...ready);
  }

  const sendBatch = async (batch: Batch): Promise<void> => {
    const messages: NewContextMessage[] = batch.records.map((r) => ({ role: r.role, message: r.message }));
    const answer = await withRetry(() => agent.appendMessages(batch.key, messages, { idempotencyKey: batch.idempotencyKey }), retry);
    requests++;
    if (answer.messages.length !== messages.length) {
      throw new Error(`the gateway stored ${answer.messages.length} messages for a batch of ${messages.length}`);
    }
    if (answer.replayed) replayed += messages.length;
    else sent += messages.length;
    progress();
  };

  /** One message per request; a failure leaves the rest of the batch unsent (and is thrown). */
  const sendSingles = async (batch: Batch): Promise<void> => {
    for (let i = 0; i < batch.records.length; i++) {
      const record = batch.records[i]!;
      try {
        const answer = await withRetry(
          () =>
            agent.appendMessage(
              batch.key,
              { role: record.role, message: record.message },
              { idempotencyKey: `hydrate-single:${plan.fileId}:${record.line}` },
            ),
          retry,
        );
        requests++;
        if (answer.replayed) replayed++;
        else sent++;
        progress();
      } catch (err) {
        throw new SingleAppendError(err, i);
      }
    }
  };

  const runKey = async (key: string): Promise<void> => {
    const batches = plan.batchesByKey.get(key) ?? [];
    for (let i = 0; i < batches.length; i++) {
      const batch = batches[i]!;
      if (stopped !== undefined) {
        for (const rest of batches.slice(i)) failRecords(rest.records, `not sent: the run stopped (${stopped})`);
        return;
      }
      try {
        if (options.single) await sendSingles(batch);
        else await sendBatch(batch);
      } catch (thrown) {
        const err = thrown instanceof SingleAppendError ? thrown.cause : thrown;
        const reason = reasonOf(err);
        failRecords(batch.records.slice(thrown instanceof SingleAppendError ? thrown.sentBefore : 0), reason);
        for (const rest of batches.slice(i + 1)) {
          failRecords(rest.records, `not sent: an earlier batch of key ${key} failed (line ${batch.first}: ${reason})`);
        }
        if (stopsTheRun(err)) stop(reason);
        return;
      }
    }
  };

  progress();
  await Promise.all(
    Array.from({ length: Math.min(parallel, Math.max(1, queue.length)) }, async () => {
      for (let key = queue.shift(); key !== undefined; key = queue.shift()) {
        if (stopped !== undefined) failKey(key, `not sent: the run stopped (${stopped})`);
        else await runKey(key);
      }
    }),
  );

  failed.sort((a, b) => a.line - b.line);
  const result: HydrateResult = { sent, replayed, failed, requests, createdKeys, seconds: (performance.now() - started) / 1000 };
  if (stopped !== undefined) result.stopped = stopped;
  return result;
}

/** The failed-lines file: one JSON object per line, `{ line, reason, key, role, message }` (or `raw`). */
export function failedLinesJsonl(lines: readonly FailedLine[]): string {
  return lines
    .map((f) => {
      const entry: Record<string, unknown> = { line: f.line, reason: f.reason };
      if (f.raw !== undefined) entry.raw = f.raw;
      else {
        if (f.key !== undefined) entry.key = f.key;
        if (f.role !== undefined) entry.role = f.role;
        if (f.message !== undefined) entry.message = f.message;
      }
      return `${JSON.stringify(entry)}\n`;
    })
    .join('');
}
