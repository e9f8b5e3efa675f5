import { lt, sql } from 'drizzle-orm';
import type { Database } from '../storage/db';
import { databaseError } from '../storage/db';
import { consumedNonces } from '../storage/schema';

export type NoncePurpose = 'login' | 'verify';

/**
 * Marks a nonce as used, once and for all: the first caller gets true, every later or concurrent
 * one false. Backed by a unique key in Postgres, which holds across isolates and locations.
 */
export async function consumeNonce(db: Database, purpose: NoncePurpose, chainId: number, nonce: string): Promise<boolean> {
  try {
    const rows = await db.orm
      .insert(consumedNonces)
      .values({ key: `${purpose}:${chainId}:${nonce}` })
      .onConflictDoNothing()
      .returning({ key: consumedNonces.key });
    return rows.length === 1;
  } catch (err) {
    throw databaseError(err);
  }
}

/** Drops records older than any nonce can live (their messages have expired anyway). */
export async function pruneConsumedNonces(db: Database, olderThanSeconds: number): Promise<void> {
  await db.orm
    .delete(consumedNonces)
    .where(lt(consumedNonces.consumedAt, sql`now() - make_interval(secs => ${olderThanSeconds})`));
}
