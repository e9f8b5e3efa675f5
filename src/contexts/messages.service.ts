import type { Agent } from '../identity/agent';
import { AppError } from '../errors';
import { findAgentSchema, type AgentSchema, type AgentStore } from '../storage/agent-storage';
import type { SqlClient } from '../storage/sql-client';
import { databaseError } from '../storage/db';
import {
  type AppendGuard,
  appendOnceSql,
  appendSql,
  guardedAppendSql,
  type Idempotency,
  type NewMessage,
  type Role,
  type StoredMessage,
  stored,
} from './append-sql';

export { appendOnceSql, appendSql, ISO_TIME } from './append-sql';
export type { AppendGuard, Idempotency, NewMessage, Role, StoredMessage } from './append-sql';

export type MessagesDeps = AgentStore;

export interface AppendResult {
  messages: StoredMessage[];
  /** True when this is the remembered result of an earlier request with the same Idempotency-Key. */
  replayed: boolean;
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
  return appendOnce(deps.sql, schema, key, messages, idempotency);
}

/** What a guarded append found: the guard not met (nothing appended), or the append's result. */
export type GuardedAppendResult = { guarded: false } | ({ guarded: true } & AppendResult);

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

type OnceRow = {
  prior_hash: string | null;
  prior_response: StoredMessage[] | null;
  ids: string[] | null;
  times: string[] | null;
  guarded?: boolean;
};

/** Runs `appendOnceSql`: without a guard the append's result, behind one whether it was met too. */
function appendOnce(sql: SqlClient, schema: AgentSchema, key: string, messages: NewMessage[], idem: Idempotency): Promise<AppendResult>;
function appendOnce(
  sql: SqlClient,
  schema: AgentSchema,
  key: string,
  messages: NewMessage[],
  idem: Idempotency,
  guard: AppendGuard,
): Promise<GuardedAppendResult>;
async function appendOnce(
  sql: SqlClient,
  schema: AgentSchema,
  key: string,
  messages: NewMessage[],
  idem: Idempotency,
  guard?: AppendGuard,
): Promise<GuardedAppendResult | AppendResult> {
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
  /** The context has a summary (`GET …/summary` answers 200): a reader asks for it only then. */
  hasSummary: boolean;
}

/** Stored order (oldest first) or newest first. */
export type MessageOrder = 'asc' | 'desc';

/** A cursor past message `afterId` in `order` (`m1:` stored order, `m1d:` newest first). */
export function encodeCursor(afterId: number, order: MessageOrder = 'asc'): string {
  return btoa(`${order === 'desc' ? 'm1d' : 'm1'}:${afterId}`)
    .replace(/=+$/, '')
    .replace(/\+/g, '-')
    .replace(/\//g, '_');
}

/** The message id a cursor of `order` points past, or null when the cursor is not one of ours (or of the other order). */
export function decodeCursor(cursor: string, order: MessageOrder = 'asc'): number | null {
  try {
    const text = atob(cursor.replace(/-/g, '+').replace(/_/g, '/'));
    const match = (order === 'desc' ? /^m1d:(\d{1,15})$/ : /^m1:(\d{1,15})$/).exec(text);
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/** Reads a context's messages in stored order (or newest first), `limit` at a time past `cursor`. */
export async function readMessages(
  deps: MessagesDeps,
  agent: Agent,
  key: string,
  page: { cursor?: string; limit: number; order?: MessageOrder },
): Promise<MessagePage> {
  const order = page.order ?? 'asc';
  let past = order === 'desc' ? Number.MAX_SAFE_INTEGER : 0;
  if (page.cursor !== undefined) {
    const decoded = decodeCursor(page.cursor, order);
    if (decoded === null) {
      throw new AppError('validation_failed', `The cursor is not valid: pass nextCursor from a previous page read with order=${order}`, {
        details: { issues: [{ path: 'cursor', message: `not a cursor issued by this endpoint for order=${order}` }] },
      });
    }
    past = decoded;
  }
  const schema = await findAgentSchema(deps, agent);
  if (!schema) throw contextNotFound();
  const s = schema.quoted;
  const direction = order === 'desc' ? 'DESC' : 'ASC';
  let found: boolean;
  let hasSummary: boolean;
  let rows: Row[];
  try {
    const result = await deps.sql.query<{ found: boolean; summarised: boolean; rows: Row[] | null }>(
      `SELECT EXISTS (SELECT 1 FROM ${s}.contexts WHERE key = $1) AS found,
              EXISTS (SELECT 1 FROM ${s}.summaries WHERE context_key = $1) AS summarised,
              (SELECT json_agg(m ORDER BY m.id ${direction}) FROM (
                 SELECT id, role, message, created_at FROM ${s}.messages
                 WHERE context_key = $1 AND id ${order === 'desc' ? '<' : '>'} $2 ORDER BY id ${direction} LIMIT $3) m) AS rows`,
      [key, past, page.limit + 1],
    );
    found = result.rows[0]?.found ?? false;
    hasSummary = result.rows[0]?.summarised ?? false;
    rows = result.rows[0]?.rows ?? [];
  } catch (err) {
    throw databaseError(err);
  }
  if (!found) throw contextNotFound();
  const hasMore = rows.length > page.limit;
  const messages = rows.slice(0, page.limit).map(toMessage);
  const last = messages[messages.length - 1];
  return { messages, hasMore, nextCursor: hasMore && last ? encodeCursor(last.id, order) : null, hasSummary };
}
