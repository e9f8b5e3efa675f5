/** The soak's report as text: Markdown tables that paste into BENCHMARKS.md as they are. */
import { markdownTable } from '../bench/lib';
import { FAULT_KINDS, FAULT_TEXT, type FaultKind } from './faults';
import type { PhaseStats, SoakReport } from './report';

const num = (v: number | null) => (v === null ? '–' : v.toFixed(1));
const phase = (p: PhaseStats) => `${num(p.p50)} / ${num(p.p99)} (${p.n})`;
const recovery = (v: number | null | undefined) =>
  v === undefined || v === null ? 'no request' : Number.isFinite(v) ? `${(v / 1000).toFixed(2)} s` : 'not back';

/** p50/p99 per route and phase, pooled over every fault of `kind`. */
function kindTable(report: SoakReport, kind: FaultKind): string {
  const faults = report.faults.filter((f) => f.kind === kind);
  const routes = Object.keys(report.steadyP99);
  const rows = routes.map((route) => {
    const pick = (which: 'before' | 'during' | 'after') => {
      // Pooled: the median of the per-fault figures would hide the worst; show the worst p99 and its n.
      const phases = faults.map((f) => f.routes[route]?.[which]).filter((p): p is PhaseStats => p !== undefined);
      const n = phases.reduce((s, p) => s + p.n, 0);
      const worst = (key: 'p50' | 'p99') => {
        const values = phases.map((p) => p[key]).filter((v): v is number => v !== null);
        return values.length ? Math.max(...values) : null;
      };
      return phase({ n, p50: worst('p50'), p99: worst('p99') });
    };
    return [route, pick('before'), pick('during'), pick('after'), recovery(report.worstRecovery[route]?.[kind])];
  });
  return markdownTable(['route', 'before: p50 / p99 ms (n)', 'during', 'after', 'back to steady p99'], rows, [
    'left',
    'right',
    'right',
    'right',
    'right',
  ]);
}

export function printReport(report: SoakReport): string {
  const rb = report.readBack;
  const lines = [
    `${report.requests} requests sent by ${report.clients} clients over ${report.minutes} min; answered by status: ${Object.entries(
      report.byStatus,
    )
      .sort()
      .map(([s, n]) => `${s}: ${n}`)
      .join(', ')}`,
    `answers other than 2xx by cause: ${
      Object.entries(report.notOkByCause)
        .sort()
        .map(([c, n]) => `${c}: ${n}`)
        .join(', ') || 'none'
    }`,
    `messages acknowledged ${rb.messagesAcked}, found stored ${rb.messagesFound}; replies acknowledged ${rb.repliesAcked}, found stored ${rb.repliesFound}; duplicates ${rb.duplicates}`,
    `writes sent again with their Idempotency-Key: ${rb.retried} (${rb.replayed} answered as replays); replies with a failed tool step (a result for the model): ${rb.toolErrorSteps}`,
    '',
    'requests not served (5xx, no answer, 409 reply_in_progress) by cause:',
    '',
    Object.keys(report.failuresByCause).length === 0
      ? '(none)'
      : markdownTable(
          ['cause', 'count', 'explained by the fault in force'],
          Object.entries(report.failuresByCause)
            .sort()
            .map(([cause, c]) => [cause, String(c.count), String(c.explained)]),
          ['left', 'right', 'right'],
        ),
    '',
    `not served and not explained by the fault in force: ${report.unexplained}`,
    '',
    'steady p99 per route (requests overlapping no fault and its 10 s after), ms:',
    '',
    markdownTable(
      ['route', 'steady p99'],
      Object.entries(report.steadyP99).map(([r, v]) => [r, num(v)]),
      ['left', 'right'],
    ),
  ];
  for (const kind of FAULT_KINDS) {
    const count = report.faults.filter((f) => f.kind === kind).length;
    if (count === 0) continue;
    lines.push('', `${FAULT_TEXT[kind]} (${count}×; worst of the ${count} per cell):`, '', kindTable(report, kind));
  }
  lines.push(
    '',
    `routes not back to their steady p99 within 10 s of a fault's end: ${report.slowRecoveries}`,
    `leftover processes: ${report.leftovers.length}${report.leftovers.map((l) => `\n  ${l.pid} ${l.cmdline}`).join('')}`,
    rb.lost.length ? `lost: ${rb.lost.map((l) => `${l.context}#${l.id} (${l.role})`).join(', ')}` : 'lost: none',
    report.ok ? 'soak: PASSED' : 'soak: FAILED',
  );
  return lines.join('\n');
}
