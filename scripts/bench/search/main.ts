/**
 * Memory search (issue 23) at the storage layer: `searchMemory` (both of its
 * statements) from Node over a warm `pg` pool, at 10^3, 10^4 and 10^5 messages in one agent, and
 * hydration throughput into an agent schema without the search columns and index (template v2)
 * and with them (the current template), in alternating batches in one run.
 *
 *   npm run bench:search -- [--database-url URL] [--sizes 1000,10000,100000]
 *     [--runs 40] [--hydrate 30000] [--tail 1000] [--upgrade 100000] [--before REF]
 *     [--worst-runs 10] [--worst-only] [--write]
 *
 * `--before REF` also measures the search as it was at a git ref (e.g. `main`), taking turns with the
 * current one on the same data, and checks that both give the same page 1.
 *
 * `--worst-runs N` (10; 0 skips it) then measures the most one search may cost (worst-case.ts) in a
 * section of its own; `--worst-only` measures only that.
 *
 * Without --database-url it starts an embedded Postgres of its own in a temporary directory.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { getAddress } from 'viem';
import { appendSql } from '../../../src/contexts/messages.service';
import { parseQuery } from '../../../src/memory/query';
import { indexAllMessages } from '../../../src/storage/search-index';
import { searchMemory } from '../../../src/memory/search.service';
import { agentSchemaName, provision } from '../../../src/storage/agent-storage';
import { AGENT_TEMPLATE, TEMPLATE_VERSION } from '../../../src/storage/agent-template';
import type { SqlPool } from '../../../src/storage/sql-client';
import { migrateGateway } from '../../lib/migrate';
import { ensureDatabase, startPostgres } from '../../lib/postgres';
import { removePostgresData } from '../../lib/postgres-placement';
import { freePort } from '../../lib/processes';
import {
  booleanFlag,
  describeLoad,
  describeMachine,
  markdownTable,
  median,
  ms,
  now,
  numberFlag,
  parseFlags,
  percentile,
  ratio,
  REPO_ROOT,
  rejectUnknownFlags,
  runDate,
  writeBenchmarkSection,
} from '../lib';
import { corpusMessages, IDENTIFIER_SHARE, PLANTED } from './corpus';
import { worstCase } from './worst-case';

const flags = parseFlags();
rejectUnknownFlags(flags, ['database-url', 'sizes', 'runs', 'hydrate', 'tail', 'upgrade', 'before', 'worst-runs', 'worst-only', 'write']);
const sizes = (flags.values.get('sizes') ?? '1000,10000,100000').split(',').map(Number);
const runs = numberFlag(flags, 'runs', 40);
const hydrateCount = numberFlag(flags, 'hydrate', 30_000);
/** Messages left unindexed (the newest) for a second set of searches at each size: what search reads directly. */
const tailCount = numberFlag(flags, 'tail', 1000);
/** Messages in the v2 agent brought to the current template (the upgrade's lock, then its indexing); 0 skips it. */
const upgradeCount = flags.values.get('upgrade') === '0' ? 0 : numberFlag(flags, 'upgrade', 100_000);
const worstRuns = flags.values.get('worst-runs') === '0' ? 0 : numberFlag(flags, 'worst-runs', 10);
const worstOnly = booleanFlag(flags, 'worst-only');
const SEED = 23;
const CONTEXTS = 200;
const BATCH = 100;

const startedAt = new Date();
const loadAtStart = (await import('node:os')).loadavg()[0]!;
let stopPostgres: (() => Promise<void>) | undefined;
let databaseUrl = flags.values.get('database-url');
let stateDir: string | undefined;
if (!databaseUrl) {
  stateDir = await mkdtemp(path.join(tmpdir(), 'bench-search-'));
  const server = await startPostgres({ dataDir: path.join(stateDir, 'postgres'), port: await freePort() });
  stopPostgres = () => server.stop();
  await ensureDatabase(server.adminUrl, 'bench_search');
  databaseUrl = server.databaseUrl('bench_search');
}
await migrateGateway(databaseUrl);
const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
const sqlPool = pool as unknown as SqlPool;
const deps = { sql: sqlPool, pool: sqlPool, ownerCheck: Promise.resolve() };
const runTag = Date.now() % 1_000_000;
const agentOf = (n: number) => ({
  chainId: 31337,
  collection: getAddress(`0x${'5e'.repeat(19)}${(n % 256).toString(16).padStart(2, '0')}`),
  tokenId: BigInt(runTag * 100 + n),
  kind: 'internal',
  owner: getAddress(`0x${'11'.repeat(20)}`),
});

async function newAgent(n: number, template = AGENT_TEMPLATE) {
  const agent = agentOf(n);
  const schema = await agentSchemaName(agent);
  await provision(sqlPool, agent, schema, template);
  await pool.query(
    `insert into ${schema.quoted}.contexts (key) select 'customer:' || n || '/notes' from generate_series(0, ${CONTEXTS - 1}) n`,
  );
  return { agent, schema };
}

/** Appends `count` corpus messages from `from` in batches of 100 (the gateway's append SQL); ms per batch. */
async function append(schema: { quoted: string; name: string }, from: number, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = from; i < from + count; i += BATCH) {
    const texts = corpusMessages(SEED, i, Math.min(BATCH, from + count - i));
    const { text, values } = appendSql(
      schema,
      `customer:${(i / BATCH) % CONTEXTS}/notes`,
      texts.map((message) => ({ role: 'user', message })),
    );
    const t = now();
    await pool.query(text, values);
    times.push(now() - t);
  }
  return times;
}

/** The worst case's section (worst-case.ts), on agents of its own, written under its own heading with --write. */
async function worstCaseSection(): Promise<void> {
  const ref = flags.values.get('before');
  const body = await worstCase({
    pool,
    newAgent: () => newAgent(agentNumber++),
    seed: async (schema, count) => {
      await append(schema, 0, count);
      await indexAllMessages(sqlPool, schema);
    },
    runs: worstRuns,
    current: searchMemory,
    before: ref ? { ref, search: await searchAt(ref) } : undefined,
  });
  const section = `Command: \`npm run bench:search -- ${worstOnly ? '--worst-only' : `--sizes ${sizes.join(',')}`} --worst-runs ${worstRuns}${flags.values.get('before') ? ` --before ${flags.values.get('before')}` : ''}\`, run ${runDate(new Date())}.
Machine: ${describeMachine()}; load average ${(await import('node:os')).loadavg()[0]!.toFixed(2)} at the end. Database: the script's embedded Postgres 17, over a warm \`pg\` pool.

${body}`;
  console.log(section);
  if (booleanFlag(flags, 'write'))
    console.error(`written to ${await writeBenchmarkSection('## Memory search: the worst case (issue 33)', section)}`);
}

async function stop(): Promise<void> {
  await pool.end();
  await stopPostgres?.();
  if (stateDir) {
    await removePostgresData(path.join(stateDir, 'postgres')); // also data placed outside a private TMPDIR (as root)
    await rm(stateDir, { recursive: true, force: true });
  }
}

let agentNumber = 2;
if (worstOnly) {
  await worstCaseSection();
  await stop();
  process.exit(0);
}

// Hydration: without the search columns and index (template v2) and with them, alternating batches.
const without = await newAgent(
  0,
  AGENT_TEMPLATE.filter((step) => step.version < 3),
);
const withIndexes = await newAgent(1);
const hydrateTimes = { without: [] as number[], with: [] as number[] };
for (let i = 0; i < hydrateCount; i += BATCH) {
  const [a, b] = i % (2 * BATCH) === 0 ? [without, withIndexes] : [withIndexes, without];
  const ta = await append(a.schema, i, BATCH);
  const tb = await append(b.schema, i, BATCH);
  (a === without ? hydrateTimes.without : hydrateTimes.with).push(...ta);
  (b === without ? hydrateTimes.without : hydrateTimes.with).push(...tb);
}
const rate = (times: number[]) => (times.length * BATCH * 1000) / times.reduce((s, t) => s + t, 0);
// What the appends left for the indexer (src/storage/search-index.ts), filled in its batches afterwards.
const indexStarted = now();
const indexedAfterHydration = await indexAllMessages(sqlPool, withIndexes.schema);
const indexSeconds = (now() - indexStarted) / 1000;
const hydrateRows = [
  ['Template v2: no search columns, no search index', hydrateTimes.without],
  [`Template v${TEMPLATE_VERSION}: search columns and indexes, filled after the append (indexer)`, hydrateTimes.with],
].map(([label, times]) => {
  const sorted = [...(times as number[])].sort((x, y) => x - y);
  return [
    label as string,
    (sorted.length * BATCH).toLocaleString('en'),
    `${rate(sorted).toFixed(0)}/s`,
    ms(median(sorted)),
    ms(percentile(sorted, 95)),
  ];
});
const hydrateRatio = rate(hydrateTimes.with) / rate(hydrateTimes.without);

// Search at each size.
const sample = corpusMessages(SEED, 0, 2000);
const identifier = sample.map((m) => /INV-2024-\d{4}/.exec(m)?.[0]).find((m) => m !== undefined) ?? 'INV-2024-0000';
const QUERIES: { label: string; query: string; share: string }[] = [
  { label: 'a word in 0.1% of messages', query: 'escalation', share: '0.1%' },
  { label: 'a word in 1%', query: 'warranty', share: '1%' },
  { label: 'a word in 10%', query: 'invoice', share: '10%' },
  { label: 'a phrase in 1%', query: '"late fee"', share: '1%' },
  { label: '`or` of 1% and 0.1%', query: 'warranty or escalation', share: '1.1%' },
  { label: 'a word in 10% minus one in 1%', query: 'invoice -warranty', share: '9.9%' },
  { label: 'an identifier (full text)', query: identifier, share: '1 message' },
  {
    label: 'part of an identifier (as written, trigram index)',
    query: identifier.slice(4),
    share: `1 (${IDENTIFIER_SHARE * 100}% hold one like it)`,
  },
  { label: 'a misspelling (trigram similarity)', query: 'Postgress', share: '0.1%' },
];
const searchRows: string[][] = [];
const p95At: Record<number, number> = {};
const tailP95At: Record<number, number> = {};
const beforeP95At: Record<number, number> = {};

type Search = typeof searchMemory;

/**
 * `--before REF`: `searchMemory` as it was at a git ref (its file copied beside the current one for
 * the imports to resolve, then removed), measured alternately with the current one on the same data.
 */
async function searchAt(ref: string): Promise<Search> {
  const text = execFileSync('git', ['show', `${ref}:src/memory/search.service.ts`], { cwd: REPO_ROOT, encoding: 'utf8' });
  const file = path.join(REPO_ROOT, 'src/memory/search-before.bench.ts');
  await writeFile(file, text);
  try {
    return ((await import(pathToFileURL(file).href)) as { searchMemory: Search }).searchMemory;
  } finally {
    await rm(file, { force: true });
  }
}
const beforeRef = flags.values.get('before');
const searchBefore = beforeRef ? await searchAt(beforeRef) : undefined;

/**
 * Every query `runs` times after 3 warm-up rounds with each search given (taking turns, the first
 * alternating), so load drift hits them alike: p50/p95 and the hits of page 1, per search and query.
 */
async function measure(agent: ReturnType<typeof agentOf>, searches: Search[] = [searchMemory]) {
  const samples = searches.map(() => QUERIES.map(() => [] as number[]));
  const hits = QUERIES.map(() => 0);
  const pages = searches.map(() => QUERIES.map(() => ''));
  for (let round = 0; round < 3 + runs; round++) {
    for (const [k, q] of QUERIES.entries()) {
      for (let i = 0; i < searches.length; i++) {
        const s = (i + round) % searches.length;
        const started = now();
        const page = await searches[s]!(deps, agent, { query: q.query, parsed: parseQuery(q.query)!, limit: 20 });
        const elapsed = now() - started;
        if (round >= 3) samples[s]![k]!.push(elapsed);
        if (s === 0) hits[k] = page.hits.length;
        pages[s]![k] = JSON.stringify(page.hits.map((h) => [h.id, h.score]));
      }
    }
  }
  for (const [k, q] of QUERIES.entries()) {
    if (pages.some((p) => p[k] !== pages[0]![k])) throw new Error(`${q.query}: page 1 differs from the search at ${beforeRef}`);
  }
  return QUERIES.map((_, k) => ({
    sorted: samples[0]![k]!.sort((x, y) => x - y),
    before: samples[1]?.[k]?.sort((x, y) => x - y),
    hits: hits[k]!,
    page: pages[0]![k]!,
  }));
}

for (const size of sizes) {
  const { agent, schema } = await newAgent(agentNumber++);
  const t = now();
  await append(schema, 0, size);
  const seedMs = now() - t;
  // First with the newest `tail` messages not yet indexed (search reads them directly), then all indexed.
  const tail = Math.min(tailCount, size);
  await indexAllMessages(sqlPool, schema);
  await pool.query(
    `UPDATE ${schema.quoted}.messages SET search_en = NULL, search_simple = NULL
     WHERE id > (SELECT max(id) - ${tail} FROM ${schema.quoted}.messages)`,
  );
  await pool.query(`VACUUM (ANALYZE) ${schema.quoted}.messages`);
  const withTail = await measure(agent, searchBefore ? [searchMemory, searchBefore] : undefined);
  await indexAllMessages(sqlPool, schema);
  await pool.query(`VACUUM (ANALYZE) ${schema.quoted}.messages`);
  const indexed = await measure(agent, searchBefore ? [searchMemory, searchBefore] : undefined);
  let worst = 0;
  let worstTail = 0;
  for (const [k, q] of QUERIES.entries()) {
    const { sorted, hits, page, before } = indexed[k]!;
    worst = Math.max(worst, percentile(sorted, 95));
    if (before) beforeP95At[size] = Math.max(beforeP95At[size] ?? 0, percentile(before, 95));
    worstTail = Math.max(worstTail, percentile(withTail[k]!.sorted, 95));
    if (withTail[k]!.page !== page) throw new Error(`${q.query}: page 1 differs with ${tail} messages unindexed`);
    const tailBefore = withTail[k]!.before;
    searchRows.push([
      size.toLocaleString('en'),
      `${q.label}: \`${q.query.replace(/\|/g, '\\|')}\``,
      q.share,
      String(hits),
      ms(median(sorted)),
      ms(percentile(sorted, 95)),
      ...(before ? [ms(median(before)), ms(percentile(before, 95))] : []),
      ms(median(withTail[k]!.sorted)),
      ms(percentile(withTail[k]!.sorted, 95)),
      ...(tailBefore ? [ms(median(tailBefore)), ms(percentile(tailBefore, 95))] : []),
    ]);
  }
  p95At[size] = worst;
  tailP95At[size] = worstTail;
  const { rows } = await pool.query<{ bytes: string }>(`select pg_total_relation_size('${schema.quoted}.messages') as bytes`);
  console.error(
    `seeded ${size} messages in ${(seedMs / 1000).toFixed(1)} s; messages table + indexes ${(Number(rows[0]!.bytes) / 2 ** 20).toFixed(1)} MB`,
  );
}

// The upgrade of an existing agent: a v2 schema of `upgradeCount` messages brought to the current
// template (one transaction: the lock appends wait on), then its messages indexed in batches.
let upgradeLine = '';
if (upgradeCount > 0) {
  const old = await newAgent(
    agentNumber++,
    AGENT_TEMPLATE.filter((step) => step.version < 3),
  );
  await append(old.schema, 0, upgradeCount);
  await pool.query(`VACUUM (ANALYZE) ${old.schema.quoted}.messages`);
  const t0 = now();
  await provision(sqlPool, old.agent, old.schema);
  const lockMs = now() - t0;
  const t1 = now();
  const filled = await indexAllMessages(sqlPool, old.schema);
  const fillSeconds = (now() - t1) / 1000;
  upgradeLine = `Upgrade of an agent of ${upgradeCount.toLocaleString('en')} messages from v2: the template step (its transaction, which appends to the agent wait for) ${ms(lockMs)}; then its ${filled.toLocaleString('en')} messages indexed in batches of 500 outside it, ${fillSeconds.toFixed(1)} s (${(filled / fillSeconds).toFixed(0)} messages/s), appends and searches going on meanwhile.`;
}

if (worstRuns > 0) await worstCaseSection();
await stop();

const loadAtEnd = (await import('node:os')).loadavg()[0]!;
const biggest = Math.max(...sizes);
const section = `Command: \`npm run bench:search -- --sizes ${sizes.join(',')} --runs ${runs} --hydrate ${hydrateCount} --tail ${tailCount} --upgrade ${upgradeCount}${beforeRef ? ` --before ${beforeRef}` : ''}${booleanFlag(flags, 'write') ? ' --write' : ''}\`, run ${runDate(startedAt)}.
Machine: ${describeMachine()}; ${describeLoad(loadAtStart, loadAtEnd)}. Database: an embedded Postgres 17 of the script's own (fsync on), reached from Node over a warm \`pg\` pool: storage-layer figures, without the worker and the gates (add the gated no-op request's few ms from "Agent memory" for a request through the gateway).

Data: one agent per size, messages appended with the gateway's own append SQL (\`appendSql\`, batches of 100, 200 contexts) and indexed by the indexer (\`indexAllMessages\`), then \`VACUUM (ANALYZE)\` (which also empties the GIN pending list, as autovacuum would). Each query is measured twice: with the newest ${tailCount.toLocaleString('en')} messages not yet indexed (search reads them directly, their tsvectors computed on the fly), then with all indexed; page 1 is checked to be the same hits with the same scores both times${beforeRef ? ` and with the search as it was at \`${beforeRef}\` (taking turns with the current one, query by query, in the same rounds)` : ''}. Each message is 15..50 words drawn Zipf-wise from 4,000 made-up words, with the query terms planted at the shares given (${PLANTED.map((p) => `\`${p.word}\` ${p.share * 100}%`).join(', ')}, an invoice number \`INV-2024-<n>\` in ${IDENTIFIER_SHARE * 100}%). A search is \`searchMemory\` whole: the probe of which terms full text matches at all, then the ranked page of 20. ${runs} rounds after 3 warm-up rounds, every query once per round.

### Search latency

${markdownTable(
  [
    'Messages',
    'Query',
    'Matches',
    'Hits (page 1)',
    'p50',
    'p95',
    ...(beforeRef ? [`p50 at ${beforeRef}`, `p95 at ${beforeRef}`] : []),
    `p50, ${tailCount} unindexed`,
    `p95, ${tailCount} unindexed`,
    ...(beforeRef ? [`p50 at ${beforeRef}, ${tailCount} unindexed`, `p95 at ${beforeRef}, ${tailCount} unindexed`] : []),
  ],
  searchRows,
  ['right', 'left', 'left', 'right', ...Array<'right'>(8).fill('right')],
)}

Worst p95 at ${biggest.toLocaleString('en')} messages: ${ms(p95At[biggest] ?? NaN)} all indexed, ${ms(tailP95At[biggest] ?? NaN)} with ${tailCount.toLocaleString('en')} unindexed (goal <= 50 ms: ${(p95At[biggest] ?? Infinity) <= 50 ? 'met' : 'not met'})${beforeRef ? `; at ${beforeRef}, in the same rounds: ${ms(beforeP95At[biggest] ?? NaN)}` : ''}.

### Hydration with and without the search indexes

${markdownTable(['Schema', 'Messages', 'Messages/s', 'Batch p50', 'Batch p95'], hydrateRows, ['left', 'right', 'right', 'right', 'right'])}

With / without: ${ratio(rate(hydrateTimes.with), rate(hydrateTimes.without))} (goal >= 0.9x: ${hydrateRatio >= 0.9 ? 'met' : 'not met'}). Batches of 100 alternate between the two schemas, the same messages to each, so load drift hits both alike; the SQL alone, so the ratio is the worst case: through the gateway each batch also pays the gates. The indexer then filled the ${indexedAfterHydration.toLocaleString('en')} messages the appends left in ${indexSeconds.toFixed(1)} s (${(indexedAfterHydration / indexSeconds).toFixed(0)} messages/s, batches of 500): the cost moved off the append, not gone.

### Upgrade of an existing agent

${upgradeLine || 'Not measured (--upgrade 0).'}`;
console.log(section);
if (booleanFlag(flags, 'write')) console.error(`written to ${await writeBenchmarkSection('## Memory search (issue 23)', section)}`);
