import type { AppendGuard } from '../contexts/messages.service';
import { sha256Hex } from '../encoding/sha256-hex';
import { AppError } from '../errors';
import type { Database } from '../storage/db';
import { databaseError, isDatabaseUnavailable } from '../storage/db';

/**
 * One reply at a time per context (two at once would each answer without the other's message): a
 * lease row in `gateway.reply_leases`, taken before the message is appended and dropped when the
 * reply ends. A crashed reply's lease runs
 * out (`ttlMs`, longer than any reply may last) and the next reply takes it over.
 */
export interface ReplyLease {
  release(): Promise<void>;
}

/** sha256 of the context's identity: the shared schema holds no agent memory (not even its keys). */
function contextRef(agentRef: string, contextKey: string): Promise<string> {
  return sha256Hex(`${agentRef}:${contextKey}`);
}

/** Retry-After of a 409 `reply_in_progress`: the most a retry is told to wait (the reply may end any time). */
export const MAX_RETRY_AFTER_SECONDS = 15;

/**
 * Seconds until the held lease runs out, between 1 and MAX_RETRY_AFTER_SECONDS: a retry after it
 * finds the context free unless a reply still runs (a lease runs out at the latest then).
 */
async function retryAfterSeconds(db: Database, ref: string): Promise<number> {
  try {
    const { rows } = await db.sql.query<{ seconds: number | null }>(
      'SELECT ceil(extract(epoch FROM expires_at - now()))::int AS seconds FROM gateway.reply_leases WHERE context_ref = $1',
      [ref],
    );
    // No row: the lease was released meanwhile, so the context is free now.
    return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, rows[0]?.seconds ?? 1));
  } catch {
    return MAX_RETRY_AFTER_SECONDS; // a hint only: its failure does not change the answer (409)
  }
}

/**
 * Pauses between attempts to release a lease while the database does not answer (about 15 s in
 * all): once a second after the first, so the context is free within a second of the database
 * being back rather than waiting out a long back-off.
 */
const RELEASE_RETRY_DELAYS_MS = [250, 500, ...Array<number>(14).fill(1_000)];

/** The statement that takes the lease when it is free (or run out): a row when taken. Parameters from `$first`. */
const takeSql = (first: number) =>
  `INSERT INTO gateway.reply_leases (context_ref, lease_id, expires_at)
   VALUES ($${first}, $${first + 1}, now() + $${first + 2} * interval '1 millisecond')
   ON CONFLICT (context_ref) DO UPDATE SET lease_id = excluded.lease_id, expires_at = excluded.expires_at
   WHERE gateway.reply_leases.expires_at < now()
   RETURNING lease_id`;

/**
 * A lease about to be taken inside another statement (the reply's append: one round trip for
 * both): `guard` goes into that statement; then `lease` releases what it took, or
 * `refusal` is the 409 to answer when it found the lease held.
 */
export interface LeaseClaim {
  guard: AppendGuard;
  lease: ReplyLease;
  refusal(): Promise<AppError>;
}

/** Work after the response (`waitUntil`): where a release the database refused keeps trying. */
export type Later = (work: Promise<unknown>) => void;

export async function claimReplyLease(
  db: Database,
  agentRef: string,
  contextKey: string,
  ttlMs: number,
  later?: Later,
): Promise<LeaseClaim> {
  const ref = await contextRef(agentRef, contextKey);
  const leaseId = crypto.randomUUID();
  return {
    guard: { sql: takeSql, values: [ref, leaseId, ttlMs] },
    lease: heldLease(db, ref, leaseId, later),
    refusal: async () => replyInProgress(await retryAfterSeconds(db, ref)),
  };
}

export const replyInProgress = (retryAfter: number) =>
  new AppError('reply_in_progress', 'The agent is already replying in this context: wait for that reply to end', {
    headers: { 'Retry-After': String(retryAfter) },
  });

/** Takes the context's lease on its own, or 409 `reply_in_progress` while another reply holds it. */
export async function takeReplyLease(
  db: Database,
  agentRef: string,
  contextKey: string,
  ttlMs: number,
  later?: Later,
): Promise<ReplyLease> {
  const ref = await contextRef(agentRef, contextKey);
  const leaseId = crypto.randomUUID();
  let taken: boolean;
  try {
    const { rows } = await db.sql.query(takeSql(1), [ref, leaseId, ttlMs]);
    taken = rows.length === 1;
  } catch (err) {
    throw databaseError(err);
  }
  if (!taken) throw replyInProgress(await retryAfterSeconds(db, ref));
  return heldLease(db, ref, leaseId, later);
}

function heldLease(db: Database, ref: string, leaseId: string, later?: Later): ReplyLease {
  const drop = () => db.sql.query('DELETE FROM gateway.reply_leases WHERE context_ref = $1 AND lease_id = $2', [ref, leaseId]);
  const failed = (err: unknown) =>
    // An undeleted lease runs out by itself; the reply's answer stands.
    console.error(JSON.stringify({ level: 'warn', event: 'reply_lease_release_failed', reason: String((err as Error)?.name) }));
  // A lease left behind blocks the context until it runs out (the reply's deadline + 30 s, 12
  // minutes with the default timeouts): while the database does not answer, keep trying a while
  // (the soak kills Postgres under a reply: it is back within seconds).
  const retry = async () => {
    for (const [i, delayMs] of RELEASE_RETRY_DELAYS_MS.entries()) {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      try {
        await drop();
        return;
      } catch (err) {
        if (i === RELEASE_RETRY_DELAYS_MS.length - 1 || !isDatabaseUnavailable(err)) return failed(err);
      }
    }
  };
  return {
    async release() {
      try {
        await drop();
      } catch (err) {
        if (!isDatabaseUnavailable(err)) return failed(err);
        // The answer does not wait for the retries when the request can keep working after it.
        if (later) later(retry());
        else await retry();
      }
    },
  };
}
