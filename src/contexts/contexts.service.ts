import type { Agent } from '../identity/agent';
import { AppError } from '../errors';
import { ensureAgentSchema, findAgentSchema, type AgentSchema, type AgentStore } from '../storage/agent-storage';
import type { SqlClient } from '../storage/sql-client';
import { databaseError } from '../storage/db';
import { keyProblem, KEY_PROBLEM_TEXT, RESERVED_PREFIX, type KeyProblem } from './rules';

export type ContextsDeps = AgentStore;

/** Collections whose agents may hold contexts. */
const CONTEXT_KINDS = new Set(['internal', 'expert']);

/** Excludes the reserved prefix as a byte range (keys sort with COLLATE "C"): index-friendly. */
const VISIBLE = `NOT (key >= '${RESERVED_PREFIX}' AND key < '${RESERVED_PREFIX.slice(0, -1)}0')`;

export interface KeyPage {
  page: number;
  elementsPerPage: number;
  totalElements: number;
  contextKeys: string[];
  /** The last key of this page when more keys follow in this order, else null: the next `after`. */
  nextAfter: string | null;
}

/** Escapes `%`, `_` and `\` so a search string matches literally inside ILIKE. */
export function likeSubstring(search: string): string {
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export interface ListQuery {
  page: number;
  elementsPerPage: number;
  search?: string;
  sortDirection: 'asc' | 'desc';
  /** Keyset cursor: only keys after this one in `sortDirection` (then `page` is 1 and no OFFSET runs). */
  after?: string;
}

/**
 * The one statement behind a key page: the total, the page and the next cursor together. A page
 * by number skips with OFFSET; a page `after` a key starts with a B-tree descent to it (a range
 * condition on the primary key), so every page costs what page 1 costs. One row more than the page
 * is read to tell whether more follow. Exported so the benchmark can run the very same SQL straight
 * against Postgres as the floor.
 */
export function listKeysSql(schema: AgentSchema, query: ListQuery): { text: string; values: unknown[] } {
  const s = schema.quoted;
  const direction = query.sortDirection === 'desc' ? 'DESC' : 'ASC';
  const values: unknown[] = [query.elementsPerPage];
  const param = (value: unknown): string => `$${values.push(value)}`;
  const filter = query.search ? `${VISIBLE} AND key ILIKE ${param(likeSubstring(query.search))}` : VISIBLE;
  // Unfiltered totals come from the counter kept with every insert: counting 10^6 rows is not O(1).
  const total = query.search ? `(SELECT count(*) FROM ${s}.contexts WHERE ${filter})` : `(SELECT visible FROM ${s}.key_count)`;
  const window =
    query.after === undefined
      ? `WHERE ${filter} ORDER BY key ${direction} LIMIT $1::int + 1 OFFSET ${param((query.page - 1) * query.elementsPerPage)}`
      : `WHERE ${filter} AND key ${direction === 'DESC' ? '<' : '>'} ${param(query.after)} ORDER BY key ${direction} LIMIT $1::int + 1`;
  return {
    // MATERIALIZED: the page is read once; inlined, each use of `k` below would run it again.
    text: `WITH listing AS MATERIALIZED (
             SELECT ${total} AS total,
                    (SELECT array_agg(key ORDER BY key ${direction}) FROM (SELECT key FROM ${s}.contexts ${window}) page) AS k)
           SELECT total, coalesce(k[1:$1::int], '{}') AS keys, CASE WHEN cardinality(k) > $1::int THEN k[$1::int] END AS next_after
             FROM listing`,
    values,
  };
}

/** Lists the agent's visible keys in byte order, by page number or after a key; an agent without storage has none. */
export async function listKeys(deps: ContextsDeps, agent: Agent, query: ListQuery): Promise<KeyPage> {
  const empty: KeyPage = { page: query.page, elementsPerPage: query.elementsPerPage, totalElements: 0, contextKeys: [], nextAfter: null };
  const schema = await findAgentSchema(deps, agent);
  if (!schema) return empty;
  const { text, values } = listKeysSql(schema, query);
  try {
    const { rows } = await deps.sql.query<{ total: string; keys: string[]; next_after: string | null }>(text, values);
    const row = rows[0];
    return { ...empty, totalElements: Number(row?.total ?? 0), contextKeys: row?.keys ?? [], nextAfter: row?.next_after ?? null };
  } catch (err) {
    throw databaseError(err);
  }
}

function requireContextKind(agent: Agent): void {
  if (!CONTEXT_KINDS.has(agent.kind)) {
    throw new AppError('agent_kind_not_supported', `Agents of kind ${agent.kind} cannot hold contexts; only internal or expert agents can`);
  }
}

/** Inserts keys that do not exist yet (one statement); returns the ones created. */
async function insertKeys(sql: SqlClient, schema: AgentSchema, keys: string[]): Promise<Set<string>> {
  const s = schema.quoted;
  try {
    const { rows } = await sql.query<{ created: string[] | null }>(
      `WITH ins AS (
         INSERT INTO ${s}.contexts (key) SELECT k FROM unnest($1::text[]) AS k ON CONFLICT (key) DO NOTHING RETURNING key
       ), counted AS (
         UPDATE ${s}.key_count SET visible = visible + (SELECT count(*) FROM ins WHERE ${VISIBLE}) RETURNING 1
       )
       SELECT (SELECT array_agg(key) FROM ins) AS created, (SELECT count(*) FROM counted) AS counted`,
      [keys],
    );
    return new Set(rows[0]?.created ?? []);
  } catch (err) {
    throw databaseError(err);
  }
}

/** Creates one key. A duplicate is a 400 saying it already exists (clients treat it as provisioned). */
export async function createKey(deps: ContextsDeps, agent: Agent, key: string): Promise<void> {
  requireContextKind(agent);
  const schema = await ensureAgentSchema(deps, agent);
  await deps.ownerCheck;
  const created = await insertKeys(deps.sql, schema, [key]);
  if (!created.has(key)) {
    throw new AppError('context_exists', `agent context with key ${key} already exists`);
  }
}

export type KeyResult =
  | { key: string; status: 'created' }
  | { key: string; status: 'exists' }
  | { key: string; status: 'invalid'; reason: KeyProblem; message: string };

/** Creates up to 100 keys in one statement; a result per key, in request order. */
export async function createKeys(deps: ContextsDeps, agent: Agent, keys: string[]): Promise<KeyResult[]> {
  requireContextKind(agent);
  const valid = [...new Set(keys.filter((key) => keyProblem(key) === null))];
  let created = new Set<string>();
  if (valid.length > 0) {
    const schema = await ensureAgentSchema(deps, agent);
    await deps.ownerCheck;
    created = await insertKeys(deps.sql, schema, valid);
  }
  const reported = new Set<string>();
  return keys.map((key): KeyResult => {
    const problem = keyProblem(key);
    if (problem) return { key, status: 'invalid', reason: problem, message: KEY_PROBLEM_TEXT[problem] };
    if (created.has(key) && !reported.has(key)) {
      reported.add(key);
      return { key, status: 'created' };
    }
    return { key, status: 'exists' };
  });
}
