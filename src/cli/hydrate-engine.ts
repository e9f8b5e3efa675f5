/**
 * The hydration engine behind `agent-gateway hydrate` (and `npm run bench:hydrate`).
 *
 * 1. `parseHydrateFile`: every line of a JSONL file (`{ "key", "role", "message" }`) is checked
 *    locally with the gateway's own rules; invalid lines are reported with their line numbers and
 *    never sent. Blank lines are skipped.
 * 2. `planHydration`: per key, its valid lines in file order, cut into batches of up to 100
 *    messages (and at most ~900 kB of JSON, under the gateway's 1 MiB body limit). Each batch gets
 *    the Idempotency-Key `hydrate:<first 16 hex of sha256(file)>:<firstLine>-<lastLine>`, so the
 *    same file always yields the same batches and keys: a rerun after a crash replays the batches
 *    that were stored (`Idempotent-Replayed: true`) and stores nothing twice.
 * 3. `runHydration`: `--create-missing` creates the keys first (batch endpoint); then up to
 *    `parallel` keys at a time, each key's batches strictly in order (never two in flight for one
 *    key), retried with backoff on 502/503/504 and network errors (never on 4xx). When a batch
 *    fails for good, the key's later batches are not sent (so a rerun cannot store them before
 *    it); 401/403/agent errors, or a gateway that stays unavailable, stop the whole run.
 */
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { AgentClient } from '../client/client';
import { GatewayError } from '../client/errors';
import type { NewContextMessage, Role } from '../client/types';
import { KEY_PROBLEM_TEXT, keyProblem, MESSAGE_MAX_BYTES, ROLES } from '../contexts/key-rules';
import { describeGatewayError } from './output';
import { isRetryable, withRetry, type RetryOptions } from './retry';

export const MAX_BATCH_MESSAGES = 100;
/** Estimated JSON body size a batch may reach (the gateway's default MAX_BODY_BYTES is 1 MiB). */
export const MAX_BATCH_BYTES = 900 * 1024;

export interface HydrateRecord {
  /** 1-based line number in the file. */
  line: number;
  key: string;
  role: Role;
  message: string;
}

/** A line that was not stored, with why; the fields of the line when it was a JSON object. */
export interface FailedLine {
  line: number;
  reason: string;
  key?: unknown;
  role?: unknown;
  message?: unknown;
  /** The line as it was, when it was not a JSON object. */
  raw?: string;
}

export interface HydrateFile {
  /** First 16 hex digits of the sha256 of the file's bytes. */
  fileId: string;
  /** Non-blank lines. */
  lineCount: number;
  records: HydrateRecord[];
  invalid: FailedLine[];
}

const utf8 = new TextEncoder();
const ROLE_SET = new Set<string>(ROLES);

function shortJson(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/** Why one parsed line cannot be sent, or null. */
function lineProblems(value: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const { key, role, message } = value;
  if (typeof key !== 'string') problems.push(key === undefined ? 'key: missing' : 'key: must be a string');
  else {
    const problem = keyProblem(key);
    if (problem) problems.push(`key: ${KEY_PROBLEM_TEXT[problem]}`);
  }
  if (typeof role !== 'string' || !ROLE_SET.has(role)) {
    problems.push(role === undefined ? 'role: missing' : `role: must be one of ${ROLES.join(', ')} (got ${shortJson(role)})`);
  }
  if (typeof message !== 'string') problems.push(message === undefined ? 'message: missing' : 'message: must be a string');
  else {
    if (message.length < 2) problems.push('message: must be at least 2 characters');
    else if (utf8.encode(message).byteLength > MESSAGE_MAX_BYTES) problems.push(`message: must be at most ${MESSAGE_MAX_BYTES} bytes of UTF-8`);
    if (message.includes('\u0000')) problems.push('message: must not contain NUL characters');
    if (!message.isWellFormed()) problems.push('message: must be well-formed Unicode (no lone surrogates)');
  }
  return problems;
}

/** Reads and checks every line; nothing is sent. */
export function parseHydrateFile(content: Uint8Array | string): HydrateFile {
  const bytes = typeof content === 'string' ? utf8.encode(content) : content;
  const fileId = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  const text = typeof content === 'string' ? content : new TextDecoder().decode(content);
  const lines = text.split('\n');
  const records: HydrateRecord[] = [];
  const invalid: FailedLine[] = [];
  let lineCount = 0;
  for (let i = 0; i < lines.length; i++) {
    let raw = lines[i]!;
    if (raw.endsWith('\r')) raw = raw.slice(0, -1);
    if (i === 0 && raw.startsWith('\uFEFF')) raw = raw.slice(1);
    if (raw.trim() === '') continue;
    lineCount++;
    const line = i + 1;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (err) {
      invalid.push({ line, reason: `invalid JSON (${err instanceof Error ? err.message : 'parse error'})`, raw });
      continue;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      invalid.push({ line, reason: 'not a JSON object with key, role and message', raw });
      continue;
    }
    const object = value as Record<string, unknown>;
    const problems = lineProblems(object);
    if (problems.length > 0) {
      invalid.push({ line, reason: problems.join('; '), key: object.key, role: object.role, message: object.message });
      continue;
    }
    records.push({ line, key: object.key as string, role: object.role as Role, message: object.message as string });
  }
  return { fileId, lineCount, records, invalid };
}

export interface Batch {
  key: string;
  /** Line numbers of the first and last message. */
  first: number;
  last: number;
  records: HydrateRecord[];
  idempotencyKey: string;
}

export interface HydratePlan {
  fileId: string;
  /** Keys in order of first appearance. */
  keys: string[];
  batchesByKey: Map<string, Batch[]>;
  totalMessages: number;
  batchCount: number;
}

/** The batches of a file: per key, its records in file order, up to 100 (and ~900 kB) each. */
export function planHydration(file: Pick<HydrateFile, 'fileId' | 'records'>, options: { maxMessages?: number; maxBytes?: number } = {}): HydratePlan {
  const maxMessages = options.maxMessages ?? MAX_BATCH_MESSAGES;
  const maxBytes = options.maxBytes ?? MAX_BATCH_BYTES;
  const byKey = new Map<string, HydrateRecord[]>();
  for (const record of file.records) {
    let list = byKey.get(record.key);
    if (!list) byKey.set(record.key, (list = []));
    list.push(record);
  }
  const batchesByKey = new Map<string, Batch[]>();
  let batchCount = 0;
  const make = (key: string, records: HydrateRecord[]): Batch => {
    const first = records[0]!.line;
    const last = records[records.length - 1]!.line;
    batchCount++;
    return { key, first, last, records, idempotencyKey: `hydrate:${file.fileId}:${first}-${last}` };
  };
  for (const [key, records] of byKey) {
    const batches: Batch[] = [];
    let current: HydrateRecord[] = [];
    let bytes = 16;
    for (const record of records) {
      const size = utf8.encode(JSON.stringify({ message: record.message, role: record.role })).byteLength + 1;
      if (current.length > 0 && (current.length >= maxMessages || bytes + size > maxBytes)) {
        batches.push(make(key, current));
        current = [];
        bytes = 16;
      }
      current.push(record);
      bytes += size;
    }
    if (current.length > 0) batches.push(make(key, current));
    batchesByKey.set(key, batches);
  }
  return { fileId: file.fileId, keys: [...byKey.keys()], batchesByKey, totalMessages: file.records.length, batchCount };
}

export interface HydrateProgress {
  /** Messages stored, replayed or failed so far (of `total`). */
  done: number;
  total: number;
  sent: number;
  replayed: number;
  failed: number;
}

export interface HydrateOptions {
  /** Keys in flight at once (default 4). */
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
  const parallel = Math.max(1, Math.floor(options.parallel ?? 4));
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
          () => agent.appendMessage(batch.key, { role: record.role, message: record.message }, { idempotencyKey: `hydrate-single:${plan.fileId}:${record.line}` }),
          retry,
        );
        requests++;
        if (answer.replayed) replayed++;
        else sent++;
        progress();
      } catch (err) {
        throw Object.assign(new Error('single append failed'), { original: err, sentBefore: i });
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
        const partial = thrown as { original?: unknown; sentBefore?: number };
        const err = partial.original ?? thrown;
        const reason = reasonOf(err);
        failRecords(batch.records.slice(partial.sentBefore ?? 0), reason);
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
