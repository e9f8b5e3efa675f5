import type { Address } from 'viem';
import { databaseError, type Database } from '../storage/db';

/**
 * How long an isolate trusts a registration it has read: registrations change rarely,
 * and the gate runs on every agent request, so a hit saves a database round trip. Only found
 * registrations are kept: a newly added collection is served at once, a removed one (or a changed
 * kind) is noticed within this time. Never the owner: that is read on-chain on every request.
 */
export const REGISTRY_CACHE_MS = 60_000;
/** Entries one isolate keeps at most; the oldest goes first. */
export const REGISTRY_CACHE_ENTRIES = 1_000;

const registered = new Map<string, { kind: string; until: number }>();

/** The kind of a registered collection on a chain (`internal`, `expert`, ...), or null when unregistered. */
export async function collectionKind(db: Database, chainId: number, collection: Address, now = Date.now()): Promise<string | null> {
  const id = `${chainId}:${collection.toLowerCase()}`;
  const hit = registered.get(id);
  if (hit && hit.until > now) return hit.kind;
  registered.delete(id);
  let kind: string | null;
  try {
    // One-shot over HTTP: the gate runs on every agent request and needs no connection of its own.
    const { rows } = await db.sql.query<{ kind: string }>(
      'select kind from "gateway"."collections" where chain_id = $1 and address = $2 limit 1',
      [chainId, collection.toLowerCase()],
    );
    kind = rows[0]?.kind ?? null;
  } catch (err) {
    throw databaseError(err);
  }
  if (kind !== null) {
    if (registered.size >= REGISTRY_CACHE_ENTRIES) registered.delete(registered.keys().next().value!);
    registered.set(id, { kind, until: now + REGISTRY_CACHE_MS });
  }
  return kind;
}

/** One registered collection of a chain: its lower-case address as stored, and its kind. */
export interface RegisteredCollection {
  address: Address;
  kind: string;
}

/**
 * The collections registered on a chain, by address (lower case, so byte order is hex order), at
 * most `max`; `truncated` says there are more. Read from the table on every call (not cached): the
 * list is asked once per page view, and a new registration shows at once.
 */
export async function registeredCollections(
  db: Database,
  chainId: number,
  max: number,
): Promise<{ collections: RegisteredCollection[]; truncated: boolean }> {
  let rows: RegisteredCollection[];
  try {
    ({ rows } = await db.sql.query<RegisteredCollection>(
      'select address, kind from "gateway"."collections" where chain_id = $1 order by address collate "C" limit $2',
      [chainId, max + 1],
    ));
  } catch (err) {
    throw databaseError(err);
  }
  return { collections: rows.slice(0, max), truncated: rows.length > max };
}
