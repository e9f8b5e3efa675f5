import type { Agent } from '../agents/agent';
import { AppError } from '../errors';
import { findAgentSchema, type AgentSchema, type AgentStore } from '../storage/agent-storage';
import type { SqlClient, SqlPool } from '../storage/sql-client';
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
     RETURNING id, role, message, created_at`,
    values: [key, messages.map((m) => m.role), messages.map((m) => m.message)],
  };
}

async function insertMessages(db: SqlClient, schema: AgentSchema, key: string, messages: NewMessage[]): Promise<StoredMessage[]> {
  const { text, values } = appendSql(schema, key, messages);
  const { rows } = await db.query<Row>(text, values);
  return rows.map(toMessage).sort((a, b) => a.id - b.id);
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
  return appendOnce(deps.pool, schema, key, messages, idempotency);
}

/**
 * The idempotent path, in one transaction: claim the key (a concurrent twin waits on the unique
 * index until the first commits), then append and remember the result. A failed append rolls the
 * claim back, so a retry can succeed later.
 */
async function appendOnce(
  pool: SqlPool,
  schema: AgentSchema,
  key: string,
  messages: NewMessage[],
  idem: Idempotency,
): Promise<AppendResult> {
  const s = schema.quoted;
  let client: (SqlClient & { release(): void }) | undefined;
  try {
    client = await pool.connect();
    await client.query('BEGIN');
    const claim = await client.query(
      `INSERT INTO ${s}.idempotency (key, request_hash, response) VALUES ($1, $2, 'null'::jsonb)
       ON CONFLICT (key) DO NOTHING RETURNING key`,
      [idem.key, idem.requestHash],
    );
    if (claim.rowCount === 0) {
      const { rows } = await client.query<{ request_hash: string; response: StoredMessage[] }>(
        `SELECT request_hash, response FROM ${s}.idempotency WHERE key = $1`,
        [idem.key],
      );
      await client.query('ROLLBACK');
      const earlier = rows[0];
      if (!earlier || earlier.request_hash !== idem.requestHash) {
        throw new AppError('idempotency_key_reused', 'This Idempotency-Key was used for a different request; use a new key');
      }
      return { messages: earlier.response, replayed: true };
    }
    const stored = await insertMessages(client, schema, key, messages);
    if (stored.length === 0) {
      await client.query('ROLLBACK');
      throw contextNotFound();
    }
    await client.query(`UPDATE ${s}.idempotency SET response = $2::jsonb WHERE key = $1`, [idem.key, JSON.stringify(stored)]);
    await client.query('COMMIT');
    return { messages: stored, replayed: false };
  } catch (err) {
    if (client) await client.query('ROLLBACK').catch(() => undefined);
    throw databaseError(err);
  } finally {
    client?.release();
  }
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
