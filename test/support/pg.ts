import { createHash } from 'node:crypto';
import pg from 'pg';

/**
 * Direct SQL access for tests that check what the gateway stored (or did not store). One small
 * pool per database URL per test file; call `closePg()` in afterAll.
 */
const pools = new Map<string, pg.Pool>();

function poolFor(databaseUrl: string): pg.Pool {
  let pool = pools.get(databaseUrl);
  if (!pool) {
    pool = new pg.Pool({ connectionString: databaseUrl, max: 3 });
    pool.on('error', () => undefined); // a server stopped on purpose must not crash the test file
    pools.set(databaseUrl, pool);
  }
  return pool;
}

export async function sql<R extends Record<string, unknown> = Record<string, any>>(
  databaseUrl: string,
  text: string,
  values: unknown[] = [],
): Promise<R[]> {
  const { rows } = await poolFor(databaseUrl).query<R>(text, values);
  return rows;
}

/**
 * Runs `statements` in order, as the server's superuser, on `database` of the server behind
 * `adminUrl` (the harness' `postgresAdminUrl`), on a connection of its own: for statements that
 * cannot share a pool, such as CREATE/DROP DATABASE and roles for an "external" database.
 */
export async function adminStatements(adminUrl: string, database: string, statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl.replace(/\/postgres$/, `/${database}`) });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

export async function closePg(): Promise<void> {
  const open = [...pools.values()];
  pools.clear();
  await Promise.all(open.map((pool) => pool.end().catch(() => undefined)));
}

/** What identifies an agent's storage: the chain, the collection address and the token id. */
export interface AgentRef {
  deployment: { chainId: number };
  collection: string;
  tokenId: bigint;
}

/**
 * The agent schema name (docs/architecture.md#storage-per-agent), computed independently of
 * src/: `agent_` + base32 (a-z2-7, no padding) of sha256(`chainId:lower-case collection:decimal
 * token id`), cut to 32 characters.
 */
export function expectedSchemaName(agent: AgentRef): string {
  const digest = createHash('sha256')
    .update(`${agent.deployment.chainId}:${agent.collection.toLowerCase()}:${agent.tokenId.toString()}`)
    .digest();
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  const bits = [...digest].map((b) => b.toString(2).padStart(8, '0')).join('');
  let out = '';
  for (let i = 0; i + 5 <= bits.length && out.length < 32; i += 5) out += alphabet[parseInt(bits.slice(i, i + 5), 2)];
  return `agent_${out}`;
}

/** The agent's rows in gateway.agent_storage (0 or 1). */
export async function storageRows(databaseUrl: string, agent: AgentRef): Promise<{ schema_name: string; template_version: number }[]> {
  return sql(
    databaseUrl,
    'select schema_name, template_version from gateway.agent_storage where chain_id = $1 and collection = $2 and token_id = $3',
    [agent.deployment.chainId, agent.collection.toLowerCase(), agent.tokenId.toString()],
  );
}

/** The agent's schema name from the registry; throws when the agent has no storage. */
export async function agentSchema(databaseUrl: string, agent: AgentRef): Promise<string> {
  const rows = await storageRows(databaseUrl, agent);
  if (rows.length !== 1) throw new Error(`expected one agent_storage row, found ${rows.length}`);
  return rows[0]!.schema_name;
}

/** How many schemas with this exact name exist (0 or 1). */
export async function schemaCount(databaseUrl: string, name: string): Promise<number> {
  const rows = await sql<{ n: string }>(databaseUrl, 'select count(*) as n from pg_namespace where nspname = $1', [name]);
  return Number(rows[0]!.n);
}

/** Quotes a schema name we read from the registry (always `agent_[a-z2-7]{32}`). */
export function quoted(schema: string): string {
  if (!/^agent_[a-z2-7]{32}$/.test(schema)) throw new Error(`unexpected schema name ${schema}`);
  return `"${schema}"`;
}

/** How many vault entries an agent has (chain, lower-case collection, decimal token id). */
export async function vaultEntryCount(
  databaseUrl: string,
  agent: { collection: string; tokenId: bigint },
  chainId = 80002,
): Promise<number> {
  const rows = await sql<{ n: number }>(
    databaseUrl,
    'select count(*)::int as n from gateway.vault_entries where chain_id = $1 and collection = $2 and token_id = $3',
    [chainId, agent.collection.toLowerCase(), agent.tokenId.toString()],
  );
  return rows[0]!.n;
}
