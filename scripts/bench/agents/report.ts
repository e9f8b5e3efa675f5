/** The markdown tables and the reading of `bench:agents`. */
import { TEMPLATE_VERSION } from '../../../src/storage/agent-template';
import { bytes, count, markdownTable, ms, perSecond, ratio } from '../lib';
import type { FirstRequests, Pair } from './first-requests';
import type { CatalogStats, ProvisionFigures } from './synthetic';
import type { RunFigures, UpgradeFigures } from './upgrade-run';

export interface Figures {
  agents: number;
  provisioning: ProvisionFigures;
  /** `preUpgrade`: after the second round of first requests, which adds schemas at the last version. */
  catalog: { before: CatalogStats; provisioned: CatalogStats; preUpgrade: CatalogStats; upgraded: CatalogStats };
  firstBefore: FirstRequests;
  firstAfter: FirstRequests;
  upgrade: UpgradeFigures;
}

const R = 'right' as const;
const L = 'left' as const;

export function provisioningTable(p: ProvisionFigures): string {
  const rows = p.batches.map((b, i) => [
    `${i + 1}`,
    count(b.schemasBefore),
    count(b.created),
    perSecond(b.created, b.elapsedMs),
    ms(b.perSchema.median),
    ms(b.perSchema.p99),
  ]);
  rows.push(['all', '', count(p.created), perSecond(p.created, p.elapsedMs), ms(p.perSchema.median), ms(p.perSchema.p99)]);
  return markdownTable(['Batch', 'Agent schemas before', 'Created', 'Schemas/s', 'p50 per schema', 'p99 per schema'], rows, [
    L,
    R,
    R,
    R,
    R,
    R,
  ]);
}

export function catalogTable(f: Figures): string {
  const { before: b, provisioned: p, preUpgrade: q, upgraded: u } = f.catalog;
  const n = Math.max(1, f.provisioning.created);
  const row = (label: string, get: (s: CatalogStats) => number, show: (v: number) => string): string[] => [
    label,
    show(get(b)),
    show(get(p)),
    show(get(u)),
    show((get(p) - get(b)) / n),
    show((get(u) - get(q)) / Math.max(1, f.upgrade.total)),
    ratio(get(p), get(b)),
  ];
  const one = (v: number) => (Number.isInteger(v) ? count(v) : v.toFixed(1));
  return markdownTable(
    [
      'Measurement',
      'Before',
      `+${count(f.provisioning.created)} at v1`,
      `After the upgrade to v${TEMPLATE_VERSION}`,
      'Per agent (v1)',
      `Per agent (v1 → v${TEMPLATE_VERSION})`,
      'v1 / before',
    ],
    [
      row('Agent schemas (pg_namespace `agent_*`)', (s) => s.schemas, one),
      row('pg_class rows', (s) => s.pgClass, one),
      row('pg_attribute rows', (s) => s.pgAttribute, one),
      row('pg_catalog tables + indexes + TOAST', (s) => s.catalogBytes, bytes),
      row('pg_database_size', (s) => s.databaseBytes, bytes),
    ],
    [L, R, R, R, R, R, R],
  );
}

export function firstRequestsTable(f: Figures): string {
  const row = (label: string, pick: (x: FirstRequests) => Pair): string[] => {
    const x = pick(f.firstBefore);
    const y = pick(f.firstAfter);
    return [
      label,
      ms(x.gateway.median),
      ms(x.floor.median),
      ms(y.gateway.median),
      ms(y.floor.median),
      ratio(y.gateway.median, x.gateway.median),
      ratio(y.floor.median, x.floor.median),
      `${x.failures.total() + y.failures.total()}`,
    ];
  };
  const at = (x: FirstRequests) => `${count(x.schemas)} schemas`;
  return markdownTable(
    [
      'Median of a new agent',
      `Gateway at ${at(f.firstBefore)}`,
      `Floor at ${at(f.firstBefore)}`,
      `Gateway at ${at(f.firstAfter)}`,
      `Floor at ${at(f.firstAfter)}`,
      'Gateway after / before',
      'Floor after / before',
      'Unexpected',
    ],
    [
      row('First read: `GET …/contexts/keys` (floor: the schema lookup)', (x) => x.read),
      row('First write: `POST …/context`, provisions (floor: lookup + `provision()` + insert)', (x) => x.write),
    ],
    [L, R, R, R, R, R, R, R],
  );
}

export function upgradeTable(u: UpgradeFigures): string {
  const row = (label: string, r: RunFigures): string[] => [
    label,
    count(r.upgraded),
    ms(r.wallMs),
    perSecond(r.upgraded, r.wallMs),
    r.upgraded > 1 ? perSecond(r.upgraded - 1, r.spanMs) : 'n/a',
  ];
  const runs = markdownTable(
    ['`npm run agents:upgrade`', 'Schemas upgraded', 'Wall time (with start-up)', 'Schemas/s (wall)', 'Schemas/s (first to last commit)'],
    [row(`1: SIGKILL after about half of ${count(u.total)}`, u.killed), row('2: rerun to completion', u.resumed)],
    [L, R, R, R, R],
  );
  const checks = markdownTable(
    ['Check', 'Result', 'Detail'],
    u.checks.map((c) => [c.label, c.ok ? 'ok' : '**FAILED**', c.detail]),
    [L, L, L],
  );
  return `${runs}\n\n${checks}`;
}

/** The reading of the figures, one paragraph per part. */
export function reading(f: Figures): string[] {
  const p = f.provisioning;
  const first = p.batches[0];
  const last = p.batches[p.batches.length - 1];
  const { before: b, provisioned: v1, preUpgrade: v1plus, upgraded: v2 } = f.catalog;
  const n = Math.max(1, p.created);
  const perAgentBytes = (v1.catalogBytes - b.catalogBytes) / n;
  const within = (x: number, y: number) => Math.abs(y - x) <= 0.2 * x;
  const fb = f.firstBefore;
  const fa = f.firstAfter;
  const u = f.upgrade;
  return [
    `**Provisioning.** ${count(p.created)} schemas at ${perSecond(p.created, p.elapsedMs)} (p50 ${ms(p.perSchema.median)}, p99 ${ms(p.perSchema.p99)} each: one transaction with an advisory lock, CREATE SCHEMA, four tables with their primary keys, two more indexes (one GIN), an identity sequence, the key_count row and the registry row)` +
      (first && last && p.batches.length > 1
        ? `; the first batch ran at ${perSecond(first.created, first.elapsedMs)} and the last, with ${count(last.schemasBefore)} schemas already there, at ${perSecond(last.created, last.elapsedMs)}.`
        : '.'),
    `**Catalog.** Each v1 schema adds ${((v1.pgClass - b.pgClass) / n).toFixed(1)} pg_class rows, ${((v1.pgAttribute - b.pgAttribute) / n).toFixed(1)} pg_attribute rows and about ${bytes(perAgentBytes)} of catalog; the v2 index adds ${((v2.pgClass - v1plus.pgClass) / Math.max(1, u.total)).toFixed(1)} pg_class row per schema. ` +
      `At this rate 100,000 agents would hold about ${bytes(perAgentBytes * 100_000)} of catalog and ${count(Math.round(((v1.pgClass - b.pgClass) / n) * 100_000))} pg_class rows.`,
    `**A new agent at ${count(fb.schemas)} and at ${count(fa.schemas)} schemas.** First read ${ms(fb.read.gateway.median)} → ${ms(fa.read.gateway.median)} (floor ${ms(fb.read.floor.median)} → ${ms(fa.read.floor.median)}), first write ${ms(fb.write.gateway.median)} → ${ms(fa.write.gateway.median)} (floor ${ms(fb.write.floor.median)} → ${ms(fa.write.floor.median)}), medians of ${fb.read.gateway.n}: ` +
      (within(fb.read.gateway.median, fa.read.gateway.median) && within(fb.write.gateway.median, fa.write.gateway.median)
        ? 'both within ±20%, so the catalog at this size does not slow a new agent down.'
        : 'a change beyond ±20% in at least one; with so few samples on a shared machine, compare the floor before reading it as the catalog’s cost.'),
    `**Upgrade.** The first run was killed with ${count(u.killed.upgraded)} of ${count(u.total)} schemas done, the rerun found the other ${count(u.resumed.found)} and upgraded them at ${u.resumed.upgraded > 1 ? perSecond(u.resumed.upgraded - 1, u.resumed.spanMs) : 'n/a'} between its first and last commit. ` +
      (u.checks.every((c) => c.ok)
        ? 'Every check passed.'
        : `Failed: ${u.checks
            .filter((c) => !c.ok)
            .map((c) => c.label)
            .join('; ')}.`),
  ];
}
