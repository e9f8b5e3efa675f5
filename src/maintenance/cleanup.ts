import { pruneConsumedNonces } from '../auth/nonces';
import { IDEMPOTENCY_RETENTION_HOURS } from '../contexts/messages.service';
import type { SqlClient } from '../storage/sql-client';
import type { Database } from '../storage/db';

/**
 * Consumed nonces are kept this long: longer than any nonce can live (NONCE_TTL_SECONDS is at most
 * 3600 s), so a pruned nonce belongs to a message that has expired anyway.
 */
export const CONSUMED_NONCE_RETENTION_SECONDS = 2 * 3_600;

/** Agent schemas whose idempotency records one run prunes (bounds the work of one run). */
export const AGENTS_PER_RUN = 500;

/** Agent schemas pruned by one SQL statement (one round trip). */
const AGENTS_PER_STATEMENT = 50;

const SCHEMA_NAME = /^agent_[a-z2-7]{32}$/;

export interface CleanupDeps {
  db: Database;
  /** Where the walk over agent schemas keeps its place between runs. */
  kv: KVNamespace;
  chainId: number;
}

export interface CleanupReport {
  /** Agent schemas visited by this run. */
  agents: number;
  /** Idempotency records deleted by this run. */
  idempotencyRecords: number;
  /** Expired reply leases (of replies that crashed) deleted by this run. */
  replyLeases: number;
  /** The last schema visited, where the next run goes on; empty when the walk went round. */
  cursor: string;
}

/** Expired reply leases one run deletes at most (bounds the work of one run). */
export const REPLY_LEASES_PER_RUN = 1_000;

/** KV key of the walk's position (per deployment: each cleans its own chain's agents). */
export const cleanupCursorKey = (chainId: number) => `cleanup:idempotency-cursor:${chainId}`;

/**
 * The scheduled clean-up (DESIGN §8): drops consumed nonces older than any nonce can live, reply
 * leases that ran out (a crashed reply's; at most REPLY_LEASES_PER_RUN), and idempotency records
 * older than IDEMPOTENCY_RETENTION_HOURS from the next `agentsPerRun` agent schemas of this chain,
 * in schema-name order from where the previous run stopped. A run costs at most agentsPerRun / 50
 * + 3 statements; the walk wraps round when it reaches the last schema.
 */
export async function runCleanup(deps: CleanupDeps, options: { agentsPerRun?: number } = {}): Promise<CleanupReport> {
  const agentsPerRun = options.agentsPerRun ?? AGENTS_PER_RUN;
  await pruneConsumedNonces(deps.db, CONSUMED_NONCE_RETENTION_SECONDS);
  const replyLeases = await pruneReplyLeases(deps.db.sql);
  const after = (await deps.kv.get(cleanupCursorKey(deps.chainId))) ?? '';
  const { rows } = await deps.db.sql.query<{ schema_name: string }>(
    `select schema_name from "gateway"."agent_storage" where chain_id = $1 and schema_name > $2
     order by schema_name limit $3`,
    [deps.chainId, after, agentsPerRun],
  );
  const schemas = rows.map((r) => r.schema_name).filter((name) => SCHEMA_NAME.test(name));
  let deleted = 0;
  for (let i = 0; i < schemas.length; i += AGENTS_PER_STATEMENT) {
    deleted += await pruneIdempotency(deps.db.sql, schemas.slice(i, i + AGENTS_PER_STATEMENT));
  }
  const cursor = rows.length < agentsPerRun ? '' : (rows[rows.length - 1]?.schema_name ?? '');
  if (cursor) await deps.kv.put(cleanupCursorKey(deps.chainId), cursor);
  else if (after) await deps.kv.delete(cleanupCursorKey(deps.chainId));
  return { agents: schemas.length, idempotencyRecords: deleted, replyLeases, cursor };
}

/**
 * Deletes reply leases that ran out (`gateway.reply_leases` is shared by both deployments; a lease
 * past its `expires_at` holds nothing: the next reply would take it over anyway).
 */
async function pruneReplyLeases(sql: SqlClient): Promise<number> {
  const { rows } = await sql.query<{ deleted: string | number }>(
    `WITH gone AS (
       DELETE FROM gateway.reply_leases WHERE context_ref IN (
         SELECT context_ref FROM gateway.reply_leases WHERE expires_at < now() LIMIT $1
       ) AND expires_at < now() RETURNING 1)
     SELECT count(*) AS deleted FROM gone`,
    [REPLY_LEASES_PER_RUN],
  );
  return Number(rows[0]?.deleted ?? 0);
}

/** Deletes old idempotency records of several agent schemas in one statement; returns how many. */
async function pruneIdempotency(sql: SqlClient, schemas: string[]): Promise<number> {
  if (schemas.length === 0) return 0;
  const { rows } = await sql.query<{ deleted: string | number }>(pruneIdempotencySql(schemas), [IDEMPOTENCY_RETENTION_HOURS]);
  return Number(rows[0]?.deleted ?? 0);
}

/**
 * The clean-up's statement over `schemas` (bare names, checked by the caller), `$1` the retention
 * in hours. Each DELETE is served by the template's `idempotency_created_at` index (v2).
 */
export function pruneIdempotencySql(schemas: readonly string[]): string {
  const deletes = schemas.map(
    (name, i) => `d${i} AS (DELETE FROM "${name}".idempotency WHERE created_at < now() - make_interval(hours => $1) RETURNING 1)`,
  );
  return `WITH ${deletes.join(',\n')}
     SELECT count(*) AS deleted FROM (${schemas.map((_, i) => `SELECT 1 FROM d${i}`).join(' UNION ALL ')}) AS gone`;
}
