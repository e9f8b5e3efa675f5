/**
 * Hydration from the page: the CLI's steps (src/hydrate: parse the JSONL file with the gateway's
 * rules, plan its batches with Idempotency-Keys `hydrate:<file id>:<first>-<last>`, the file id
 * from the sha256 of its bytes as the CLI computes it), sent by this tab. Resumable: the batches
 * stored are remembered in sessionStorage per agent and file, so choosing the same file again
 * goes on from where it stopped; a batch sent twice is replayed by the gateway, never stored twice.
 */
import { type AgentClient, GatewayError } from '../../client';
import { type FailedLine, fileIdOf, type HydrateFile, parseHydrateContent } from '../../hydrate/parse';
import { type Batch, type HydratePlan, MAX_BATCH_MESSAGES, planHydration } from '../../hydrate/plan';

/** A line not stored: its number, a code (the gateway's, or `invalid_line` / `not_sent`) and why. */
export interface FailedReport {
  line: number;
  code: string;
  message: string;
}

export interface HydrateProgress {
  total: number;
  /** Stored by this run or an earlier one (replayed), or failed. */
  done: number;
  sent: number;
  replayed: number;
  /** Messages an earlier, interrupted run of this file stored (skipped now). */
  resumed: number;
  failed: number;
}

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

/** Errors after which no later request can succeed: the run stops. */
function stopsTheRun(err: unknown): boolean {
  if (!(err instanceof GatewayError)) return true;
  return err.status === 401 || err.status === 403 || err.status === 0 || err.code === 'agent_not_found' || err.transient;
}

/** Sends the plan's batches not stored yet: up to four keys at once, each key's batches in order. */
export async function uploadPlan(
  agent: AgentClient,
  read: ReadFile,
  options: { createMissing: boolean; signal: AbortSignal; onProgress: (p: HydrateProgress) => void },
): Promise<HydrateOutcome> {
  const { plan, parsed } = read;
  const stored = storedBatches(agent, plan.fileId);
  const remember = (batch: Batch) => {
    stored.add(batch.idempotencyKey);
    sessionStorage.setItem(doneKey(agent, plan.fileId), JSON.stringify([...stored]));
  };
  const failures: FailedReport[] = parsed.invalid.map((f: FailedLine) => ({ line: f.line, code: 'invalid_line', message: f.reason }));
  const state: HydrateProgress = { total: plan.totalMessages, done: 0, sent: 0, replayed: 0, resumed: 0, failed: 0 };
  let stopped: string | undefined;
  const progress = () => options.onProgress({ ...state, done: state.sent + state.replayed + state.resumed + state.failed });
  const fail = (batch: Batch, code: string, message: string) => {
    for (const r of batch.records) failures.push({ line: r.line, code, message });
    state.failed += batch.records.length;
  };
  const stop = (reason: string) => {
    stopped ??= reason;
  };
  options.signal.addEventListener('abort', () => stop('stopped: choose the same file again to go on'), { once: true });

  const pending = plan.keys.filter((key) => (plan.batchesByKey.get(key) ?? []).some((b) => !stored.has(b.idempotencyKey)));
  for (const key of plan.keys) {
    for (const batch of plan.batchesByKey.get(key) ?? []) if (stored.has(batch.idempotencyKey)) state.resumed += batch.records.length;
  }
  progress();
  if (options.createMissing) {
    for (let i = 0; i < pending.length && stopped === undefined; i += MAX_BATCH_MESSAGES) {
      try {
        await agent.createContexts(pending.slice(i, i + MAX_BATCH_MESSAGES), { signal: options.signal });
      } catch (err) {
        if (options.signal.aborted) break;
        const { code, message } = codeOf(err);
        stop(`creating the contexts failed: ${message} (${code})`);
      }
    }
  }

  const runKey = async (key: string) => {
    const batches = (plan.batchesByKey.get(key) ?? []).filter((b) => !stored.has(b.idempotencyKey));
    for (let i = 0; i < batches.length; i++) {
      const batch = batches[i] as Batch;
      if (stopped !== undefined) {
        for (const rest of batches.slice(i)) fail(rest, 'not_sent', `not sent: ${stopped}`);
        break;
      }
      try {
        const messages = batch.records.map((r) => ({ role: r.role, message: r.message }));
        const answer = await agent.appendMessages(key, messages, { idempotencyKey: batch.idempotencyKey, signal: options.signal });
        if (answer.replayed) state.replayed += messages.length;
        else state.sent += messages.length;
        remember(batch);
      } catch (err) {
        const { code, message } = codeOf(err);
        if (options.signal.aborted) fail(batch, 'not_sent', `not sent: ${stopped ?? 'stopped'}`);
        else fail(batch, code, message);
        for (const rest of batches.slice(i + 1))
          fail(rest, 'not_sent', `not sent: an earlier batch of ${key} failed (line ${batch.first})`);
        if (stopsTheRun(err)) stop(`${message} (${code})`);
        break;
      } finally {
        progress();
      }
    }
  };

  const queue = [...pending];
  await Promise.all(
    Array.from({ length: Math.min(KEYS_IN_FLIGHT, Math.max(1, queue.length)) }, async () => {
      for (let key = queue.shift(); key !== undefined; key = queue.shift()) await runKey(key);
    }),
  );
  progress();
  failures.sort((a, b) => a.line - b.line);
  return { ...state, done: state.sent + state.replayed + state.resumed + state.failed, failures, ...(stopped ? { stopped } : {}) };
}
