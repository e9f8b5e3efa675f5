/**
 * What the soak found, from the recorded samples, the fault windows and the read-back:
 * - counts: requests sent, answered by status, 5xx (and no answer) by cause, each explained or not
 *   (explained: a code the fault in force documents, for a request that overlapped the fault or
 *   began within RECOVERY_MS of its end);
 * - p50/p99 per route in the 10 s before, during and the 10 s after each fault;
 * - recovery: per route and fault, ms from the fault's end until the route's last bad answer (see
 *   `recovery`), against the route's steady p99 (requests that overlapped no fault window and
 *   its 10 s after);
 * - the verdict: exit 1 on a lost acknowledged write, an unexplained 5xx or silence, a route not
 *   back within RECOVERY_MS, or a process left running.
 */
import { summarize } from '../bench/lib';
import { EXPLAINED_CODES, type FaultKind, type FaultWindow, RECOVERY_MS } from './faults';
import type { Sample } from './record';
import type { ReadBack } from './verify';

export interface PhaseStats {
  n: number;
  p50: number | null;
  p99: number | null;
}

export interface SoakReport {
  minutes: number;
  clients: number;
  requests: number;
  byStatus: Record<string, number>;
  /** `<status> <code>` -> count, for every answer that was not 2xx (4xx included). */
  notOkByCause: Record<string, number>;
  /** `<status> <code>` -> count, for every request not served (`failed`): 5xx, no answer (status 0), 409 reply_in_progress. */
  failuresByCause: Record<string, { count: number; explained: number }>;
  unexplained: number;
  readBack: ReadBack & { retried: number; replayed: number; toolErrorSteps: number };
  steadyP99: Record<string, number | null>;
  faults: {
    kind: FaultKind;
    index: number;
    startS: number;
    durationS: number;
    routes: Record<string, { before: PhaseStats; during: PhaseStats; after: PhaseStats; recoveryMs: number | null }>;
  }[];
  /** Worst recovery per route and fault kind (ms; null: no request of the route after that kind). */
  worstRecovery: Record<string, Partial<Record<FaultKind, number | null>>>;
  slowRecoveries: number;
  leftovers: { pid: number; cmdline: string }[];
  ok: boolean;
}

/**
 * A request the route did not serve: a 5xx, no answer, or 409 `reply_in_progress` (the soak's
 * clients never overlap replies on a context, so one means a lease left behind by an earlier reply).
 */
export const failed = (s: Sample) => s.status === 0 || s.status >= 500 || (s.status === 409 && s.code === 'reply_in_progress');

function stats(samples: Sample[]): PhaseStats {
  const ok = samples.filter((s) => !failed(s)).map((s) => s.end - s.start);
  if (ok.length === 0) return { n: samples.length, p50: null, p99: null };
  const s = summarize(ok);
  return { n: samples.length, p50: Math.round(s.median * 10) / 10, p99: Math.round(s.p99 * 10) / 10 };
}

const overlaps = (s: Sample, from: number, to: number) => s.start < to && s.end > from;

/** The fault a failed sample is explained by, if any. */
export function explainedBy(s: Sample, windows: FaultWindow[]): FaultWindow | undefined {
  return windows.find((w) => overlaps(s, w.start, w.end + RECOVERY_MS) && EXPLAINED_CODES[w.kind].includes(s.code ?? ''));
}

/**
 * How long an answer after a fault may take and still count as back to normal: twice the route's
 * steady p99, and at least 50 ms over it. A few ms over the p99 is what any answer of a sparse
 * route may take on a busy 2-core machine (a login of 23 ms against a p99 of 19.2 ms failed a CI
 * soak), not the fault's trace, which costs a timeout or a retry: hundreds of ms or more.
 */
export function slowAfterFault(p99: number): number {
  return Math.max(2 * p99, p99 + 50);
}

/**
 * ms from `w.end` until the route answered normally again: the end of its last bad answer among
 * the requests that began during the fault or after it, before the first good answer begun after
 * the end that the next two requests do not undo. Bad: not served (`failed`), or slower than
 * `slowAfterFault` of the steady p99 for a request begun before RECOVERY_MS after the end (later,
 * one slow answer of a sparse route on a loaded machine is noise, not the fault). 0 when every request begun after the
 * end was good; Infinity: the last request before `until` was not served and none after the end
 * was good; null: no request began after the end.
 */
export function recovery(
  samples: readonly Sample[],
  w: Pick<FaultWindow, 'start' | 'end'>,
  until: number,
  p99: number | null,
): number | null {
  const slow = p99 === null ? null : slowAfterFault(p99);
  const bad = (s: Sample) => failed(s) || (slow !== null && s.start < w.end + RECOVERY_MS && s.end - s.start > slow);
  const from = samples.filter((s) => s.start >= w.start && s.start < until).sort((a, b) => a.start - b.start);
  if (!from.some((s) => s.start >= w.end)) return null;
  for (let i = 0; i < from.length; i++) {
    const s = from[i]!;
    if (s.start < w.end || bad(s) || from.slice(i + 1, i + 3).some(failed)) continue;
    const lastBad = Math.max(
      w.end,
      ...from
        .slice(0, i)
        .filter(bad)
        .map((b) => b.end),
    );
    return Math.round(lastBad - w.end);
  }
  // No good answer after the end: never back if the last request was not served; if it was
  // served, only slowly, the route was back when that answer came (a sparse route's last request).
  if (failed(from.at(-1)!)) return Number.POSITIVE_INFINITY;
  return Math.round(Math.max(w.end, ...from.filter(bad).map((b) => b.end)) - w.end);
}

export function buildReport(input: {
  minutes: number;
  clients: number;
  samples: Sample[];
  windows: FaultWindow[];
  readBack: SoakReport['readBack'];
  endOfLoad: number;
  leftovers: SoakReport['leftovers'];
}): SoakReport {
  const { samples, windows } = input;
  const byStatus: Record<string, number> = {};
  const failuresByCause: SoakReport['failuresByCause'] = {};
  const notOkByCause: Record<string, number> = {};
  let unexplained = 0;
  for (const s of samples) {
    const status = s.status === 0 ? 'no answer' : String(s.status);
    byStatus[status] = (byStatus[status] ?? 0) + 1;
    if (s.status < 200 || s.status >= 300) {
      const cause = `${status} ${s.code ?? ''}`.trim();
      notOkByCause[cause] = (notOkByCause[cause] ?? 0) + 1;
    }
    if (!failed(s)) continue;
    const cause = `${status} ${s.code ?? ''}`.trim();
    const entry = failuresByCause[cause] ?? { count: 0, explained: 0 };
    failuresByCause[cause] = entry;
    entry.count++;
    if (explainedBy(s, windows)) entry.explained++;
    else unexplained++;
  }
  const routes = [...new Set(samples.map((s) => s.route))].sort();
  const ofRoute = new Map(routes.map((r) => [r, samples.filter((s) => s.route === r)]));
  const steadyP99: Record<string, number | null> = {};
  for (const r of routes) {
    const steady = ofRoute.get(r)!.filter((s) => !windows.some((w) => overlaps(s, w.start, w.end + RECOVERY_MS)));
    steadyP99[r] = stats(steady).p99;
  }
  const worstRecovery: SoakReport['worstRecovery'] = {};
  let slowRecoveries = 0;
  const faults = windows.map((w, i) => {
    const until = windows[i + 1]?.start ?? input.endOfLoad;
    const perRoute: SoakReport['faults'][number]['routes'] = {};
    for (const r of routes) {
      const rs = ofRoute.get(r)!;
      const recoveryMs = recovery(rs, w, until, steadyP99[r] ?? null);
      perRoute[r] = {
        before: stats(rs.filter((s) => s.start >= w.start - RECOVERY_MS && s.start < w.start)),
        during: stats(rs.filter((s) => s.start >= w.start && s.start < w.end)),
        after: stats(rs.filter((s) => s.start >= w.end && s.start < w.end + RECOVERY_MS)),
        recoveryMs,
      };
      if (recoveryMs !== null && recoveryMs > RECOVERY_MS) slowRecoveries++;
      const worst = worstRecovery[r] ?? {};
      worstRecovery[r] = worst;
      const known = worst[w.kind];
      if (known === undefined || (recoveryMs !== null && (known === null || recoveryMs > known))) worst[w.kind] = recoveryMs;
    }
    return {
      kind: w.kind,
      index: w.index,
      startS: Math.round(w.start / 100) / 10,
      durationS: Math.round((w.end - w.start) / 100) / 10,
      routes: perRoute,
    };
  });
  const rb = input.readBack;
  const ok =
    rb.messagesFound === rb.messagesAcked &&
    rb.repliesFound === rb.repliesAcked &&
    rb.duplicates === 0 &&
    unexplained === 0 &&
    slowRecoveries === 0 &&
    input.leftovers.length === 0;
  return {
    minutes: input.minutes,
    clients: input.clients,
    requests: samples.length,
    byStatus,
    notOkByCause,
    failuresByCause,
    unexplained,
    readBack: rb,
    steadyP99,
    faults,
    worstRecovery,
    slowRecoveries,
    leftovers: input.leftovers,
    ok,
  };
}
