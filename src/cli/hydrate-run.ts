/**
 * The hydration run behind `agent-gateway hydrate` (and `npm run bench:hydrate`):
 * `parseHydrateFile` (./hydrate-parse.ts) checks the lines, `planHydration` (src/hydrate/plan.ts)
 * cuts them into idempotent batches, and `runHydration` sends them by the shared steps of
 * src/hydrate/run.ts (keys created first with `--create-missing`; up to `parallel` keys at a time,
 * each key's batches in order; a key's later batches not sent after one fails; the run stopped by
 * 401/403/agent errors or a gateway that stays unavailable). The CLI's part: every call retried
 * with backoff on 502/503/504 and network errors (never on 4xx), and the failures worded for the
 * terminal and the failed-lines file.
 */
import { performance } from 'node:perf_hooks';
import type { AgentClient } from '../client/client';
import { GatewayError } from '../client/errors';
import type { NewContextMessage } from '../client/types';
import type { FailedLine } from './hydrate-parse';
import type { Batch, HydratePlan } from '../hydrate/plan';
import { PartlySent, type SendFailure, sendPlan } from '../hydrate/run';
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

/** A failure as the failed-lines file and the terminal say it. */
function failureText(failure: SendFailure): string {
  switch (failure.kind) {
    case 'refused':
      return reasonOf(failure.error);
    case 'not_created':
      return `creating the keys failed: ${reasonOf(failure.error)}`;
    case 'invalid_key':
      return `key: ${failure.message}`;
    case 'earlier_batch_failed':
      return `not sent: an earlier batch of key ${failure.key} failed (line ${failure.line}: ${reasonOf(failure.error)})`;
    case 'stopped':
      return `not sent: the run stopped (${failure.reason})`;
  }
}

/** Sends a plan to one agent (the shared steps of src/hydrate/run.ts, with the CLI's retries); resolves when every planned line is stored or failed. */
export async function runHydration(agent: AgentClient, plan: HydratePlan, options: HydrateOptions = {}): Promise<HydrateResult> {
  const started = performance.now();
  const failed: FailedLine[] = [];
  let requests = 0;
  const notice = options.onNotice ?? (() => undefined);
  const retry: RetryOptions = {
    ...options.retry,
    onRetry: (err, attempt, delayMs) => {
      notice(`retrying after ${describeGatewayError(err)} (attempt ${attempt + 1} in ${(delayMs / 1000).toFixed(1)} s)`);
      options.retry?.onRetry?.(err, attempt, delayMs);
    },
  };

  const sendBatch = async (batch: Batch, stored: (count: number, replayed: boolean) => void): Promise<void> => {
    const messages: NewContextMessage[] = batch.records.map((r) => ({ role: r.role, message: r.message }));
    const answer = await withRetry(() => agent.appendMessages(batch.key, messages, { idempotencyKey: batch.idempotencyKey }), retry);
    requests++;
    if (answer.messages.length !== messages.length) {
      throw new Error(`the gateway stored ${answer.messages.length} messages for a batch of ${messages.length}`);
    }
    stored(messages.length, answer.replayed);
  };

  /** One message per request (the benchmark's comparison); a failure leaves the rest of the batch unsent. */
  const sendSingles = async (batch: Batch, stored: (count: number, replayed: boolean) => void): Promise<void> => {
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
        stored(1, answer.replayed);
      } catch (err) {
        throw new PartlySent(err, i);
      }
    }
  };

  const outcome = await sendPlan(plan, {
    parallel: options.parallel ?? DEFAULT_PARALLEL,
    createMissing: options.createMissing,
    createContexts: async (keys) => (await withRetry(() => agent.createContexts(keys), retry)).results,
    appendBatch: options.single ? sendSingles : sendBatch,
    stopsTheRun,
    stopReason: failureText,
    onFailed: (records, failure) => {
      const reason = failureText(failure);
      for (const r of records) failed.push({ line: r.line, reason, key: r.key, role: r.role, message: r.message });
    },
    onProgress: ({ done, total, sent, replayed, failed }) => options.onProgress?.({ done, total, sent, replayed, failed }),
    onStop: (reason) => notice(`stopping: ${reason}`),
  });

  failed.sort((a, b) => a.line - b.line);
  const { sent, replayed, createdKeys, stopped } = outcome;
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
