import type { Agent } from '../identity/agent';
import { AppError } from '../errors';
import { findAgentSchema } from '../storage/agent-storage';
import { databaseError } from '../storage/db';
import { ISO_TIME, type MessagesDeps, type Role, type StoredMessage } from './messages.service';

/** At most this many messages are read back for one reply, whatever their size. */
export const MAX_RECENT_MESSAGES = 10_000;

type MessageRow = { id: string; role: Role; message: string; created_at: string };

/**
 * Messages of context `key` chosen by `select` (a statement over the agent's schema, quoted,
 * yielding `id, role, message, created_at` rows; `$1` is the key), in one round trip with the
 * context's existence: 404 `Context not found` when the context (or the agent's storage) does not
 * exist. The shared read of the reply's history and of the `memory_read` tool.
 */
export async function readContextMessages(
  deps: MessagesDeps,
  agent: Agent,
  key: string,
  select: (schema: string) => string,
  params: readonly unknown[],
): Promise<StoredMessage[]> {
  const schema = await findAgentSchema(deps, agent);
  if (!schema) throw new AppError('context_not_found', 'Context not found');
  const s = schema.quoted;
  let found = false;
  let rows: MessageRow[] = [];
  try {
    const result = await deps.sql.query<{ found: boolean; rows: MessageRow[] | null }>(
      `SELECT EXISTS (SELECT 1 FROM ${s}.contexts WHERE key = $1) AS found, (${select(s)}) AS rows`,
      [key, ...params],
    );
    found = result.rows[0]?.found ?? false;
    rows = result.rows[0]?.rows ?? [];
  } catch (err) {
    throw databaseError(err);
  }
  if (!found) throw new AppError('context_not_found', 'Context not found');
  return rows.map((r) => ({ id: Number(r.id), role: r.role, message: r.message, createdAt: r.created_at }));
}

/**
 * A context's newest messages, oldest first, as far back as `maxBytes` of message text reach (the
 * message that crosses the limit is included, so the newest one always is). For the reply loop,
 * which trims to its token budget: reading from the newest end keeps a reply's cost independent of
 * the context's length. 404 `Context not found` when the context does not exist.
 */
export function readRecentMessages(deps: MessagesDeps, agent: Agent, key: string, maxBytes: number): Promise<StoredMessage[]> {
  return readContextMessages(
    deps,
    agent,
    key,
    (s) => `SELECT json_agg(m ORDER BY m.id) FROM (
                 SELECT id, role, message, ${ISO_TIME} AS created_at
                 FROM (SELECT id, role, message, created_at,
                              sum(octet_length(message)) OVER (ORDER BY id DESC) - octet_length(message) AS newer_bytes
                       FROM ${s}.messages WHERE context_key = $1 ORDER BY id DESC LIMIT $3) r
                 WHERE newer_bytes < $2) m`,
    [maxBytes, MAX_RECENT_MESSAGES],
  );
}
