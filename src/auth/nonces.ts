import { lt, sql } from 'drizzle-orm';
import type { Database } from '../storage/db';
import { databaseError } from '../storage/db';
import { consumedNonces } from '../storage/schema';

/**
 * Marks a nonce as used, once and for all: the first caller gets true, every later or concurrent
 * one false. Backed by a unique key in Postgres, which holds across isolates and locations.
 * One namespace for every purpose (`nonce:<chainId>:<nonce>`): a nonce consumed by a login is
 * consumed for pairing too, and the reverse.
 */
export async function consumeNonce(db: Database, chainId: number, nonce: string): Promise<boolean> {
  try {
    // One statement over HTTP (one round trip; no WebSocket to open on the login path).
    const { rowCount } = await db.sql.query('insert into "gateway"."consumed_nonces" (key) values ($1) on conflict do nothing', [
      `nonce:${chainId}:${nonce}`,
    ]);
    return rowCount === 1;
  } catch (err) {
    throw databaseError(err);
  }
}

/**
 * Drops records older than any nonce can live (their messages have expired anyway). Not called on
 * requests (clean-up never adds to a request's time): a Cron Trigger runs it (src/maintenance).
 */
export async function pruneConsumedNonces(db: Database, olderThanSeconds: number): Promise<void> {
  await db.orm.delete(consumedNonces).where(lt(consumedNonces.consumedAt, sql`now() - make_interval(secs => ${olderThanSeconds})`));
}
