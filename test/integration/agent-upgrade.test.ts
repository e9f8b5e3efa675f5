import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { getAddress } from 'viem';
import { migrateGateway } from '../../scripts/lib/migrate';
import { ensureDatabase } from '../../scripts/lib/postgres';
import { IDEMPOTENCY_RETENTION_HOURS } from '../../src/contexts/messages.service';
import { pruneIdempotencySql } from '../../src/maintenance/cleanup';
import { agentSchemaName, findAgentSchema, provision } from '../../src/storage/agent-storage';
import type { SqlPool } from '../../src/storage/sql-client';
import { AGENT_TEMPLATE, TEMPLATE_VERSION } from '../../src/storage/agent-template';
import { upgradeAgentSchemas, type UpgradeProgress } from '../../src/storage/agent-upgrade';

const stack = inject('stack');
// A database of its own: the walk touches every agent schema it finds.
const database = `upgrade_${randomBytes(4).toString('hex')}`;
let pool: pg.Pool;
const sql = () => pool as unknown as SqlPool;

const V2 = [...AGENT_TEMPLATE, { version: TEMPLATE_VERSION + 1, statements: (s: string) => [`CREATE TABLE ${s}.upgrade_marker (x int)`] }];
const agents = Array.from({ length: 7 }, (_, i) => ({
  chainId: 80002,
  collection: getAddress(`0x${'ab'.repeat(19)}${i.toString(16).padStart(2, '0')}`),
  tokenId: BigInt(i + 1),
}));

beforeAll(async () => {
  await ensureDatabase(stack.postgresAdminUrl, database);
  const url = stack.postgresAdminUrl.replace(/\/postgres$/, `/${database}`);
  await migrateGateway(url);
  pool = new pg.Pool({ connectionString: url, max: 4 });
  for (const agent of agents) await provision(sql(), agent, await agentSchemaName(agent));
});

afterAll(async () => {
  await pool?.end();
  const admin = new pg.Client({ connectionString: stack.postgresAdminUrl });
  await admin.connect();
  await admin.query(`drop database if exists "${database}" with (force)`);
  await admin.end();
});

async function versions(): Promise<number[]> {
  const { rows } = await pool.query<{ template_version: number }>(
    'select template_version from gateway.agent_storage order by schema_name',
  );
  return rows.map((r) => r.template_version);
}

describe('per-agent template upgrades', () => {
  it('provisions schemas at the current template version, idempotently', async () => {
    expect(await versions()).toEqual(agents.map(() => TEMPLATE_VERSION));
    expect(await provision(sql(), agents[0]!, await agentSchemaName(agents[0]!))).toBe(TEMPLATE_VERSION);
  });

  it('walks every schema in resumable batches, reporting progress, and a rerun finishes the rest', async () => {
    const seen: UpgradeProgress[] = [];
    // Stop the first run after 3 schemas, as a crash would.
    await expect(
      upgradeAgentSchemas(sql(), {
        template: V2,
        batchSize: 2,
        onProgress: (p) => {
          seen.push(p);
          if (p.done === 3) throw new Error('stopped');
        },
      }),
    ).rejects.toThrow('stopped');
    expect(seen[0]).toMatchObject({ done: 0, total: 7 });
    expect((await versions()).filter((v) => v === TEMPLATE_VERSION + 1)).toHaveLength(3);

    const rest = await upgradeAgentSchemas(sql(), { template: V2, batchSize: 2 });
    expect(rest).toMatchObject({ done: 4, total: 4, failed: 0 });
    expect(await versions()).toEqual(agents.map(() => TEMPLATE_VERSION + 1));
    for (const agent of agents) {
      const { rowCount } = await pool.query('select 1 from information_schema.tables where table_schema = $1 and table_name = $2', [
        (await agentSchemaName(agent)).name,
        'upgrade_marker',
      ]);
      expect(rowCount).toBe(1);
    }
    expect(await upgradeAgentSchemas(sql(), { template: V2 })).toMatchObject({ done: 0, total: 0 });
  });

  it('reports a schema that fails and goes on with the others', async () => {
    const V3 = [...V2, { version: TEMPLATE_VERSION + 2, statements: (s: string) => [`CREATE TABLE ${s}.v3 (x int)`] }];
    const broken = await agentSchemaName(agents[2]!);
    await pool.query(`CREATE TABLE ${broken.quoted}.v3 (y int)`); // the step will collide here
    const result = await upgradeAgentSchemas(sql(), { template: V3 });
    expect(result).toMatchObject({ done: 6, failed: 1 });
    expect(result.failures[0]?.schema).toBe(broken.name);
  });
});

describe('template v2: the index the idempotency clean-up needs', () => {
  const V1 = AGENT_TEMPLATE.slice(0, 1);
  const fresh = (i: number) => ({
    chainId: 80002,
    collection: getAddress(`0x${'cd'.repeat(19)}${i.toString(16).padStart(2, '0')}`),
    tokenId: 1n,
  });

  async function version(schema: string): Promise<number | undefined> {
    const { rows } = await pool.query<{ template_version: number }>(
      'select template_version from gateway.agent_storage where schema_name = $1',
      [schema],
    );
    return rows[0]?.template_version;
  }

  async function hasIndex(schema: string, index = 'idempotency_created_at'): Promise<boolean> {
    const { rowCount } = await pool.query('select 1 from pg_indexes where schemaname = $1 and indexname = $2', [schema, index]);
    return rowCount === 1;
  }

  /** The plan of the clean-up's own statement over this schema. */
  async function cleanupPlan(schema: string): Promise<string> {
    const { rows } = await pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${pruneIdempotencySql([schema])}`, [IDEMPOTENCY_RETENTION_HOURS]);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  }

  it('walks a v1 schema to v2: the clean-up statement then finds old records by index instead of a sequential scan', async () => {
    expect(TEMPLATE_VERSION).toBeGreaterThanOrEqual(2);
    const agent = fresh(1);
    const schema = await agentSchemaName(agent);
    expect(await provision(sql(), agent, schema, V1)).toBe(0);
    expect(await version(schema.name)).toBe(1);
    expect(await hasIndex(schema.name)).toBe(false);
    // A day of records (one a minute, three days' worth of keys) and 10 past the retention, as between two clean-up runs.
    await pool.query(
      `insert into ${schema.quoted}.idempotency (key, request_hash, response, created_at)
       select 'k' || n, 'h', '{}'::jsonb, now() - make_interval(mins => n % 1440) from generate_series(1, 5000) as n
       union all select 'old' || n, 'h', '{}'::jsonb, now() - interval '72 hours' from generate_series(1, 10) as n`,
    );
    await pool.query(`analyze ${schema.quoted}.idempotency`);
    expect(await cleanupPlan(schema.name)).toMatch(/Seq Scan on idempotency/);
    // Messages written before search existed: more than two of the indexer's batches of 500.
    await pool.query(`insert into ${schema.quoted}.contexts (key) values ('old')`);
    await pool.query(
      `insert into ${schema.quoted}.messages (context_key, role, message)
       select 'old', 'user', 'Note ' || n || ': the warranty ends in March.' from generate_series(1, 1203) as n`,
    );

    const result = await upgradeAgentSchemas(sql());
    expect(result).toMatchObject({ done: 1, failed: 0 });
    expect(await version(schema.name)).toBe(TEMPLATE_VERSION);
    expect(await hasIndex(schema.name)).toBe(true);
    // v3: the search columns and their index, added empty, then filled batch by batch.
    expect(await hasIndex(schema.name, 'messages_search')).toBe(true);
    const { rows: search } = await pool.query<{ unindexed: string; wrong: string }>(
      `select count(*) filter (where search_en is null) as unindexed,
              count(*) filter (where search_en is distinct from to_tsvector('english', message)
                                  or search_simple is distinct from to_tsvector('simple', message)) as wrong
       from ${schema.quoted}.messages`,
    );
    expect(search[0]).toEqual({ unindexed: '0', wrong: '0' });
    const plan = await cleanupPlan(schema.name);
    expect(plan).toMatch(/Index Scan using idempotency_created_at|Bitmap Index Scan on idempotency_created_at/);
    expect(plan).not.toMatch(/Seq Scan/);
    const { rows } = await pool.query<{ deleted: string }>(pruneIdempotencySql([schema.name]), [IDEMPOTENCY_RETENTION_HOURS]);
    expect(Number(rows[0]?.deleted)).toBe(10);
    // Upgraded once: a second walk finds nothing to do, and provisioning again reports v2.
    expect(await upgradeAgentSchemas(sql())).toMatchObject({ done: 0, total: 0 });
    expect(await provision(sql(), agent, schema)).toBe(TEMPLATE_VERSION);
  });

  it('upgrades a v1 schema lazily on the next request that looks it up', async () => {
    const agent = fresh(2);
    const schema = await agentSchemaName(agent);
    await provision(sql(), agent, schema, V1);
    expect(await findAgentSchema({ sql: sql(), pool: sql(), ownerCheck: Promise.resolve() }, agent)).toEqual(schema);
    expect(await version(schema.name)).toBe(TEMPLATE_VERSION);
    expect(await hasIndex(schema.name)).toBe(true);
  });
});

describe('an upgrade stopped while it indexed a schema', () => {
  it('the rerun finishes that schema’s indexing, though the schema is already at the last version', async () => {
    const agent = { chainId: 80002, collection: getAddress(`0x${'ef'.repeat(20)}`), tokenId: 1n };
    const schema = await agentSchemaName(agent);
    await provision(
      sql(),
      agent,
      schema,
      AGENT_TEMPLATE.filter((step) => step.version < 3),
    );
    await pool.query(`insert into ${schema.quoted}.contexts (key) values ('old')`);
    await pool.query(
      `insert into ${schema.quoted}.messages (context_key, role, message)
       select 'old', 'user', 'Note ' || n || ': the invoice is due.' from generate_series(1, 700) as n`,
    );
    // What a run killed after this schema's template step and before its indexing leaves behind.
    await provision(sql(), agent, schema);
    const unindexed = async () =>
      (await pool.query<{ n: string }>(`select count(*) as n from ${schema.quoted}.messages where search_en is null`)).rows[0]?.n;
    expect(await unindexed()).toBe('700');
    const counts: number[] = [];
    const result = await upgradeAgentSchemas(sql(), { onUnfinished: (n) => counts.push(n) });
    expect(result).toMatchObject({ done: 0, total: 0, finished: 1, failures: [] });
    expect(counts).toEqual([1]);
    expect(await unindexed()).toBe('0');
    expect(await upgradeAgentSchemas(sql())).toMatchObject({ finished: 0 });
  });
});
