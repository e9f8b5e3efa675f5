import { getAddress, type Address } from 'viem';
import { registeredCollections } from '../agents/registry';
import type { Database } from '../storage/db';

/** The most collections one answer lists; `truncated` says there are more. */
export const COLLECTIONS_MAX = 100;

export interface CollectionsDeps {
  db: Database;
  /** The deployment's chain: only its registrations are listed. */
  chainId: number;
}

export interface Collections {
  /** By address, ascending; each address EIP-55. */
  collections: { address: Address; kind: string }[];
  /** More than `max` are registered: the first `max` by address are listed. */
  truncated: boolean;
}

/**
 * The collections registered on this deployment's chain (the dashboard's picker offers them),
 * with their kind. Public facts (contract addresses), but asked with a wallet's token like the
 * wallet's own tokens of one of them.
 * @throws AppError `dependency_unavailable` when the database does not answer.
 */
export async function listCollections(deps: CollectionsDeps, max = COLLECTIONS_MAX): Promise<Collections> {
  const { collections, truncated } = await registeredCollections(deps.db, deps.chainId, max);
  return { collections: collections.map((c) => ({ address: getAddress(c.address), kind: c.kind })), truncated };
}
