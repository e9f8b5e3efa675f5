import type { Address } from 'viem';
import { databaseError, type Database } from '../storage/db';

/** The kind of a registered collection on a chain (`internal`, `expert`, ...), or null when unregistered. */
export async function collectionKind(db: Database, chainId: number, collection: Address): Promise<string | null> {
  try {
    // One-shot over HTTP: the gate runs on every agent request and needs no connection of its own.
    const { rows } = await db.sql.query<{ kind: string }>(
      'select kind from "gateway"."collections" where chain_id = $1 and address = $2 limit 1',
      [chainId, collection.toLowerCase()],
    );
    return rows[0]?.kind ?? null;
  } catch (err) {
    throw databaseError(err);
  }
}
