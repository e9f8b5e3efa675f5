import { and, eq } from 'drizzle-orm';
import type { Address } from 'viem';
import { databaseError, type Database } from '../storage/db';
import { collections } from '../storage/schema';

/** The kind of a registered collection on a chain (`internal`, `expert`, ...), or null when unregistered. */
export async function collectionKind(db: Database, chainId: number, collection: Address): Promise<string | null> {
  try {
    const rows = await db.orm
      .select({ kind: collections.kind })
      .from(collections)
      .where(and(eq(collections.chainId, chainId), eq(collections.address, collection.toLowerCase())))
      .limit(1);
    return rows[0]?.kind ?? null;
  } catch (err) {
    throw databaseError(err);
  }
}
