/** Reading the audit trail, newest first, and its 90-day clean-up (docs/security.md, The audit trail). */
import { and, desc, lt } from 'drizzle-orm';
import type { AgentIdentity } from '../identity/identity';
import { AppError } from '../errors';
import { agentRef, ofAgent } from '../storage/agent-rows';
import { databaseError, type Database } from '../storage/db';
import { auditLog } from '../storage/schema';
import type { SqlClient } from '../storage/sql-client';
import { ACTOR_VIAS, type ActorVia, type AuditAction, type AuditActor, type AuditTarget } from './entry';

/** One entry as the owner reads it. */
export interface AuditEntry {
  id: string;
  at: string;
  actor: AuditActor;
  action: AuditAction;
  target: AuditTarget;
  outcome: string;
  durationMs?: number;
  argumentsSha256?: string;
}

export interface AuditPage {
  entries: AuditEntry[];
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  nextCursor: string | null;
}

/** How long entries are kept: the Cron clean-up deletes older ones. */
export const AUDIT_RETENTION_DAYS = 90;
/** Entries one clean-up run deletes at most (bounds its work; the next run goes on). */
export const AUDIT_ENTRIES_PER_RUN = 5_000;

const CURSOR_TAG = 'a1.';

function encodeCursor(id: number): string {
  return btoa(`${CURSOR_TAG}${id}`).replace(/=+$/, '');
}

/** The id a cursor holds; 400 `validation_failed` when it is not one this endpoint issued. */
function decodeCursor(cursor: string): number {
  let text = '';
  try {
    text = atob(cursor);
  } catch {
    // not base64: refused below
  }
  const id = text.startsWith(CURSOR_TAG) ? text.slice(CURSOR_TAG.length) : '';
  if (!/^[1-9]\d{0,15}$/.test(id)) {
    throw new AppError('validation_failed', 'The cursor is not valid: pass nextCursor from the previous page', {
      details: { issues: [{ path: 'cursor', message: 'not a cursor issued by this endpoint' }] },
    });
  }
  return Number(id);
}

const isActorVia = (value: string | null): value is ActorVia => (ACTOR_VIAS as readonly (string | null)[]).includes(value);

function toEntry(row: typeof auditLog.$inferSelect): AuditEntry {
  return {
    id: String(row.id),
    at: row.at.toISOString(),
    actor:
      row.actorKeyId !== null
        ? { keyId: row.actorKeyId }
        : {
            wallet: row.actorWallet ?? '',
            ...(row.actorClientId !== null ? { clientId: row.actorClientId } : {}),
            ...(isActorVia(row.actorVia) ? { via: row.actorVia } : {}),
          },
    action: row.action as AuditAction,
    target: row.target as AuditTarget,
    outcome: row.outcome,
    ...(row.durationMs !== null ? { durationMs: row.durationMs } : {}),
    ...(row.argumentsSha256 !== null ? { argumentsSha256: row.argumentsSha256 } : {}),
  };
}

/** A page of the agent's entries, newest first, after `cursor` (older than the page it came from). */
export async function listAuditEntries(
  db: Database,
  agent: AgentIdentity,
  page: { cursor?: string | undefined; limit: number },
): Promise<AuditPage> {
  const before = page.cursor === undefined ? undefined : decodeCursor(page.cursor);
  let rows: (typeof auditLog.$inferSelect)[];
  try {
    rows = await db.reads
      .select()
      .from(auditLog)
      .where(and(ofAgent(auditLog, agentRef(agent)), before === undefined ? undefined : lt(auditLog.id, before)))
      .orderBy(desc(auditLog.id))
      .limit(page.limit + 1);
  } catch (err) {
    throw databaseError(err);
  }
  const entries = rows.slice(0, page.limit).map(toEntry);
  const last = rows.length > page.limit ? rows[page.limit - 1] : undefined;
  return { entries, nextCursor: last === undefined ? null : encodeCursor(last.id) };
}

/** Deletes up to AUDIT_ENTRIES_PER_RUN entries older than AUDIT_RETENTION_DAYS (served by `audit_log_at`). */
export async function pruneAuditLog(sql: SqlClient): Promise<number> {
  const { rows } = await sql.query<{ deleted: string | number }>(
    `WITH gone AS (
       DELETE FROM gateway.audit_log WHERE id IN (
         SELECT id FROM gateway.audit_log WHERE at < now() - make_interval(days => $1) LIMIT $2
       ) RETURNING 1)
     SELECT count(*) AS deleted FROM gone`,
    [AUDIT_RETENTION_DAYS, AUDIT_ENTRIES_PER_RUN],
  );
  return Number(rows[0]?.deleted ?? 0);
}
