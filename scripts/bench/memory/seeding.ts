/**
 * Seeding: two agents minted to the benchmark's wallet, A with `--big` keys (default 10^6) and B
 * with `--small` (default 10^4). Each is provisioned by one real `POST /context` through the
 * client; the other keys are bulk-inserted with SQL (chunks of 100k, varied keys such as
 * `customer:<n>/<word>`, `project-<hex>/<word>`, `ticket@<n>.<word>`, <word> cycling through 50
 * words so one word matches 2% of keys), then key_count is set and the table vacuumed/analyzed.
 */
import type pg from 'pg';
import { progressBar } from '../../../src/cli/progress';
import { RESERVED_PREFIX } from '../../../src/contexts/rules';
import type { AgentSchema } from '../../../src/storage/agent-storage';
import { BenchError, bytes, count, markdownTable, ms, now, perSecond } from '../lib';
import { timed } from '../lib/client';
import { log, type BenchAgent } from './common';

const CHUNK = 100_000;

/** The words keys end with; one of them is the search term, so a search matches 1/50 = 2% of keys. */
export const WORDS = [
  'notes',
  'profile',
  'history',
  'summary',
  'invoice',
  'preferences',
  'orders',
  'shipping',
  'billing',
  'contacts',
  'tasks',
  'roadmap',
  'budget',
  'meetings',
  'feedback',
  'issues',
  'releases',
  'specs',
  'design',
  'research',
  'backlog',
  'metrics',
  'alerts',
  'incidents',
  'runbook',
  'deploys',
  'contracts',
  'payments',
  'refunds',
  'subscriptions',
  'onboarding',
  'training',
  'support',
  'escalations',
  'reviews',
  'goals',
  'risks',
  'vendors',
  'inventory',
  'forecasts',
  'campaigns',
  'leads',
  'surveys',
  'wishlist',
  'returns',
  'reports',
  'calendar',
  'documents',
  'changelog',
  'milestones',
] as const;
export const SEARCH_WORD = 'invoice';
/** Fixed parts of generated keys: no word may occur in them, or searches would over-match. */
const KEY_PARTS = ['customer:', 'project-', 'ticket@', 'bench:first'];

/** The key the provisioning POST creates on the seeded agents. */
const FIRST_KEY = 'bench:first';

/** Checks that a search for one word matches exactly that word's keys. */
export function checkWords(): void {
  if (new Set(WORDS).size !== WORDS.length) throw new BenchError('WORDS has duplicates');
  for (const w of WORDS) {
    for (const other of [...WORDS, ...KEY_PARTS]) {
      if (other !== w && other.includes(w)) throw new BenchError(`word ${w} occurs in ${other}: searches would over-match`);
    }
    if (/^[0-9a-f]+$/.test(w)) throw new BenchError(`word ${w} could occur in a hex number`);
  }
}

export const visibleFilter = `NOT (key >= $1 AND key < $2)`;
export const visibleValues = [RESERVED_PREFIX, `${RESERVED_PREFIX.slice(0, -1)}0`];

/** Keys n = start..end: three shapes, the word cycling so each (shape, word) pair is equally common. */
function bulkInsertSql(schema: AgentSchema): string {
  const words = `ARRAY[${WORDS.map((w) => `'${w}'`).join(', ')}]::text[]`;
  return `INSERT INTO ${schema.quoted}.contexts (key)
    SELECT CASE n % 3
             WHEN 0 THEN 'customer:' || n || '/' || w
             WHEN 1 THEN 'project-' || lpad(to_hex((n * 2654435761) % 4294967296), 8, '0') || '/' || w
             ELSE 'ticket@' || n || '.' || w
           END
    FROM generate_series($1::bigint, $2::bigint) AS n
    CROSS JOIN LATERAL (SELECT (${words})[1 + ((n / 3) % ${WORDS.length})::int] AS w) AS word`;
}

export interface Seeded {
  label: string;
  agent: BenchAgent;
  keys: number;
  provisionPost: number;
  loadMs: number;
  vacuumMs: number;
  tableBytes: number;
}

export async function seedAgent(db: pg.Client, agent: BenchAgent, total: number, label: string): Promise<Seeded> {
  const first = await timed(() => agent.api.createContext(FIRST_KEY));
  if (first.failure) throw new BenchError(`${label}: provisioning POST /context answered ${first.failure}`);
  const s = agent.schema.quoted;
  const { rows: registered } = await db.query<{ n: string }>('select count(*) as n from gateway.agent_storage where schema_name = $1', [
    agent.schema.name,
  ]);
  if (registered[0]?.n !== '1') throw new BenchError(`${label}: ${agent.schema.name} is not in gateway.agent_storage after POST /context`);

  // The dev server commits asynchronously: until the walwriter flushes a commit, its tuples cannot
  // get hint bits and VACUUM cannot mark their pages all-visible. Seed with synchronous commits.
  await db.query('SET synchronous_commit = on');
  const bulk = total - 1;
  const bar = progressBar(`bench:memory: ${label}: inserting ${count(bulk)} keys`, bulk);
  const t0 = now();
  const sql = bulkInsertSql(agent.schema);
  for (let start = 1; start <= bulk; start += CHUNK) {
    const end = Math.min(bulk, start + CHUNK - 1);
    await db.query(sql, [start, end]);
    bar.update(end);
  }
  await db.query(`UPDATE ${s}.key_count SET visible = (SELECT count(*) FROM ${s}.contexts WHERE ${visibleFilter})`, visibleValues);
  const loadMs = now() - t0;
  bar.finish();
  const t1 = now();
  // VACUUM as well as ANALYZE: the bulk insert would trigger autovacuum in the middle of the
  // measurements anyway; this way the visibility map and the GIN pending list are settled first.
  await db.query(`VACUUM (ANALYZE) ${s}.contexts`);
  await settleVisibility(db, agent.schema, label);
  const vacuumMs = now() - t1;
  await db.query('RESET synchronous_commit');
  const { rows } = await db.query<{ visible: string; bytes: string }>(
    `SELECT (SELECT visible FROM ${s}.key_count) AS visible, pg_total_relation_size('${s}.contexts') AS bytes`,
  );
  const visible = Number(rows[0]?.visible ?? NaN);
  if (visible !== total) throw new BenchError(`${label}: key_count.visible is ${visible}, expected ${total}`);
  log(
    `${label}: ${count(total)} keys in ${agent.schema.name}, loaded in ${(loadMs / 1000).toFixed(1)} s, vacuum+analyze ${(vacuumMs / 1000).toFixed(1)} s, ${bytes(Number(rows[0]?.bytes))}`,
  );
  return { label, agent, keys: total, provisionPost: first.ms, loadMs, vacuumMs, tableBytes: Number(rows[0]?.bytes ?? NaN) };
}

/**
 * VACUUM marks a page all-visible only when its tuples' inserts are committed, flushed (hint bits)
 * and older than every running transaction's snapshot; otherwise index-only scans fetch every
 * heap tuple. Vacuums again until the map covers the table (at most 5 tries), naming any
 * transaction that held the horizon back.
 */
async function settleVisibility(db: pg.Client, schema: AgentSchema, label: string): Promise<void> {
  const regclass = `${schema.quoted}.contexts`;
  for (let attempt = 1; ; attempt++) {
    const { rows } = await db.query<{ pages: number; visible: number }>(
      'SELECT relpages AS pages, relallvisible AS visible FROM pg_class WHERE oid = $1::regclass',
      [regclass],
    );
    const { pages, visible } = rows[0] ?? { pages: 0, visible: 0 };
    if (visible >= pages || attempt > 5) {
      if (visible < pages) log(`${label}: visibility map covers ${visible} of ${pages} pages after ${attempt - 1} extra vacuums`);
      return;
    }
    const holders = await db.query<{ who: string }>(
      `SELECT backend_type || ' ' || coalesce(state, '') || ' ' || left(regexp_replace(query, '\\s+', ' ', 'g'), 60) AS who
         FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND backend_xmin IS NOT NULL`,
    );
    log(
      `${label}: visibility map covers ${visible} of ${pages} pages; horizon held by: ${holders.rows.map((r) => r.who).join('; ') || 'nobody now'}; vacuuming again`,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await db.query(`VACUUM ${regclass}`);
  }
}

export function seedTable(seeded: Seeded[]): string {
  const rows = seeded.map((x) => [
    x.label,
    count(x.keys),
    ms(x.provisionPost),
    `${(x.loadMs / 1000).toFixed(1)} s`,
    perSecond(x.keys - 1, x.loadMs),
    `${(x.vacuumMs / 1000).toFixed(1)} s`,
    bytes(x.tableBytes),
  ]);
  return markdownTable(
    [
      'Agent',
      'Keys',
      'Provisioning POST /context',
      'Bulk insert (SQL, chunks of 100k) + key_count',
      'Insert rate',
      'VACUUM (ANALYZE)',
      'contexts table + indexes',
    ],
    rows,
    ['left', 'right', 'right', 'right', 'right', 'right', 'right'],
  );
}
