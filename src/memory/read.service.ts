/**
 * A context's messages newest first, paged back by id: what the `memory_read` tool
 * reads. The HTTP route reads oldest first (a pipeline checking what it hydrated); an agent
 * looking back wants the latest first. No HTTP here.
 */
import type { Agent } from '../identity/agent';
import { ISO_TIME, type MessagesDeps, type StoredMessage } from '../contexts/messages.service';
import { readContextMessages } from '../contexts/recent.service';

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
  // One more than the page: whether there is more to read back.
  const rows = await readContextMessages(
    deps,
    agent,
    key,
    (s) => `SELECT json_agg(m ORDER BY m.id DESC) FROM (
                 SELECT id, role, message, ${ISO_TIME} AS created_at FROM ${s}.messages
                 WHERE context_key = $1 AND ($2::bigint IS NULL OR id < $2::bigint) ORDER BY id DESC LIMIT $3) m`,
    [page.beforeId ?? null, page.limit + 1],
  );
  const messages = rows.slice(0, page.limit);
  return { messages, nextBeforeId: rows.length > page.limit ? (messages.at(-1)?.id ?? null) : null };
}
