/**
 * A context's messages newest first, paged back by id (DESIGN §13): what the `memory_read` tool
 * reads. The HTTP route reads oldest first (a pipeline checking what it hydrated); an agent
 * looking back wants the latest first. No HTTP here.
 */
import type { Agent } from '../agents/agent';
import { ISO_TIME, type MessagesDeps, type Role, type StoredMessage } from '../contexts/messages.service';
import { AppError } from '../errors';
import { findAgentSchema } from '../storage/agent-storage';
import { databaseError } from '../storage/db';

export interface NewestPage {
  /** Newest first. */
  messages: StoredMessage[];
  /** Pass as `beforeId` to read further back; null at the oldest. */
  nextBeforeId: number | null;
}

/** Up to `limit` messages of context `key` older than `beforeId` (all when absent), newest first; 404 `context_not_found`. */
export async function readNewest(
  deps: MessagesDeps,
  agent: Agent,
  key: string,
  page: { beforeId?: number; limit: number },
): Promise<NewestPage> {
  const schema = await findAgentSchema(deps, agent);
  if (!schema) throw new AppError('context_not_found', 'Context not found');
  const s = schema.quoted;
  type Row = { id: string; role: Role; message: string; created_at: string };
  let found = false;
  let rows: Row[] = [];
  try {
    const result = await deps.sql.query<{ found: boolean; rows: Row[] | null }>(
      `SELECT EXISTS (SELECT 1 FROM ${s}.contexts WHERE key = $1) AS found,
              (SELECT json_agg(m ORDER BY m.id DESC) FROM (
                 SELECT id, role, message, ${ISO_TIME} AS created_at FROM ${s}.messages
                 WHERE context_key = $1 AND ($2::bigint IS NULL OR id < $2::bigint) ORDER BY id DESC LIMIT $3) m) AS rows`,
      [key, page.beforeId ?? null, page.limit + 1],
    );
    found = result.rows[0]?.found ?? false;
    rows = result.rows[0]?.rows ?? [];
  } catch (err) {
    throw databaseError(err);
  }
  if (!found) throw new AppError('context_not_found', 'Context not found');
  const messages = rows.slice(0, page.limit).map((r) => ({ id: Number(r.id), role: r.role, message: r.message, createdAt: r.created_at }));
  return { messages, nextBeforeId: rows.length > page.limit ? (messages.at(-1)?.id ?? null) : null };
}
