/**
 * The memory benchmark's output: the database's facts, the preamble of each BENCHMARKS.md
 * section (command, date, machine, load), the seeding and lists section, and writing them.
 */
import type pg from 'pg';
import { bytes, count, describeMachine, runDate, stackRun, writeBenchmarkSection, type MachineFacts } from '../lib';
import { WARM_UP, log, type MemoryOptions, type SectionReport } from './common';
import { listFailures, listReport, type ListPart } from './lists';
import { SEARCH_WORD, WORDS, seedTable, type Seeded } from './seeding';

export const MEMORY_HEADING = '## Agent memory (issue 4)';

/** `Postgres 17.10; shared_buffers 128 MB; fsync off, synchronous_commit off, full_page_writes off` */
export async function serverFacts(db: pg.Client): Promise<string> {
  const { rows } = await db.query<{ name: string; setting: string; unit: string | null }>(
    `SELECT name, setting, unit FROM pg_settings
      WHERE name IN ('server_version', 'shared_buffers', 'fsync', 'synchronous_commit', 'full_page_writes') ORDER BY name`,
  );
  const get = (name: string) => rows.find((r) => r.name === name);
  const sb = get('shared_buffers');
  const sharedBuffers = sb && sb.unit === '8kB' ? bytes(Number(sb.setting) * 8192) : `${sb?.setting ?? '?'}${sb?.unit ?? ''}`;
  return `Postgres ${get('server_version')?.setting ?? '?'}; shared_buffers ${sharedBuffers}; fsync ${get('fsync')?.setting}, synchronous_commit ${get('synchronous_commit')?.setting}, full_page_writes ${get('full_page_writes')?.setting}`;
}

/** Seeding and lists share one section; either may be absent (`--only seeding`). */
export function memoryReport(seeded: Seeded[], lists: ListPart | null, options: MemoryOptions): SectionReport {
  const listed = lists ? listReport(lists) : null;
  const body = [
    `Data: one fresh wallet, logged in through the client, owns every minted agent. Agent A holds ${count(options.big)} keys and B ${count(options.small)}: one created by a real \`POST /context\` (which provisions the schema), the rest bulk-inserted with SQL in chunks of 100,000 ` +
      `as \`customer:<n>/<word>\`, \`project-<hex>/<word>\` and \`ticket@<n>.<word>\`, \`<word>\` cycling through ${WORDS.length} words so the search term \`${SEARCH_WORD}\` matches 2% of keys; key_count.visible is then set from a count and the table gets \`VACUUM (ANALYZE)\` ` +
      '(so autovacuum, which an insert of this size triggers anyway, does not run in the middle of the measurements; the seeding session commits synchronously, since with asynchronous commits VACUUM cannot yet mark the new pages all-visible and index-only scans would visit the heap). ' +
      `Lists: ${WARM_UP} warm-up then ${options.requests} rounds, each running every row of the table once, round-robin (gateway request through the client, a short pause for the worker's after-response work, then the floor statement, \`listKeysSql\` over a warm \`pg\` connection); gateway answers are checked against the floor (same totalElements and keys). ` +
      "All of it stays in the dev database under the stack's DEV_DIR (not committed); delete its `postgres` directory with the stack stopped to start clean.",
    '',
    '### Seeding',
    '',
    seedTable(seeded),
    '',
    ...(listed ? [listed.body] : []),
  ].join('\n');
  return { heading: MEMORY_HEADING, body, unexpected: lists ? listFailures(lists) : 0, ...(listed ? { notes: listed.notes } : {}) };
}

export interface RunFacts {
  command: string;
  startedAt: Date;
  machine: MachineFacts;
  loadAtStart: number;
  loadAtEnd: number;
  server: string;
}

function preamble(run: RunFacts): string {
  const date = runDate(run.startedAt);
  const devStack = stackRun();
  return [
    `Command: \`${run.command}\` (against \`${devStack.command}\`, testnet worker), run ${date}.`,
    `Machine: ${describeMachine(run.machine)}; load average ${run.loadAtStart.toFixed(2)} when the run started and ${run.loadAtEnd.toFixed(2)} when it ended (the stack, and whatever else runs, share these cores with the benchmark client). ` +
      `Database: ${run.server} (the dev stack's embedded Postgres). Gateway requests go through the typed client (\`src/client\`), client-side time from request sent to body parsed, over loopback, the worker in ${devStack.runner}; ` +
      'floors are the same SQL run from Node over warm `pg` connections in the same run.',
  ].join('\n');
}

/** Writes each report under its heading; reports sharing a heading are joined in order. */
export async function writeReports(reports: SectionReport[], run: RunFacts): Promise<void> {
  const byHeading = new Map<string, string[]>();
  for (const r of reports) byHeading.set(r.heading, [...(byHeading.get(r.heading) ?? []), r.body]);
  for (const [heading, bodies] of byHeading) {
    const file = await writeBenchmarkSection(heading, [preamble(run), '', ...bodies].join('\n'));
    log(`wrote "${heading}" in ${file}`);
  }
}
