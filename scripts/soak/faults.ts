/**
 * The faults and their schedule. A run of N minutes keeps a warm-up before the first fault and a
 * tail after the last, and fits `4 × max(1, floor(N / 2))` fault slots between (so a 2-minute
 * run injects each kind once, a 30-minute run each kind 15 times), in the order below. Each fault
 * lasts FAULT_MS (Postgres: SIGKILLed while a reply waits on the model, left down for POSTGRES_DOWN_MS, then started again; its
 * window ends when it accepts connections), and every slot leaves at least RECOVERY_MS after it.
 */
import { sleep } from '../lib/processes';
import type { SoakStack } from './stack';

export const FAULT_KINDS = ['postgres', 'rpc', 'model', 'tool'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** What each fault means to a client, and the 5xx codes it explains (documented on the routes). */
export const FAULT_TEXT: Record<FaultKind, string> = {
  postgres: 'Postgres SIGKILLed (postmaster and backends) while a reply waits on the model, down 5 s, started again on the same data dir',
  rpc: 'chain RPC failing 10 s (connections dropped 5 s, then 500s 5 s)',
  model: 'stand-in model stalling 10 s (answers after 4 s; the reply idle timeout is 2 s)',
  tool: 'tool server answering 500 for 10 s',
};
export const EXPLAINED_CODES: Record<FaultKind, readonly string[]> = {
  // reply_in_progress: the lease of the reply the kill interrupted, whose release waits for the
  // database (retried once a second, so the context is free within a second of Postgres being
  // back). A lease left behind for good still fails the run: its 409s outlast the window.
  postgres: ['dependency_unavailable', 'reply_in_progress'],
  rpc: ['dependency_unavailable'],
  model: ['llm_timeout', 'llm_unavailable'],
  tool: ['tool_server_error'],
};

export const FAULT_MS = 10_000;
export const POSTGRES_DOWN_MS = 5_000;
export const RECOVERY_MS = 10_000;
const MIN_SLOT_MS = FAULT_MS + RECOVERY_MS + 3_000;

export interface PlannedFault {
  kind: FaultKind;
  /** ms after the load began. */
  at: number;
}

export interface FaultWindow {
  kind: FaultKind;
  index: number;
  /** When the fault began and when it was lifted (Postgres: accepting connections again), ms. */
  start: number;
  end: number;
}

/** The schedule for a run of `totalMs`; throws when the run is too short for one slot per kind. */
export function planFaults(totalMs: number): { faults: PlannedFault[]; warmUpMs: number; tailMs: number } {
  const warmUpMs = Math.max(15_000, Math.round(totalMs * 0.1));
  const tailMs = Math.max(12_000, Math.round(totalMs * 0.05));
  const count = FAULT_KINDS.length * Math.max(1, Math.floor(totalMs / 120_000));
  const slotMs = (totalMs - warmUpMs - tailMs) / count;
  if (slotMs < MIN_SLOT_MS) {
    throw new Error(`a run of ${totalMs / 1000} s leaves ${Math.round(slotMs / 1000)} s per fault; at least 2 minutes are needed`);
  }
  const faults = Array.from({ length: count }, (_, i) => ({
    kind: FAULT_KINDS[i % FAULT_KINDS.length]!,
    at: Math.round(warmUpMs + i * slotMs),
  }));
  return { faults, warmUpMs, tailMs };
}

/** Injects one fault and lifts it; returns its window (clock: `now`). */
export async function injectFault(stack: SoakStack, kind: FaultKind, now: () => number): Promise<Omit<FaultWindow, 'index'>> {
  // The kill lands while a reply holds its context's lease (its model answer held 1 s), so the
  // reply must end, and release the lease, with the database gone.
  if (kind === 'postgres') await stack.nextCompletion(1_000, 5_000);
  const start = now();
  switch (kind) {
    case 'postgres':
      await stack.killPostgres();
      await sleep(POSTGRES_DOWN_MS);
      await stack.restartPostgres();
      break;
    case 'rpc':
      stack.setRpcMode('refuse');
      await sleep(FAULT_MS / 2);
      stack.setRpcMode('error500');
      await sleep(FAULT_MS / 2);
      stack.setRpcMode('pass');
      break;
    case 'model':
      stack.setModelStalled(true);
      await sleep(FAULT_MS);
      stack.setModelStalled(false);
      break;
    case 'tool':
      stack.setToolMode('error500');
      await sleep(FAULT_MS);
      stack.setToolMode('pass');
      break;
  }
  return { kind, start, end: now() };
}

/** Runs the schedule from the start of the load; stops early (between faults) when `signal` fires. */
export async function runFaults(
  stack: SoakStack,
  plan: PlannedFault[],
  now: () => number,
  log: (line: string) => void,
  signal: AbortSignal,
): Promise<FaultWindow[]> {
  const windows: FaultWindow[] = [];
  for (const [index, fault] of plan.entries()) {
    const wait = fault.at - now();
    if (wait > 0) await sleep(wait);
    if (signal.aborted) break;
    log(`fault ${index + 1}/${plan.length}: ${FAULT_TEXT[fault.kind]}`);
    const window = await injectFault(stack, fault.kind, now);
    windows.push({ ...window, index });
    log(`fault ${index + 1}/${plan.length} lifted after ${((window.end - window.start) / 1000).toFixed(1)} s`);
  }
  return windows;
}
