/**
 * A context's summary: the latest summary of the messages replies left out, stored in
 * the agent's schema (template v4, one row per context) beside the messages, which never change.
 * Read by the summary route and by a reply; written after a reply (src/replies/summarise.ts).
 * No HTTP here.
 */
import type { Agent } from '../identity/agent';
import { ISO_TIME, type MessagesDeps, type Role } from '../contexts/messages.service';
import { AppError } from '../errors';
import { type AgentSchema, findAgentSchema } from '../storage/agent-storage';
import { databaseError } from '../storage/db';
import type { SqlClient } from '../storage/sql-client';

/** The latest summary of a context: it covers the messages with ids `fromId`..`toId` (both inclusive). */
export interface ContextSummary {
  contextKey: string;
  summary: string;
  fromId: number;
  toId: number;
  createdAt: string;
}

type SummaryRow = { summary: string; from_id: string; to_id: string; created_at: string };

const toSummary = (contextKey: string, row: SummaryRow): ContextSummary => ({
  contextKey,
  summary: row.summary,
  fromId: Number(row.from_id),
  toId: Number(row.to_id),
  createdAt: row.created_at,
});

/** The summary and whether the context exists, in one round trip; null without the agent's storage. */
async function lookUp(deps: MessagesDeps, agent: Agent, key: string): Promise<{ found: boolean; summary: ContextSummary | null } | null> {
  const schema = await findAgentSchema(deps, agent);
  if (!schema) return null;
  const s = schema.quoted;
  try {
    const { rows } = await deps.sql.query<{ found: boolean; summary: SummaryRow | null }>(
      `SELECT EXISTS (SELECT 1 FROM ${s}.contexts WHERE key = $1) AS found,
              (SELECT json_build_object('summary', summary, 'from_id', from_id, 'to_id', to_id, 'created_at', ${ISO_TIME})
               FROM ${s}.summaries WHERE context_key = $1) AS summary`,
      [key],
    );
    const row = rows[0];
    return { found: row?.found ?? false, summary: row?.summary ? toSummary(key, row.summary) : null };
  } catch (err) {
    throw databaseError(err);
  }
}

/** The context's summary: 404 `context_not_found` when there is no such context, 404 `summary_not_found` when it has none. */
export async function readSummary(deps: MessagesDeps, agent: Agent, key: string): Promise<ContextSummary> {
  const read = await lookUp(deps, agent, key);
  if (!read?.found) throw new AppError('context_not_found', 'Context not found');
  if (!read.summary) throw new AppError('summary_not_found', 'This context has no summary: no reply has had to leave messages out yet');
  return read.summary;
}

/** The context's summary for a reply, or null (none, or no such context: the reply's own read answers 404 for that). */
export async function latestSummary(deps: MessagesDeps, agent: Agent, key: string): Promise<ContextSummary | null> {
  return (await lookUp(deps, agent, key))?.summary ?? null;
}

/** A message as a summary reads it. */
export interface SummarisedMessage {
  id: number;
  role: Role;
  message: string;
}

/**
 * The messages of context `key` with ids in (`afterId`, `upToId`], oldest first, as far as
 * `maxBytes` of text reach (the message that crosses the limit is included, so at least one is
 * when there is any): what a summary may take in one request.
 */
export async function messagesToSummarise(
  sql: SqlClient,
  schema: AgentSchema,
  key: string,
  range: { afterId: number; upToId: number },
  maxBytes: number,
  maxMessages: number,
): Promise<SummarisedMessage[]> {
  const { rows } = await sql.query<{ id: string; role: Role; message: string }>(
    `SELECT id, role, message FROM (
       SELECT id, role, message, sum(octet_length(message)) OVER (ORDER BY id) - octet_length(message) AS older_bytes
       FROM ${schema.quoted}.messages WHERE context_key = $1 AND id > $2 AND id <= $3 ORDER BY id LIMIT $5) m
     WHERE older_bytes < $4 ORDER BY id`,
    [key, range.afterId, range.upToId, maxBytes, maxMessages],
  );
  return rows.map((r) => ({ id: Number(r.id), role: r.role, message: r.message }));
}

/**
 * Stores `summary` as the context's latest unless a summary reaching as far or further is stored
 * already (two writers after two replies: the newest range stays, whichever commits last). Returns
 * whether it was stored.
 */
export async function storeSummary(sql: SqlClient, schema: AgentSchema, summary: Omit<ContextSummary, 'createdAt'>): Promise<boolean> {
  const { rowCount } = await sql.query(
    `INSERT INTO ${schema.quoted}.summaries AS s (context_key, summary, from_id, to_id) VALUES ($1, $2, $3, $4)
     ON CONFLICT (context_key) DO UPDATE SET summary = excluded.summary, from_id = excluded.from_id, to_id = excluded.to_id,
       created_at = now()
     WHERE s.to_id < excluded.to_id`,
    [summary.contextKey, summary.summary, summary.fromId, summary.toId],
  );
  return (rowCount ?? 0) > 0;
}
