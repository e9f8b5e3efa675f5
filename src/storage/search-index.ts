/**
 * The search indexer: fills a message's `search_en` and `search_simple` after the
 * append, never in it. Computing the two tsvectors and adding the message's trigrams to the GIN
 * index costs several times the append itself (BENCHMARKS.md, "Memory search"), so appends store
 * the text alone and a message enters the search index (template v3: partial on filled rows) here,
 * in batches: after an append or a search (`waitUntil`), and in the Cron clean-up as a catch-up.
 * Until then search reads it from the unindexed tail (src/memory/search.service.ts), so no result
 * is ever missing, only slower to find while the tail is long. No HTTP here.
 */
import type { AgentSchema } from './agent-storage';
import type { SqlClient } from './sql-client';

/**
 * Messages one indexing statement fills at most: about 0.1-0.4 s of database time on the local
 * stack, so a `waitUntil` or one schema of the Cron's walk stays short, while an append of 100
 * (the most one request adds) is caught up by one run.
 */
export const INDEX_BATCH = 500;

/** The SQL expressions a message's search columns hold: the indexer and the tail search share them. */
export const SEARCH_EN = `to_tsvector('english'::regconfig, m.message)`;
export const SEARCH_SIMPLE = `to_tsvector('simple'::regconfig, m.message)`;

/**
 * Fills the search columns of up to `limit` of the oldest unfilled messages of one agent, in one
 * statement; returns how many it filled (fewer than `limit`: the tail is empty, or another indexer
 * of this agent is running). Idempotent and resumable: a filled row is never chosen again, and a
 * statement that fails or is cut off fills nothing. One indexer per agent at a time (a transaction
 * advisory lock tried, not waited for), so a burst of appends starts one, not one each; rows are
 * also locked SKIP LOCKED, so even two never fill the same row.
 */
export async function indexMessages(sql: SqlClient, schema: AgentSchema, limit = INDEX_BATCH): Promise<number> {
  const { rows } = await sql.query<{ filled: string | number }>(
    `WITH turn AS (SELECT pg_try_advisory_xact_lock(hashtextextended($1, 23)) AS mine),
     batch AS (
       SELECT m.id FROM ${schema.quoted}.messages m
       WHERE m.search_en IS NULL AND (SELECT mine FROM turn)
       ORDER BY m.id LIMIT $2
       FOR UPDATE SKIP LOCKED),
     filled AS (
       UPDATE ${schema.quoted}.messages m SET search_en = ${SEARCH_EN}, search_simple = ${SEARCH_SIMPLE}
       FROM batch WHERE m.id = batch.id
       RETURNING 1)
     SELECT count(*) AS filled FROM filled`,
    [`search-index:${schema.name}`, limit],
  );
  return Number(rows[0]?.filled ?? 0);
}

/** Fills every unfilled message of one agent, batch by batch (the upgrade of an existing agent). */
export async function indexAllMessages(sql: SqlClient, schema: AgentSchema, batch = INDEX_BATCH): Promise<number> {
  let total = 0;
  for (;;) {
    const filled = await indexMessages(sql, schema, batch);
    total += filled;
    if (filled < batch) {
      // Fewer than a batch: the tail is empty, or another indexer holds the turn (then wait for it).
      const { rows } = await sql.query<{ left: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM ${schema.quoted}.messages WHERE search_en IS NULL) AS left`,
      );
      if (!rows[0]?.left) return total;
      if (filled === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Agent schemas one probe statement asks about (one round trip). */
const SCHEMAS_PER_PROBE = 50;

/**
 * Which of `names` (agent schemas at a template with the search columns) have messages not yet
 * indexed: an index probe each (the partial btree), one statement per 50 schemas.
 */
export async function schemasBehind(sql: SqlClient, names: readonly string[]): Promise<string[]> {
  const safe = names.filter((name) => /^[a-z0-9_]+$/.test(name)); // registry names, inlined in SQL
  const behind: string[] = [];
  for (let i = 0; i < safe.length; i += SCHEMAS_PER_PROBE) {
    const slice = safe.slice(i, i + SCHEMAS_PER_PROBE);
    const { rows } = await sql.query<{ schema_name: string }>(
      slice
        .map((name) => `SELECT '${name}' AS schema_name WHERE EXISTS (SELECT 1 FROM "${name}".messages WHERE search_en IS NULL)`)
        .join(' UNION ALL '),
    );
    behind.push(...rows.map((r) => r.schema_name));
  }
  return behind;
}

/**
 * How long the indexer started after one response goes on, batch after batch, while it finds full
 * batches (`waitUntil` allows 30 s after the response): enough to catch up 10,000-40,000 messages
 * after a burst of appends, with no request waiting for it.
 */
export const INDEX_AFTER_RESPONSE_MS = 10_000;

/**
 * Indexes the agent's unindexed messages after the response (`waitUntil`), batch by batch for at
 * most INDEX_AFTER_RESPONSE_MS; another request's indexer already running for the agent makes
 * this one stop at once. Never delays the response; a failure is logged, not raised (the next
 * append, a search or the Cron's catch-up retries it).
 */
export function indexAfterResponse(waitUntil: (work: Promise<unknown>) => void, sql: SqlClient, schema: AgentSchema): void {
  const started = Date.now();
  const run = async () => {
    while ((await indexMessages(sql, schema)) === INDEX_BATCH && Date.now() - started < INDEX_AFTER_RESPONSE_MS) {
      // a full batch: there may be more
    }
  };
  waitUntil(
    run().catch((err: unknown) => {
      console.warn(JSON.stringify({ level: 'warn', warning: `search indexing failed: ${err instanceof Error ? err.name : 'unknown'}` }));
    }),
  );
}
