/**
 * Memory search (docs/memory.md): ranks an agent's messages across its contexts. Full text first
 * (two tsvectors: English stems, exact words), then, for each query term full text cannot match
 * anywhere in the agent's memory (an identifier, a misspelling), trigram similarity (pg_trgm,
 * `<<%`). One GIN index serves all three (template v3) over the messages the indexer has filled
 * (src/storage/search-index.ts); the few it has not yet reached are read directly, their tsvectors
 * computed on the fly, so a message is found from the moment its append returned. That direct read
 * is bounded (SEARCH_TAIL_MESSAGES, SEARCH_TAIL_BYTES), and so is each statement's time
 * (SEARCH_STATEMENT_TIMEOUT_MS): past either, 503 `search_busy` with Retry-After while the indexer
 * catches up, never an unbounded load on the shared database. No HTTP here.
 */
import type { Agent } from '../identity/agent';
import { ISO_TIME, type Role } from '../contexts/messages.service';
import { RESERVED_PREFIX } from '../contexts/rules';
import { findAgentSchema, type AgentSchema, type AgentStore } from '../storage/agent-storage';
import { AppError } from '../errors';
import { databaseError } from '../storage/db';
import type { SqlClient } from '../storage/sql-client';
import { SEARCH_EN, SEARCH_SIMPLE } from '../storage/search-index';
import { decodeSearchCursor, encodeSearchCursor, searchDigest, type SearchPosition } from './cursor';
import { type ParsedQuery, positiveTerms, type QueryTerm } from './query';
import { RANKINGS, type Ranking, type SqlParams } from './ranking';

export interface SearchFilters {
  /** Only these contexts (internal ones included when named); unknown keys are no hits. */
  contextKeys?: string[];
  /** Only contexts whose key starts with this, taken literally. */
  contextPrefix?: string;
  roles?: Role[];
  /** Exclusive bounds on `createdAt`, ISO 8601. */
  after?: string;
  before?: string;
}

export interface SearchRequest extends SearchFilters {
  /** The query as sent (for the cursor's digest) and as parsed. */
  query: string;
  parsed: ParsedQuery;
  limit: number;
  cursor?: string;
}

export interface SearchHit {
  contextKey: string;
  id: number;
  role: Role;
  message: string;
  createdAt: string;
  /** Higher is better; comparable within one search only. */
  score: number;
}

export interface SearchPage {
  hits: SearchHit[];
  /** Pass as `cursor` with the same query and filters to read on; null at the end. */
  nextCursor: string | null;
}

export interface SearchDeps extends AgentStore {
  /** Called when the agent has messages not yet indexed (the handler starts the indexer after the response). */
  indexLater?: (schema: AgentSchema) => void;
}

/**
 * Matches ranked at most, the newest: a search ranks the newest SEARCH_CANDIDATES messages that
 * match, so a very common word (10% of 100,000 messages) costs what 2,000 matches cost, not
 * 10,000 (BENCHMARKS.md: 93-112 ms p95 ranking all of them). Its pages then reach the best of
 * its newest 2,000 matches, not older ones; a query of fewer matches is ranked whole.
 */
export const SEARCH_CANDIDATES = 2000;

/**
 * Unindexed messages one search reads at most, and their text at most (UTF-8 bytes): one batch of
 * the indexer, and one message of the largest size. Computing a message's two tsvectors costs
 * about 0.16 ms a KiB (42 ms for a 256 KiB message), and a term full text cannot match (a
 * misspelling) compares its trigrams with every tail message's text, so the direct read's cost
 * grows with these bounds times the query's terms (BENCHMARKS.md, "Memory search: the worst
 * case"). A longer tail (a burst of appends the indexer has not reached yet) is 503 `search_busy`
 * while the indexer, started by that search, catches up (500 messages a batch, 0.1-0.4 s each).
 */
export const SEARCH_TAIL_MESSAGES = 500;
export const SEARCH_TAIL_BYTES = 256 * 1024;

/** Postgres cancels a search statement after this (statement_timeout): 503 `search_busy`. */
export const SEARCH_STATEMENT_TIMEOUT_MS = 2000;

/** Retry-After of 503 `search_busy`: time for the indexer to fill a few batches. */
export const SEARCH_BUSY_RETRY_AFTER_SECONDS = 5;

const busy = (why: string, cause?: unknown) =>
  new AppError('search_busy', `Search is busy: ${why}; retry after a few seconds`, {
    cause,
    headers: { 'Retry-After': String(SEARCH_BUSY_RETRY_AFTER_SECONDS) },
  });

/** Postgres' query_canceled: the statement ran into SEARCH_STATEMENT_TIMEOUT_MS. */
function timedOut(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '57014';
}

/** A statement of a search, under its statement timeout where the client can set one. */
function bounded<R>(sql: SqlClient, text: string, values: unknown[]): Promise<{ rows: R[] }> {
  return sql.queryBounded ? sql.queryBounded<R>(SEARCH_STATEMENT_TIMEOUT_MS, text, values) : sql.query<R>(text, values);
}

/** Shortest term trigram similarity can judge: pg_trgm draws nothing useful from fewer characters. */
const FUZZY_MIN_CHARS = 3;

/** A term with a digit or punctuation in it: looked for as written, not by similarity. */
const IDENTIFIER_LIKE = /[^\p{L}\s]/u;

/** `text` for LIKE with `%`, `_` and `\` taken literally (backslash is LIKE's default escape). */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Searches the agent's memory. An agent that never wrote has no hits (and gets no storage). */
export async function searchMemory(deps: SearchDeps, agent: Agent, request: SearchRequest): Promise<SearchPage> {
  const { query, parsed, limit, cursor, ...filters } = request;
  const digest = await searchDigest([query, filters.contextKeys, filters.contextPrefix, filters.roles, filters.after, filters.before]);
  const from = cursor === undefined ? undefined : decodeSearchCursor(cursor, digest);
  const schema = await findAgentSchema(deps, agent);
  if (!schema) return { hits: [], nextCursor: null };
  try {
    const { fuzzy, tail } = await termsFullTextMisses(deps.sql, schema, positiveTerms(parsed));
    if (tail.messages > 0) deps.indexLater?.(schema);
    if (tail.messages > SEARCH_TAIL_MESSAGES || tail.bytes > SEARCH_TAIL_BYTES) {
      throw busy('more messages are waiting to be indexed than one search reads');
    }
    const params: SqlParams = [];
    const { text } = searchSql(schema, parsed, fuzzy, filters, from, limit, params);
    const { rows } = await bounded<HitRow>(deps.sql, text, params);
    const hits = rows.slice(0, limit).map(toHit);
    const last = rows.length > limit ? rows[limit - 1] : undefined;
    return { hits, nextCursor: last ? encodeSearchCursor({ score: last.score, id: Number(last.id) }, digest) : null };
  } catch (err) {
    throw timedOut(err) ? busy('it ran out of its time', err) : databaseError(err);
  }
}

type HitRow = { context_key: string; id: string; role: Role; message: string; created_at: string; score: string };

function toHit(row: HitRow): SearchHit {
  return {
    contextKey: row.context_key,
    id: Number(row.id),
    role: row.role,
    message: row.message,
    createdAt: row.created_at,
    score: Number(row.score),
  };
}

/**
 * The terms full text matches in no message of the agent (index probes): only these go to
 * trigram similarity, so a common word never pays for it and an identifier full text finds is not
 * diluted by near misses. English first, the exact words only when English finds nothing (a GIN
 * probe builds the term's whole bitmap: a common word's costs milliseconds). Also the size of the
 * unindexed tail (counted up to one past SEARCH_TAIL_MESSAGES, its bytes from the stored lengths,
 * no text read): its tsvectors are computed once for every term, and not at all when it is over
 * the bounds (the search is then refused).
 */
async function termsFullTextMisses(
  sql: SqlClient,
  schema: AgentSchema,
  terms: QueryTerm[],
): Promise<{ fuzzy: Set<string>; tail: { messages: number; bytes: number } }> {
  const probe = (config: string, column: string) =>
    `EXISTS (SELECT 1 FROM ${schema.quoted}.messages m WHERE m.search_en IS NOT NULL AND m.${column} @@ websearch_to_tsquery('${config}', u.q))`;
  const { rows } = await bounded<{ q: string; found: boolean; tail_messages: string; tail_bytes: string }>(
    sql,
    `WITH tail AS MATERIALIZED (
       SELECT m.id, octet_length(m.message) AS bytes FROM ${schema.quoted}.messages m
       WHERE m.search_en IS NULL ORDER BY m.id DESC LIMIT ${SEARCH_TAIL_MESSAGES + 1}),
     size AS MATERIALIZED (SELECT count(*) AS messages, coalesce(sum(bytes), 0) AS bytes FROM tail),
     vectors AS MATERIALIZED (
       SELECT ${SEARCH_EN} AS search_en, ${SEARCH_SIMPLE} AS search_simple
       FROM ${schema.quoted}.messages m
       WHERE m.search_en IS NULL AND (SELECT messages <= ${SEARCH_TAIL_MESSAGES} AND bytes <= ${SEARCH_TAIL_BYTES} FROM size)
       ORDER BY m.id DESC LIMIT ${SEARCH_TAIL_MESSAGES})
     SELECT u.q, ${probe('english', 'search_en')} OR ${probe('simple', 'search_simple')}
       OR EXISTS (SELECT 1 FROM vectors m WHERE m.search_en @@ websearch_to_tsquery('english', u.q)
         OR m.search_simple @@ websearch_to_tsquery('simple', u.q)) AS found,
       (SELECT messages FROM size) AS tail_messages, (SELECT bytes FROM size) AS tail_bytes
     FROM unnest($1::text[]) AS u(q)`,
    [terms.map((t) => t.query)],
  );
  const first = rows[0];
  return {
    fuzzy: new Set(rows.filter((r) => !r.found).map((r) => r.q)),
    tail: { messages: Number(first?.tail_messages ?? 0), bytes: Number(first?.tail_bytes ?? 0) },
  };
}

/** The columns a search reads of a message, its search columns included. */
const COLUMNS = 'm.id, m.context_key, m.role, m.message, m.created_at, m.search_en, m.search_simple';

/** The agent's indexed messages (the partial GIN index serves `where`) as `m`. */
function indexedMessages(schema: AgentSchema, where: string): string {
  return `SELECT ${COLUMNS} FROM ${schema.quoted}.messages m WHERE m.search_en IS NOT NULL AND (${where})`;
}

/**
 * The unindexed tail (its partial btree) as `m`, with the very expressions the indexer stores, so
 * a hit scores the same before and after it is indexed. The subquery (its LIMIT keeps it one) has
 * each tail row's tsvectors computed once, not once per mention (a query of several terms mentions
 * them several times). The tail costs about 0.1 ms a short message. At most the newest
 * SEARCH_TAIL_MESSAGES are read: the probe refused a longer tail, so only messages appended
 * between the two statements can make it longer, and then the newest are the ones found (the
 * indexer fills the oldest first).
 */
function unindexedMessages(schema: AgentSchema, where: string): string {
  return `SELECT ${COLUMNS} FROM (SELECT m.id, m.context_key, m.role, m.message, m.created_at,
         ${SEARCH_EN} AS search_en, ${SEARCH_SIMPLE} AS search_simple
       FROM ${schema.quoted}.messages m WHERE m.search_en IS NULL
       ORDER BY m.id DESC LIMIT ${SEARCH_TAIL_MESSAGES}) m WHERE ${where}`;
}

/** A placeholder for `value`, appended to `params`. */
function param(params: SqlParams, value: unknown, cast = ''): string {
  params.push(value);
  return `$${params.length}${cast}`;
}

/** Full text match of one term (or several joined with ` or `) in either configuration. */
function fullText(params: SqlParams, query: string): string {
  const p = param(params, query);
  return `(m.search_en @@ websearch_to_tsquery('english', ${p}) OR m.search_simple @@ websearch_to_tsquery('simple', ${p}))`;
}

function searchSql(
  schema: AgentSchema,
  parsed: ParsedQuery,
  fuzzy: Set<string>,
  filters: SearchFilters,
  from: SearchPosition | undefined,
  limit: number,
  params: SqlParams,
  rankings: readonly Ranking[] = RANKINGS,
): { text: string } {
  const alternatives = parsed.alternatives.map((terms) => {
    const each = terms.map((t) => {
      if (!fuzzy.has(t.query)) return fullText(params, t.query);
      if (t.text.length < FUZZY_MIN_CHARS) return 'false';
      // Part of an identifier (digits, punctuation): the text itself, case-insensitive. All its
      // trigrams must be present, so the index narrows to a few rows; similarity would instead
      // match every identifier of the same shape (INV-2024-0041 for INV-2024-0042) and recheck each.
      if (IDENTIFIER_LIKE.test(t.text)) return `(m.message ILIKE ${param(params, `%${likeLiteral(t.text)}%`)})`;
      return `(${param(params, t.text)} OPERATOR(public.<<%) m.message)`;
    });
    return `(${each.join(' AND ')})`;
  });
  const where = [`(${alternatives.join(' OR ')})`];
  if (parsed.excluded.length > 0) where.push(`NOT ${fullText(params, parsed.excluded.map((t) => t.query).join(' or '))}`);
  if (filters.contextKeys !== undefined) where.push(`m.context_key = ANY(${param(params, filters.contextKeys, '::text[]')})`);
  else where.push(`NOT starts_with(m.context_key, ${param(params, RESERVED_PREFIX)})`);
  if (filters.contextPrefix !== undefined) where.push(`starts_with(m.context_key, ${param(params, filters.contextPrefix)})`);
  if (filters.roles !== undefined) where.push(`m.role = ANY(${param(params, filters.roles, '::text[]')})`);
  // At the precision `createdAt` is shown in (ms), so a bound equal to a hit's createdAt excludes it.
  const shownAt = `date_trunc('milliseconds', m.created_at)`;
  if (filters.after !== undefined) where.push(`${shownAt} > ${param(params, filters.after, '::timestamptz')}`);
  if (filters.before !== undefined) where.push(`${shownAt} < ${param(params, filters.before, '::timestamptz')}`);

  const terms = positiveTerms(parsed);
  const scoring = { matched: terms.filter((t) => !fuzzy.has(t.query)), fuzzy: terms.filter((t) => fuzzy.has(t.query)) };
  const score = rankings.map((ranking) => ranking.score(params, scoring)).filter((s) => s !== null);
  const after = from ? `WHERE (h.score, h.id) < (${param(params, from.score, '::numeric')}, ${param(params, from.id, '::bigint')})` : '';
  const matches = where.join('\n         AND ');
  const newest = (relation: string) => `(${relation}\n       ORDER BY m.id DESC LIMIT ${SEARCH_CANDIDATES})`;
  // The newest matches of each part on its own, so the planner sees `ORDER BY id DESC LIMIT` on the
  // indexed messages alone: for a common word it walks the primary key from the newest row and
  // stops at the 2,000th match (a few thousand rows read) instead of fetching every match the GIN
  // index finds (10,000 rows over 7,000 pages for a word in 10% of 100,000 messages) to keep the
  // newest; for a rarer one it keeps the index. The candidates carry their columns and tsvectors,
  // so they are scored as they are, not read a second time.
  return {
    text: `SELECT h.context_key, h.id, h.role, h.message, ${ISO_TIME} AS created_at, h.score::text AS score FROM (
       SELECT m.context_key, m.id, m.role, m.message, m.created_at,
              round((${score.length > 0 ? score.join(' + ') : '0'})::numeric, 6) AS score
       FROM (SELECT * FROM (${newest(indexedMessages(schema, matches))}
         UNION ALL ${newest(unindexedMessages(schema, matches))}) c
         ORDER BY c.id DESC LIMIT ${SEARCH_CANDIDATES}) m) h
     ${after}
     ORDER BY h.score DESC, h.id DESC
     LIMIT ${param(params, limit + 1, '::int')}`,
  };
}
