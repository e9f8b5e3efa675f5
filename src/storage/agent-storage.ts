import type { AgentIdentity } from '../identity/identity';
import { databaseError } from './db';
import { AGENT_TEMPLATE, TEMPLATE_VERSION, type TemplateStep } from './agent-template';
import type { SqlClient, SqlPool } from './sql-client';
import { base32 } from '../encoding/base32';

/**
 * Where agent storage is reached: one-shot statements, and a pool for transactions; and the
 * caller's owner check, which may still be running while reads go ahead (docs/architecture.md,
 * "A request's way through"). Nothing is committed (not even a schema created or upgraded)
 * before it resolves.
 */
export interface AgentStore {
  sql: SqlClient;
  pool: SqlPool;
  ownerCheck: Promise<void>;
}

/** The quoted, schema-qualified name of an agent's storage: derived from identity, never user text. */
export interface AgentSchema {
  /** Bare name, `agent_` + 32 base32 characters. */
  name: string;
  /** Quoted for SQL: `"agent_..."`. */
  quoted: string;
}

/** `agent_` + base32(sha256(`chainId:collection:tokenId`)) cut to 32 characters (160 bits). */
export async function agentSchemaName(agent: AgentIdentity): Promise<AgentSchema> {
  const input = `${agent.chainId}:${agent.collection.toLowerCase()}:${agent.tokenId.toString()}`;
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(input)));
  const out = base32(digest, 32);
  const name = `agent_${out}`;
  return { name, quoted: `"${name}"` };
}

/** Schemas known to be provisioned at the current template version, per isolate. */
const ready = new Set<string>();

/** The agent's schema if it exists (upgraded to the current template), else null. Creates nothing. */
export async function findAgentSchema(store: AgentStore, agent: AgentIdentity): Promise<AgentSchema | null> {
  const schema = await agentSchemaName(agent);
  if (ready.has(schema.name)) return schema;
  try {
    const { rows } = await store.sql.query<{ template_version: number }>(
      'select template_version from "gateway"."agent_storage" where schema_name = $1',
      [schema.name],
    );
    const version = rows[0]?.template_version;
    if (version === undefined) return null;
    if (version < TEMPLATE_VERSION) {
      await store.ownerCheck;
      await provision(store.pool, agent, schema);
    }
    ready.add(schema.name);
    return schema;
  } catch (err) {
    throw databaseError(err);
  }
}

/**
 * The agent's schema, created (or upgraded) on first need under a transaction-scoped advisory
 * lock, so any number of concurrent first writes produce one schema and no error.
 */
export async function ensureAgentSchema(store: AgentStore, agent: AgentIdentity): Promise<AgentSchema> {
  const existing = await findAgentSchema(store, agent);
  if (existing) return existing;
  const schema = await agentSchemaName(agent);
  await store.ownerCheck;
  try {
    await provision(store.pool, agent, schema);
  } catch (err) {
    throw databaseError(err);
  }
  ready.add(schema.name);
  return schema;
}

/**
 * Brings one agent schema to the template's last version (creating it when absent), under a
 * transaction-scoped advisory lock on the schema name. Returns the version it found.
 */
export async function provision(
  pool: SqlPool,
  agent: AgentIdentity,
  schema: AgentSchema,
  template: readonly TemplateStep[] = AGENT_TEMPLATE,
): Promise<number> {
  const target = template[template.length - 1]!.version;
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [schema.name]);
    const { rows } = await client.query<{ template_version: number }>(
      'select template_version from "gateway"."agent_storage" where schema_name = $1',
      [schema.name],
    );
    const from = rows[0]?.template_version ?? 0;
    if (from === 0) await client.query(`CREATE SCHEMA ${schema.quoted}`);
    await applySteps(client, schema, from, template);
    if (from === 0) {
      await client.query(
        `insert into "gateway"."agent_storage" (schema_name, chain_id, collection, token_id, template_version)
         values ($1, $2, $3, $4, $5)`,
        [schema.name, agent.chainId, agent.collection.toLowerCase(), agent.tokenId.toString(), target],
      );
    } else if (from < target) {
      await client.query('update "gateway"."agent_storage" set template_version = $2, upgraded_at = now() where schema_name = $1', [
        schema.name,
        target,
      ]);
    }
    await client.query('COMMIT');
    return from;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

async function applySteps(client: SqlClient, schema: AgentSchema, from: number, template: readonly TemplateStep[]): Promise<void> {
  for (const step of template) {
    if (step.version <= from) continue;
    for (const statement of step.statements(schema.quoted)) await client.query(statement);
  }
}
