import pg from 'pg';
import { getAddress, isAddress } from 'viem';

export interface RegisteredCollection {
  chainId: number;
  address: string;
  kind: string;
}

/** Registers (or re-kinds) an NFT collection as a source of agents on one deployment. */
export async function registerCollection(databaseUrl: string, entry: RegisteredCollection): Promise<void> {
  if (!isAddress(entry.address, { strict: false })) throw new Error(`not an address: ${entry.address}`);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `insert into "gateway"."collections" (chain_id, address, kind) values ($1, $2, $3)
       on conflict (chain_id, address) do update set kind = excluded.kind`,
      [entry.chainId, getAddress(entry.address).toLowerCase(), entry.kind],
    );
  } finally {
    await client.end();
  }
}

export async function listCollections(databaseUrl: string, chainId?: number): Promise<RegisteredCollection[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ chain_id: number; address: string; kind: string }>(
      `select chain_id, address, kind from "gateway"."collections"
       where $1::int is null or chain_id = $1 order by chain_id, address`,
      [chainId ?? null],
    );
    return rows.map((r) => ({ chainId: r.chain_id, address: getAddress(r.address), kind: r.kind }));
  } finally {
    await client.end();
  }
}
