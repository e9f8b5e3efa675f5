import { pruneAuditLog } from '../audit/audit.service';
import { pruneConsumedNonces } from '../auth/nonces';
import type { PublicClient } from 'viem';
import type { ChainId } from '../chains';
import { IDEMPOTENCY_RETENTION_HOURS } from '../contexts/messages.service';
import { type ReconcileReport, reconcileClaims } from '../payments/reconcile';
import { INDEX_BATCH, indexMessages, schemasBehind } from '../storage/search-index';
import type { SqlClient } from '../storage/sql-client';
import type { Database } from '../storage/db';
import { pruneUsageLedger } from '../usage/ledger';

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
  chainId: ChainId;
  /** The deployment's chain, read by the reconciliation of paid replies. */
  chain: PublicClient;
}

export interface CleanupReport {
  /** Agent schemas visited by this run. */
  agents: number;
  /** Idempotency records deleted by this run. */
  idempotencyRecords: number;
  /** Expired reply leases (of replies that crashed) deleted by this run. */
  replyLeases: number;
  /** Messages this run added to the search index (a catch-up: appends index their own). */
  indexedMessages: number;
  /** Audit entries older than 90 days deleted by this run (at most AUDIT_ENTRIES_PER_RUN). */
  auditEntries: number;
  /** The last schema visited, where the next run goes on; empty when the walk went round. */
  cursor: string;
  /**
   * Paid replies whose claim was still running after the reconciliation's bound: settled (the
   * transfer was on chain), unsettled (it never was) and left running for the next run (the RPC failed).
   */
  paidClaims: ReconcileReport;
}

/** Expired reply leases one run deletes at most (bounds the work of one run). */
export const REPLY_LEASES_PER_RUN = 1_000;

/**
 * Messages one run adds to the search index at most, over the schemas it visits (about 5-20 s of
 * database time locally): the catch-up for what the indexer after an append did not reach (a
 * reply's messages, a `waitUntil` cut short), not the main path.
 */
export const INDEX_CATCH_UP_PER_RUN = 20 * INDEX_BATCH;

/** The template version whose messages carry search columns (src/storage/agent-template.ts). */
const SEARCH_TEMPLATE_VERSION = 3;

/** KV key of the walk's position (per deployment: each cleans its own chain's agents). */
export const cleanupCursorKey = (chainId: number) => `cleanup:idempotency-cursor:${chainId}`;

/**
 * The scheduled clean-up (on a Cron Trigger, never on requests): drops consumed nonces older than
 * any nonce can live, reply leases that ran out (a crashed reply's; at most REPLY_LEASES_PER_RUN),
 * audit entries older than 90 days (at most AUDIT_ENTRIES_PER_RUN), and idempotency records older
 * than IDEMPOTENCY_RETENTION_HOURS from the next `agentsPerRun` agent schemas of this chain, in
 * schema-name order from where the previous run stopped, and indexes for search up to
 * INDEX_CATCH_UP_PER_RUN of those schemas' messages not yet indexed; the walk wraps round when it
 * reaches the last schema. Last, it reconciles this chain's paid replies whose settlement never
 * reported back (src/payments/reconcile.ts: at most CLAIMS_PER_RUN; an RPC failure leaves them for
 * the next run and fails nothing). A run costs at most agentsPerRun / 25 + 24 statements, one more
 * per schema with messages not yet indexed, and 1 + 2 x CLAIMS_PER_RUN for the reconciliation.
 */
export async function runCleanup(deps: CleanupDeps, options: { agentsPerRun?: number } = {}): Promise<CleanupReport> {
  const agentsPerRun = options.agentsPerRun ?? AGENTS_PER_RUN;
  await pruneConsumedNonces(deps.db, CONSUMED_NONCE_RETENTION_SECONDS);
  const replyLeases = await pruneReplyLeases(deps.db.sql);
  const auditEntries = await pruneAuditLog(deps.db.sql);
  // Charges of past days against the daily token limits (src/usage/ledger.ts).
  await pruneUsageLedger(deps.db.sql);
  const after = (await deps.kv.get(cleanupCursorKey(deps.chainId))) ?? '';
  const { rows } = await deps.db.sql.query<{ schema_name: string; template_version: number }>(
    `select schema_name, template_version from "gateway"."agent_storage" where chain_id = $1 and schema_name > $2
     order by schema_name limit $3`,
    [deps.chainId, after, agentsPerRun],
  );
  const valid = rows.filter((r) => SCHEMA_NAME.test(r.schema_name));
  const schemas = valid.map((r) => r.schema_name);
  let deleted = 0;
  for (let i = 0; i < schemas.length; i += AGENTS_PER_STATEMENT) {
    deleted += await pruneIdempotency(deps.db.sql, schemas.slice(i, i + AGENTS_PER_STATEMENT));
  }
  const searchable = valid.filter((r) => r.template_version >= SEARCH_TEMPLATE_VERSION).map((r) => r.schema_name);
  const indexedMessages = await catchUpSearchIndex(deps.db.sql, searchable);
  const cursor = rows.length < agentsPerRun ? '' : (rows[rows.length - 1]?.schema_name ?? '');
  if (cursor) await deps.kv.put(cleanupCursorKey(deps.chainId), cursor);
  else if (after) await deps.kv.delete(cleanupCursorKey(deps.chainId));
  const paidClaims = await reconcileClaims(deps.db, deps.chain, deps.chainId);
  return { agents: schemas.length, idempotencyRecords: deleted, replyLeases, indexedMessages, auditEntries, cursor, paidClaims };
}

/**
 * Indexes for search what the indexer after an append left (src/storage/search-index.ts): finds which
 * of `schemas` have messages not yet indexed (`schemasBehind`), then
 * indexes them batch by batch until none is left or the run's budget is spent.
 */
async function catchUpSearchIndex(sql: SqlClient, schemas: string[]): Promise<number> {
  const behind = await schemasBehind(sql, schemas);
  let indexed = 0;
  for (const name of behind) {
    const schema = { name, quoted: `"${name}"` };
    for (;;) {
      const batch = Math.min(INDEX_BATCH, INDEX_CATCH_UP_PER_RUN - indexed);
      if (batch <= 0) return indexed;
      const filled = await indexMessages(sql, schema, batch);
      indexed += filled;
      if (filled < batch) break; // done, or an indexer after an append holds this agent's turn
    }
  }
  return indexed;
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
