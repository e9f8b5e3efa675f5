/**
 * Hydration from the page: the CLI's steps (src/hydrate: parse the JSONL file with the gateway's
 * rules, plan its batches with Idempotency-Keys `hydrate:<file id>:<first>-<last>`, the file id
 * from the sha256 of its bytes as the CLI computes it, send them by the shared run), sent by this tab. Resumable: the batches
 * stored are remembered in sessionStorage per agent and file, so choosing the same file again
 * goes on from where it stopped; a batch sent twice is replayed by the gateway, never stored twice.
 */
import { type AgentClient, GatewayError } from '../../client';
import { type FailedLine, fileIdOf, type HydrateFile, parseHydrateContent } from '../../hydrate/parse';
import { type HydratePlan, planHydration } from '../../hydrate/plan';
import { type SendCounts, type SendFailure, sendPlan } from '../../hydrate/run';

/** A line not stored: its number, a code (the gateway's, or `invalid_line` / `not_sent`) and why. */
export interface FailedReport {
  line: number;
  code: string;
  message: string;
}

/** The shared run's counts, as the progress bar shows them. */
export type HydrateProgress = SendCounts;

export interface HydrateOutcome extends HydrateProgress {
  failures: FailedReport[];
  /** Why the run ended early: Stop, or an error no later request can pass. */
  stopped?: string;
}

export interface ReadFile {
  name: string;
  parsed: HydrateFile;
  plan: HydratePlan;
}

const KEYS_IN_FLIGHT = 4;

const hex = (bytes: ArrayBuffer) => Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');

/** Reads and checks a chosen file; nothing is sent. */
export async function readHydrateFile(file: File): Promise<ReadFile> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  const fileId = fileIdOf(hex(await crypto.subtle.digest('SHA-256', bytes)));
  const parsed = parseHydrateContent(bytes, fileId);
  return { name: file.name, parsed, plan: planHydration(parsed) };
}

const doneKey = (agent: AgentClient, fileId: string) => `agent-gateway.hydrate:${agent.collection}:${agent.tokenId}:${fileId}`;

/** The Idempotency-Keys of the batches an earlier run of this file stored. */
export function storedBatches(agent: AgentClient, fileId: string): Set<string> {
  try {
    const value = JSON.parse(sessionStorage.getItem(doneKey(agent, fileId)) ?? '[]') as unknown;
    return new Set(Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
  } catch {
    return new Set();
  }
}

function codeOf(err: unknown): { code: string; message: string } {
  if (err instanceof GatewayError) return { code: err.code, message: err.message };
  return { code: 'unexpected', message: err instanceof Error ? err.message : String(err) };
}

/** Errors after which no later request can succeed: the run stops (and after any failed key creation). */
function stopsTheRun(err: unknown, step: 'create' | 'append'): boolean {
  if (step === 'create' || !(err instanceof GatewayError)) return true;
  return err.status === 401 || err.status === 403 || err.status === 0 || err.code === 'agent_not_found' || err.transient;
}

/** A failure as the page lists it: the gateway's code, or `not_sent` for what was never sent. */
function reportOf(failure: SendFailure): { code: string; message: string } {
  switch (failure.kind) {
    case 'refused':
      return codeOf(failure.error);
    case 'not_created': {
      const { code, message } = codeOf(failure.error);
      return { code: 'not_sent', message: `not sent: creating the contexts failed: ${message} (${code})` };
    }
    case 'invalid_key':
      return { code: 'invalid_key', message: failure.message };
    case 'earlier_batch_failed':
      return { code: 'not_sent', message: `not sent: an earlier batch of ${failure.key} failed (line ${failure.line})` };
    case 'stopped':
      return { code: 'not_sent', message: `not sent: ${failure.reason}` };
  }
}

/** Sends the plan's batches not stored yet by the shared steps (src/hydrate/run.ts): up to four keys at once, each key's batches in order. */
export async function uploadPlan(
  agent: AgentClient,
  read: ReadFile,
  options: { createMissing: boolean; signal: AbortSignal; onProgress: (p: HydrateProgress) => void },
): Promise<HydrateOutcome> {
  const { plan, parsed } = read;
  const stored = storedBatches(agent, plan.fileId);
  const failures: FailedReport[] = parsed.invalid.map((f: FailedLine) => ({ line: f.line, code: 'invalid_line', message: f.reason }));
  const { signal } = options;
  const outcome = await sendPlan(plan, {
    parallel: KEYS_IN_FLIGHT,
    createMissing: options.createMissing,
    signal,
    abortedReason: 'stopped: choose the same file again to go on',
    isStored: (batch) => stored.has(batch.idempotencyKey),
    createContexts: async (keys) => (await agent.createContexts(keys, { signal })).results,
    appendBatch: async (batch, done) => {
      const messages = batch.records.map((r) => ({ role: r.role, message: r.message }));
      const answer = await agent.appendMessages(batch.key, messages, { idempotencyKey: batch.idempotencyKey, signal });
      stored.add(batch.idempotencyKey);
      sessionStorage.setItem(doneKey(agent, plan.fileId), JSON.stringify([...stored]));
      done(messages.length, answer.replayed);
    },
    stopsTheRun,
    stopReason: (failure) => {
      const { code, message } = codeOf(failure.error);
      return failure.kind === 'not_created' ? `creating the contexts failed: ${message} (${code})` : `${message} (${code})`;
    },
    onFailed: (records, failure) => {
      const report = reportOf(failure);
      for (const r of records) failures.push({ line: r.line, ...report });
    },
    onProgress: options.onProgress,
  });
  failures.sort((a, b) => a.line - b.line);
  const { total, done, sent, replayed, resumed, failed, stopped } = outcome;
  return { total, done, sent, replayed, resumed, failed, failures, ...(stopped ? { stopped } : {}) };
}
