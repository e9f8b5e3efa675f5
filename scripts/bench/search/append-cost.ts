/**
 * Where memory search's cost at append goes (issue 23): the gateway's append statement (batches of
 * 100 into one of 200 contexts) into tables that differ only in what search adds, the same
 * messages to each, round-robin in alternating order so load drift hits all alike; then the
 * per-message cost of the functions involved. Plain SQL against a Postgres of its own, no worker.
 *
 *   node --import tsx scripts/bench/search/append-cost.ts [--database-url URL] [--messages 10000]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { ensureDatabase, startPostgres } from '../../lib/postgres';
import { removePostgresData } from '../../lib/postgres-placement';
import { freePort } from '../../lib/processes';
import { describeMachine, markdownTable, now, numberFlag, parseFlags, rejectUnknownFlags, runDate } from '../lib';
import { corpusMessages } from './corpus';

const flags = parseFlags();
rejectUnknownFlags(flags, ['database-url', 'messages']);
const total = numberFlag(flags, 'messages', 10_000);
const startedAt = new Date();

const BOTH = `ADD COLUMN se tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig, message)) STORED,
  ADD COLUMN ss tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, message)) STORED`;
/** What each table adds to template v2's messages (T is the table). */
const VARIANTS: { label: string; statements: string[] }[] = [
  { label: 'nothing (template v2)', statements: [] },
  {
    label: 'generated English tsvector',
    statements: [`ALTER TABLE T ADD COLUMN se tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig, message)) STORED`],
  },
  {
    label: 'generated simple tsvector',
    statements: [`ALTER TABLE T ADD COLUMN ss tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, message)) STORED`],
  },
  { label: 'both generated tsvectors', statements: [`ALTER TABLE T ${BOTH}`] },
  {
    label: 'GIN over to_tsvector(simple) (expression, no column)',
    statements: [`CREATE INDEX ON T USING gin (to_tsvector('simple'::regconfig, message))`],
  },
  { label: 'trigram GIN (fastupdate on, the default)', statements: [`CREATE INDEX ON T USING gin (message gin_trgm_ops)`] },
  { label: 'trigram GIN, fastupdate off', statements: [`CREATE INDEX ON T USING gin (message gin_trgm_ops) WITH (fastupdate = off)`] },
  { label: 'both generated + GIN over both tsvectors', statements: [`ALTER TABLE T ${BOTH}`, `CREATE INDEX ON T USING gin (se, ss)`] },
  {
    label: 'both generated + one GIN (tsvectors, trigrams): v3 before',
    statements: [`ALTER TABLE T ${BOTH}`, `CREATE INDEX ON T USING gin (se, ss, message gin_trgm_ops)`],
  },
  {
    label: 'the same, gin_pending_list_limit 64 MB',
    statements: [
      `ALTER TABLE T ${BOTH}`,
      `CREATE INDEX ON T USING gin (se, ss, message gin_trgm_ops) WITH (gin_pending_list_limit = 65536)`,
    ],
  },
  {
    label: 'plain columns, partial GIN + partial btree: v3 now (filled later)',
    statements: [
      `ALTER TABLE T ADD COLUMN se tsvector, ADD COLUMN ss tsvector`,
      `CREATE INDEX ON T USING gin (se, ss, message gin_trgm_ops) WHERE se IS NOT NULL`,
      `CREATE INDEX ON T (id) WHERE se IS NULL`,
    ],
  },
];

let stop: (() => Promise<void>) | undefined;
let stateDir: string | undefined;
let databaseUrl = flags.values.get('database-url');
if (!databaseUrl) {
  stateDir = await mkdtemp(path.join(tmpdir(), 'bench-append-cost-'));
  const server = await startPostgres({ dataDir: path.join(stateDir, 'postgres'), port: await freePort() });
  stop = () => server.stop();
  await ensureDatabase(server.adminUrl, 'bench_append_cost');
  databaseUrl = server.databaseUrl('bench_append_cost');
}
const db = new pg.Client({ connectionString: databaseUrl });
await db.connect();
try {
  await db.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
  await db.query('CREATE SCHEMA IF NOT EXISTS append_cost');
  await db.query('DROP SCHEMA append_cost CASCADE');
  await db.query('CREATE SCHEMA append_cost');
  await db.query(
    `CREATE TABLE append_cost.ctx (key text COLLATE "C" PRIMARY KEY, updated_at timestamptz DEFAULT now());
     INSERT INTO append_cost.ctx SELECT 'c' || n FROM generate_series(0, 199) n`,
  );
  for (const [i, v] of VARIANTS.entries()) {
    const t = `append_cost.m${i}`;
    await db.query(`CREATE TABLE ${t} (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      context_key text COLLATE "C" NOT NULL REFERENCES append_cost.ctx (key),
      role text NOT NULL CHECK (role IN ('user', 'system', 'assistant')),
      message text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now())`);
    await db.query(`CREATE INDEX ON ${t} (context_key, id)`);
    for (const s of v.statements) await db.query(s.replace(/\bT\b/g, t));
  }
  const spent = VARIANTS.map(() => 0);
  for (let from = 0; from < total; from += 100) {
    const texts = corpusMessages(23, from, 100);
    const order = [...VARIANTS.keys()];
    if ((from / 100) % 2 === 1) order.reverse();
    for (const i of order) {
      const t = now();
      await db.query(
        `WITH c AS (UPDATE append_cost.ctx SET updated_at = now() WHERE key = $1 RETURNING key)
         INSERT INTO append_cost.m${i} (context_key, role, message)
         SELECT c.key, 'user', m.message FROM c CROSS JOIN unnest($2::text[]) WITH ORDINALITY AS m(message, ord) ORDER BY m.ord
         RETURNING id`,
        [`c${(from / 100) % 200}`, texts],
      );
      spent[i]! += now() - t;
    }
  }
  const rows = VARIANTS.map((v, i) => [v.label, `${((total * 1000) / spent[i]!).toFixed(0)}/s`, `×${(spent[0]! / spent[i]!).toFixed(2)}`]);
  // The functions alone, over the same messages (one statement each, µs per message).
  const fns: string[][] = [];
  for (const [label, expr] of [
    ["to_tsvector('simple', message)", `length(to_tsvector('simple'::regconfig, message))`],
    ["to_tsvector('english', message)", `length(to_tsvector('english'::regconfig, message))`],
    ['show_trgm(message) (trigrams)', 'cardinality(show_trgm(message))'],
  ] as const) {
    const t = now();
    await db.query(`SELECT sum(${expr}) FROM append_cost.m0`);
    fns.push([label, `${(((now() - t) * 1000) / total).toFixed(0)} µs`]);
  }
  const { rows: size } = await db.query<{ avg: string; max: string }>(
    'SELECT round(avg(length(message))) AS avg, max(length(message)) AS max FROM append_cost.m0',
  );
  console.log(`Command: \`node --import tsx scripts/bench/search/append-cost.ts --messages ${total}\`, run ${runDate(startedAt)}; ${describeMachine()}.
${total.toLocaleString('en')} messages of the search corpus (${size[0]!.avg} characters on average, at most ${size[0]!.max}), batches of 100.

${markdownTable(['Messages table with', 'Appended/s', 'vs nothing'], rows, ['left', 'right', 'right'])}

${markdownTable(['Function (one statement over all messages)', 'Per message'], fns, ['left', 'right'])}`);
  await db.query('DROP SCHEMA append_cost CASCADE');
} finally {
  await db.end();
  await stop?.();
  if (stateDir) {
    await removePostgresData(path.join(stateDir, 'postgres')); // also data placed outside a private TMPDIR (as root)
    await rm(stateDir, { recursive: true, force: true });
  }
}
