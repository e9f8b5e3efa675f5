/**
 * The gate's registry cache: an isolate trusts a found registration for
 * REGISTRY_CACHE_MS, keeps at most REGISTRY_CACHE_ENTRIES, never caches "not registered", and a
 * removal is seen once the entry expires. Against the harness' real Postgres.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Address } from 'viem';
import { registerCollection } from '../../scripts/lib/collections';
import { collectionKind, REGISTRY_CACHE_ENTRIES, REGISTRY_CACHE_MS } from '../../src/agents/registry';
import type { Database } from '../../src/storage/db';
import { newWallet } from '../support/chain';

const stack = inject('stack');
const CHAIN = 80002;
let pool: pg.Pool;
let db: Database;
let statements = 0;

beforeAll(() => {
  pool = new pg.Pool({ connectionString: stack.databaseUrl, max: 2 });
  db = {
    sql: {
      query: async (text: string, values?: unknown[]) => {
        statements += 1;
        const { rows, rowCount } = await pool.query(text, values);
        return { rows, rowCount };
      },
    },
  } as unknown as Database;
});

afterAll(async () => {
  await pool.end();
});

const unregister = (address: Address) =>
  pool.query('delete from gateway.collections where chain_id = $1 and address = $2', [CHAIN, address.toLowerCase()]);

describe('registry cache', () => {
  it('answers a found registration from the cache until it expires, then sees the removal', async () => {
    const address = newWallet().address;
    await registerCollection(stack.databaseUrl, { chainId: CHAIN, address, kind: 'expert' });
    const t0 = 1_000_000;
    expect(await collectionKind(db, CHAIN, address, t0)).toBe('expert');
    await unregister(address);
    const before = statements;
    expect(await collectionKind(db, CHAIN, address, t0 + REGISTRY_CACHE_MS - 1)).toBe('expert');
    expect(statements).toBe(before);
    expect(await collectionKind(db, CHAIN, address, t0 + REGISTRY_CACHE_MS)).toBeNull();
    expect(statements).toBe(before + 1);
  });

  it('never caches "not registered": a new registration is served at once', async () => {
    const address = newWallet().address;
    expect(await collectionKind(db, CHAIN, address)).toBeNull();
    await registerCollection(stack.databaseUrl, { chainId: CHAIN, address, kind: 'internal' });
    expect(await collectionKind(db, CHAIN, address)).toBe('internal');
  });

  it(`keeps at most ${REGISTRY_CACHE_ENTRIES} entries, dropping the oldest`, async () => {
    const addresses = Array.from({ length: REGISTRY_CACHE_ENTRIES + 1 }, () => newWallet().address);
    await pool.query(`insert into gateway.collections (chain_id, address, kind) select $1, a, 'internal' from unnest($2::text[]) a`, [
      CHAIN,
      addresses.map((a) => a.toLowerCase()),
    ]);
    const now = Date.now();
    for (const address of addresses) await collectionKind(db, CHAIN, address, now);
    const before = statements;
    expect(await collectionKind(db, CHAIN, addresses[addresses.length - 1]!, now)).toBe('internal');
    expect(statements).toBe(before); // the newest is cached
    expect(await collectionKind(db, CHAIN, addresses[0]!, now)).toBe('internal');
    expect(statements).toBe(before + 1); // the oldest was dropped
    await pool.query('delete from gateway.collections where chain_id = $1 and address = any($2::text[])', [
      CHAIN,
      addresses.map((a) => a.toLowerCase()),
    ]);
  });
});
