/**
 * The append statements (plain, behind a guard, idempotent) and the shapes they take and give: one
 * round trip each. Built here, run by messages.service.ts; the benchmarks run the same SQL as floors.
 */
import type { AgentSchema } from '../storage/agent-storage';
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

/** A retry of an append with this key and the same request returns the first result (kept >= 24 h). */
export interface Idempotency {
  key: string;
  /** Hash of what the request asks for: method, path and body. */
  requestHash: string;
}

/**
 * A precondition taken in the append's own statement (a reply's lease: one reply at a time per context): a CTE body
 * that returns a row when it is met. The messages are appended only then; the statement says
 * whether it was met (`guarded`). One round trip for both.
 */
export interface AppendGuard {
  /** The CTE's body, whose parameters are numbered from `$first`. */
  sql(first: number): string;
  values: unknown[];
}

/** `createdAt` as `toISOString()` writes it, in SQL, so a remembered answer reads like a fresh one. */
export const ISO_TIME = `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The stored messages, from the ids and times Postgres drew (in id order) and the request's own
 * roles and texts: the texts are not sent back over the wire. Ids follow request order because
 * the insert draws them in `ord` order.
 */
export function stored(messages: NewMessage[], ids: readonly (string | number)[], times: readonly string[]): StoredMessage[] {
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
export function guardedAppendSql(
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
