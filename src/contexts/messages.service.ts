import type { Agent } from '../agents/agent';
import { AppError } from '../errors';
import { findAgentSchema, type AgentSchema, type AgentStore } from '../storage/agent-storage';
import type { SqlClient } from '../storage/sql-client';
import { databaseError } from '../storage/db';
import type { ROLES } from './rules';

export type Role = (typeof ROLES)[number];

export interface NewMessage {
  role: Role;
  message: string;
}

export interface StoredMessage {
  id: number;
  role: Role;
  message: string;
  createdAt: string;
}

export type MessagesDeps = AgentStore;

/** A retry of an append with this key and the same request returns the first result (kept >= 24 h). */
export interface Idempotency {
  key: string;
  /** Hash of what the request asks for: method, path and body. */
  requestHash: string;
}

export interface AppendResult {
  messages: StoredMessage[];
  /** True when this is the remembered result of an earlier request with the same Idempotency-Key. */
  replayed: boolean;
}

/**
 * A precondition taken in the append's own statement (a reply's lease, DESIGN §11): a CTE body
 * that returns a row when it is met. The messages are appended only then; the statement says
 * whether it was met (`guarded`). One round trip for both.
 */
export interface AppendGuard {
  /** The CTE's body, whose parameters are numbered from `$first`. */
  sql(first: number): string;
  values: unknown[];
}

/**
 * Idempotency records older than this are dropped by the scheduled clean-up (src/maintenance);
 * the promise to clients is 24 h.
 */
export const IDEMPOTENCY_RETENTION_HOURS = 48;

const contextNotFound = () => new AppError('context_not_found', 'Context not found');

type Row = { id: string; role: Role; message: string; created_at: Date | string };

function toMessage(row: Row): StoredMessage {
  return {
    id: Number(row.id),
    role: row.role,
    message: row.message,
    createdAt: new Date(row.created_at).toISOString(),
  };
}

/** `createdAt` as `toISOString()` writes it, in SQL, so a remembered answer reads like a fresh one. */
export const ISO_TIME = `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The stored messages, from the ids and times Postgres drew (in id order) and the request's own
 * roles and texts: the texts are not sent back over the wire. Ids follow request order because
 * the insert draws them in `ord` order.
 */
function stored(messages: NewMessage[], ids: readonly (string | number)[], times: readonly string[]): StoredMessage[] {
  return ids.map((id, i) => ({ id: Number(id), role: messages[i]!.role, message: messages[i]!.message, createdAt: times[i]! }));
}

/**
 * Appends messages to an existing context, atomically and in order, in one statement: the context
 * row is locked (its updated_at bumped) before ids are drawn, so concurrent appends to one context
 * get ids in commit order. Exported so the benchmark can run the same SQL as the floor.
 */
export function appendSql(schema: AgentSchema, key: string, messages: NewMessage[]): { text: string; values: unknown[] } {
  const s = schema.quoted;
  return {
    text: `WITH c AS (UPDATE ${s}.contexts SET updated_at = now() WHERE key = $1 RETURNING key)
     INSERT INTO ${s}.messages (context_key, role, message)
     SELECT c.key, m.role, m.message
     FROM c CROSS JOIN unnest($2::text[], $3::text[]) WITH ORDINALITY AS m(role, message, ord)
     ORDER BY m.ord
     RETURNING id, ${ISO_TIME} AS created_at`,
    values: [key, messages.map((m) => m.role), messages.map((m) => m.message)],
  };
}

/** `appendSql` behind a guard: one row, `guarded` and the ids and times drawn (null when none). */
function guardedAppendSql(
  schema: AgentSchema,
  key: string,
  messages: NewMessage[],
  guard: AppendGuard,
): { text: string; values: unknown[] } {
  const s = schema.quoted;
  return {
    text: `WITH guard AS (${guard.sql(4)}),
     c AS (UPDATE ${s}.contexts SET updated_at = now() WHERE key = $1 AND EXISTS (SELECT 1 FROM guard) RETURNING key),
     ins AS (
       INSERT INTO ${s}.messages (context_key, role, message)
       SELECT c.key, m.role, m.message
       FROM c CROSS JOIN unnest($2::text[], $3::text[]) WITH ORDINALITY AS m(role, message, ord)
       ORDER BY m.ord
       RETURNING id, created_at)
     SELECT (SELECT count(*) FROM guard) > 0 AS guarded,
            (SELECT array_agg(id ORDER BY id) FROM ins) AS ids, (SELECT array_agg(${ISO_TIME} ORDER BY id) FROM ins) AS times`,
    values: [key, messages.map((m) => m.role), messages.map((m) => m.message), ...guard.values],
  };
}

async function insertMessages(db: SqlClient, schema: AgentSchema, key: string, messages: NewMessage[]): Promise<StoredMessage[]> {
  const { text, values } = appendSql(schema, key, messages);
  const { rows } = await db.query<{ id: string; created_at: string }>(text, values);
  rows.sort((a, b) => Number(a.id) - Number(b.id));
  return stored(
    messages,
    rows.map((r) => r.id),
    rows.map((r) => r.created_at),
  );
}

/** Appends 1..100 messages to the context `key` (404 `Context not found` when it does not exist). */
export async function appendMessages(
  deps: MessagesDeps,
  agent: Agent,
  key: string,
  messages: NewMessage[],
  idempotency?: Idempotency,
): Promise<AppendResult> {
  // Appending never provisions storage: without a schema there is no context to append to.
  const schema = await findAgentSchema(deps, agent);
  if (!schema) throw contextNotFound();
  await deps.ownerCheck;
  if (!idempotency) {
    let stored: StoredMessage[];
    try {
      stored = await insertMessages(deps.sql, schema, key, messages);
    } catch (err) {
      throw databaseError(err);
    }
    if (stored.length === 0) throw contextNotFound();
    return { messages: stored, replayed: false };
  }
  const { messages: appended, replayed } = ok(await appendOnce(deps.sql, schema, key, messages, idempotency));
  return { messages: appended, replayed };
}

/** What a guarded append found: the guard not met (nothing appended), or the append's result. */
export type GuardedAppendResult = { guarded: false } | ({ guarded: true } & AppendResult);

function ok(result: GuardedAppendResult): AppendResult {
  if (!result.guarded) throw new Error('unguarded append reported its guard unmet');
  return result;
}

/**
 * `appendMessages` in the same statement as `guard`, appending only when it is met: a reply's
 * lease and its message in one round trip. 404 `context_not_found` when the context does not
 * exist, whether or not the guard was met (the caller undoes what the guard took).
 */
export async function appendMessagesGuarded(
  deps: MessagesDeps,
  agent: Agent,
  key: string,
  messages: NewMessage[],
  guard: AppendGuard,
  idempotency?: Idempotency,
): Promise<GuardedAppendResult> {
  const schema = await findAgentSchema(deps, agent);
  if (!schema) throw contextNotFound();
  await deps.ownerCheck;
  if (idempotency) return appendOnce(deps.sql, schema, key, messages, idempotency, guard);
  let row: { guarded: boolean; ids: string[] | null; times: string[] | null } | undefined;
  try {
    const { text, values } = guardedAppendSql(schema, key, messages, guard);
    row = (await deps.sql.query<{ guarded: boolean; ids: string[] | null; times: string[] | null }>(text, values)).rows[0];
  } catch (err) {
    throw databaseError(err);
  }
  if (!row?.guarded) return { guarded: false };
  if (!row.ids?.length || !row.times) throw contextNotFound();
  return { guarded: true, messages: stored(messages, row.ids, row.times), replayed: false };
}

/**
 * The idempotent append as one statement (one round trip, over HTTP): an earlier record under the
 * key answers instead; otherwise the context row is locked, the messages inserted and the record
 * written with the answer, all or nothing. A twin running at the same time waits on the context
 * row (or the record's unique key), then fails on the unique key and rolls back whole; it then
 * reads the winner's record. A missing context appends and remembers nothing.
 * Exported so the benchmark can run the same SQL as a floor.
 */
export function appendOnceSql(
  schema: AgentSchema,
  key: string,
  messages: NewMessage[],
  idem: Idempotency,
  guard?: AppendGuard,
): { text: string; values: unknown[] } {
  const s = schema.quoted;
  // Behind a guard, nothing is appended or remembered unless it is met; a record found is still read.
  const guarded = guard ? 'AND EXISTS (SELECT 1 FROM guard)' : '';
  return {
    text: `WITH ${guard ? `guard AS (${guard.sql(6)}),` : ''} prior AS (SELECT request_hash, response FROM ${s}.idempotency WHERE key = $4),
     c AS (UPDATE ${s}.contexts SET updated_at = now() WHERE key = $1 AND NOT EXISTS (SELECT 1 FROM prior) ${guarded} RETURNING key),
     ins AS (
       INSERT INTO ${s}.messages (context_key, role, message)
       SELECT c.key, m.role, m.message
       FROM c CROSS JOIN unnest($2::text[], $3::text[]) WITH ORDINALITY AS m(role, message, ord)
       ORDER BY m.ord
       RETURNING id, role, message, created_at),
     answer AS (
       SELECT count(*) AS n, array_agg(id ORDER BY id) AS ids, array_agg(${ISO_TIME} ORDER BY id) AS times,
              json_agg(json_build_object('id', id, 'role', role, 'message', message, 'createdAt', ${ISO_TIME}) ORDER BY id) AS messages
       FROM ins),
     remembered AS (
       INSERT INTO ${s}.idempotency (key, request_hash, response)
       SELECT $4, $5, messages::jsonb FROM answer WHERE n > 0
       RETURNING 1)
     SELECT (SELECT request_hash FROM prior) AS prior_hash, (SELECT response FROM prior) AS prior_response,
            (SELECT ids FROM answer) AS ids, (SELECT times FROM answer) AS times, (SELECT count(*) FROM remembered) AS remembered
            ${guard ? ', (SELECT count(*) FROM guard) > 0 AS guarded' : ''}`,
    values: [key, messages.map((m) => m.role), messages.map((m) => m.message), idem.key, idem.requestHash, ...(guard?.values ?? [])],
  };
}

type OnceRow = {
  prior_hash: string | null;
  prior_response: StoredMessage[] | null;
  ids: string[] | null;
  times: string[] | null;
  guarded?: boolean;
};

async function appendOnce(
  sql: SqlClient,
  schema: AgentSchema,
  key: string,
  messages: NewMessage[],
  idem: Idempotency,
  guard?: AppendGuard,
): Promise<GuardedAppendResult> {
  let row: OnceRow | undefined;
  try {
    const { text, values } = appendOnceSql(schema, key, messages, idem, guard);
    row = (await sql.query<OnceRow>(text, values)).rows[0];
  } catch (err) {
    if (!isUniqueViolation(err)) throw databaseError(err);
    // A twin committed first. Behind a guard, the twin met it and this statement (guard included) rolled back.
    if (guard) return { guarded: false };
    row = await readRecord(sql, schema, idem.key);
  }
  if (guard && !row?.guarded) return { guarded: false };
  if (row?.prior_hash != null) {
    if (row.prior_hash !== idem.requestHash) {
      throw new AppError('idempotency_key_reused', 'This Idempotency-Key was used for a different request; use a new key');
    }
    return { guarded: true, messages: row.prior_response ?? [], replayed: true };
  }
  if (!row?.ids?.length || !row.times) throw contextNotFound();
  return { guarded: true, messages: stored(messages, row.ids, row.times), replayed: false };
}

async function readRecord(sql: SqlClient, schema: AgentSchema, key: string): Promise<OnceRow> {
  try {
    const { rows } = await sql.query<{ request_hash: string; response: StoredMessage[] }>(
      `SELECT request_hash, response FROM ${schema.quoted}.idempotency WHERE key = $1`,
      [key],
    );
    // The twin's record exists (it made this statement fail); read as "remembered".
    return { prior_hash: rows[0]?.request_hash ?? null, prior_response: rows[0]?.response ?? null, ids: null, times: null };
  } catch (err) {
    throw databaseError(err);
  }
}

function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '23505';
}

export interface MessagePage {
  messages: StoredMessage[];
  /** Pass as `cursor` to read on; null at the end. */
  nextCursor: string | null;
  hasMore: boolean;
}

export function encodeCursor(afterId: number): string {
  return btoa(`m1:${afterId}`).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
}

/** The message id a cursor points after, or null when the cursor is not one of ours. */
export function decodeCursor(cursor: string): number | null {
  try {
    const text = atob(cursor.replace(/-/g, '+').replace(/_/g, '/'));
    const match = /^m1:(\d{1,15})$/.exec(text);
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/** Reads a context's messages in stored order, `limit` at a time after `cursor`. */
export async function readMessages(
  deps: MessagesDeps,
  agent: Agent,
  key: string,
  page: { cursor?: string; limit: number },
): Promise<MessagePage> {
  let after = 0;
  if (page.cursor !== undefined) {
    const decoded = decodeCursor(page.cursor);
    if (decoded === null) {
      throw new AppError('validation_failed', 'The cursor is not valid: pass nextCursor from a previous page', {
        details: { issues: [{ path: 'cursor', message: 'not a cursor issued by this endpoint' }] },
      });
    }
    after = decoded;
  }
  const schema = await findAgentSchema(deps, agent);
  if (!schema) throw contextNotFound();
  const s = schema.quoted;
  let found: boolean;
  let rows: Row[];
  try {
    const result = await deps.sql.query<{ found: boolean; rows: Row[] | null }>(
      `SELECT EXISTS (SELECT 1 FROM ${s}.contexts WHERE key = $1) AS found,
              (SELECT json_agg(m ORDER BY m.id) FROM (
                 SELECT id, role, message, created_at FROM ${s}.messages
                 WHERE context_key = $1 AND id > $2 ORDER BY id LIMIT $3) m) AS rows`,
      [key, after, page.limit + 1],
    );
    found = result.rows[0]?.found ?? false;
    rows = result.rows[0]?.rows ?? [];
  } catch (err) {
    throw databaseError(err);
  }
  if (!found) throw contextNotFound();
  const hasMore = rows.length > page.limit;
  const messages = rows.slice(0, page.limit).map(toMessage);
  const last = messages[messages.length - 1];
  return { messages, hasMore, nextCursor: hasMore && last ? encodeCursor(last.id) : null };
}
