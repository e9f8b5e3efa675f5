import type { Pool, PoolClient } from '@neondatabase/serverless';
import type { AgentIdentity } from '../agents/identity';
import { databaseError } from './db';
import { AGENT_TEMPLATE, TEMPLATE_VERSION } from './agent-template';

/** The quoted, schema-qualified name of an agent's storage: derived from identity, never user text. */
export interface AgentSchema {
  /** Bare name, `agent_` + 32 base32 characters. */
  name: string;
  /** Quoted for SQL: `"agent_..."`. */
  quoted: string;
}

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** `agent_` + base32(sha256(`chainId:collection:tokenId`)) cut to 32 characters (160 bits). */
export async function agentSchemaName(agent: AgentIdentity): Promise<AgentSchema> {
  const input = `${agent.chainId}:${agent.collection.toLowerCase()}:${agent.tokenId.toString()}`;
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(input)));
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of digest) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < 32) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  const name = `agent_${out}`;
  return { name, quoted: `"${name}"` };
}

/** Schemas known to be provisioned at the current template version, per isolate. */
const ready = new Set<string>();

/** The agent's schema if it exists (upgraded to the current template), else null. Creates nothing. */
export async function findAgentSchema(pool: Pool, agent: AgentIdentity): Promise<AgentSchema | null> {
  const schema = await agentSchemaName(agent);
  if (ready.has(schema.name)) return schema;
  try {
    const { rows } = await pool.query<{ template_version: number }>(
      'select template_version from "gateway"."agent_storage" where schema_name = $1',
      [schema.name],
    );
    const version = rows[0]?.template_version;
    if (version === undefined) return null;
    if (version < TEMPLATE_VERSION) await provision(pool, agent, schema);
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
export async function ensureAgentSchema(pool: Pool, agent: AgentIdentity): Promise<AgentSchema> {
  const existing = await findAgentSchema(pool, agent);
  if (existing) return existing;
  const schema = await agentSchemaName(agent);
  try {
    await provision(pool, agent, schema);
  } catch (err) {
    throw databaseError(err);
  }
  ready.add(schema.name);
  return schema;
}

/** Brings one agent schema to the current template version (creating it when absent). */
export async function provision(pool: Pool, agent: AgentIdentity, schema: AgentSchema): Promise<number> {
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
    await applySteps(client, schema, from);
    if (from === 0) {
      await client.query(
        `insert into "gateway"."agent_storage" (schema_name, chain_id, collection, token_id, template_version)
         values ($1, $2, $3, $4, $5)`,
        [schema.name, agent.chainId, agent.collection.toLowerCase(), agent.tokenId.toString(), TEMPLATE_VERSION],
      );
    } else if (from < TEMPLATE_VERSION) {
      await client.query(
        'update "gateway"."agent_storage" set template_version = $2, upgraded_at = now() where schema_name = $1',
        [schema.name, TEMPLATE_VERSION],
      );
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

async function applySteps(client: PoolClient, schema: AgentSchema, from: number): Promise<void> {
  for (const step of AGENT_TEMPLATE) {
    if (step.version <= from) continue;
    for (const statement of step.statements(schema.quoted)) await client.query(statement);
  }
}
