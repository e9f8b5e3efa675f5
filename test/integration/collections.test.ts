/**
 * GET /collections against workerd + Postgres: the collections registered on the deployment's
 * chain (the dev stack registers its demo collection on each), sorted by address, EIP-55, with
 * their kind; a wallet's token only. The cap of 100 runs on the service over the harness' real
 * Postgres, under a chain id of its own (a deployment serves one of two chain ids only).
 */
import pg from 'pg';
import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { registerCollection } from '../../scripts/lib/collections';
import { createGatewayClient } from '../../src/client';
import { COLLECTIONS_MAX, listCollections } from '../../src/collections/collections.service';
import type { Database } from '../../src/storage/db';
import { freshAgent } from '../support/agent';
import { createKey } from '../support/agent-keys';
import { newWallet } from '../support/chain';
import { call, deployment, type Deployment, expectError, type JsonResponse } from '../support/http';
import { login } from '../support/login';
import { oauthTokens } from '../support/oauth';
import type { DeploymentInfo } from '../support/stack-info';

const stack = inject('stack');

interface Collections {
  collections: { address: string; kind: string }[];
  truncated: boolean;
}

const list = (d: DeploymentInfo, token: string | undefined) =>
  call<Collections>(d.baseUrl, '/collections', token === undefined ? {} : { token });

function listed(res: JsonResponse<Collections>): Collections['collections'] {
  expect(res.status, res.text).toBe(200);
  return res.body.collections;
}

/** Strictly ascending by address, as the route promises, and every address EIP-55. */
function expectSortedEip55(collections: Collections['collections']): void {
  const addresses = collections.map((c) => c.address);
  for (const address of addresses) expect(getAddress(address), address).toBe(address);
  const lower = addresses.map((a) => a.toLowerCase());
  expect(lower).toEqual([...lower].sort());
  expect(new Set(lower).size).toBe(lower.length);
}

let pool: pg.Pool;
beforeAll(() => {
  pool = new pg.Pool({ connectionString: stack.databaseUrl, max: 2 });
});
afterAll(async () => {
  await pool.end();
});

describe.each(['mainnet', 'testnet'] as Deployment[])('the collections of %s', (name) => {
  const d = deployment(name);
  const other = deployment(name === 'mainnet' ? 'testnet' : 'mainnet');

  it('lists its dev collection (kind internal), sorted and EIP-55, and not the other chain’s', async () => {
    const res = await list(d, await login(d, newWallet()));
    const collections = listed(res);
    expect(res.body.truncated).toBe(false);
    expect(collections).toContainEqual({ address: getAddress(d.collection), kind: 'internal' });
    expectSortedEip55(collections);
    if (other.collection.toLowerCase() !== d.collection.toLowerCase()) {
      expect(collections.map((c) => c.address)).not.toContain(getAddress(other.collection));
    }
  });

  it('shows a new registration at once, with its kind, in its place by address', async () => {
    const token = await login(d, newWallet());
    // Below and above every random address: the first and the last of the list.
    const low = `0x0000000000000000000000000000000000${Math.floor(Math.random() * 0xffff)
      .toString(16)
      .padStart(6, '0')}`;
    const high = `0xffffffffffffffffffffffffffffffffff${Math.floor(Math.random() * 0xffff)
      .toString(16)
      .padStart(6, '0')}`;
    await registerCollection(stack.databaseUrl, { chainId: d.chainId, address: low, kind: 'expert' });
    await registerCollection(stack.databaseUrl, { chainId: d.chainId, address: high, kind: 'internal' });
    try {
      const collections = listed(await list(d, token));
      expectSortedEip55(collections);
      expect(collections[0]).toEqual({ address: getAddress(low), kind: 'expert' });
      expect(collections.at(-1)).toEqual({ address: getAddress(high), kind: 'internal' });
      // The other deployment does not see them.
      const elsewhere = listed(await list(other, await login(other, newWallet()))).map((c) => c.address);
      expect(elsewhere).not.toContain(getAddress(low));
    } finally {
      await pool.query('delete from gateway.collections where chain_id = $1 and address = any($2::text[])', [d.chainId, [low, high]]);
    }
  });
});

describe('who may list them', () => {
  const testnet = deployment('testnet');

  it('the typed client’s listCollections: the same answer', async () => {
    const wallet = newWallet();
    const token = await login(testnet, wallet);
    const client = createGatewayClient({ baseUrl: testnet.baseUrl, token });
    const answer = await client.listCollections();
    expect(answer.collections).toContainEqual({ address: getAddress(testnet.collection), kind: 'internal' });
    expectSortedEip55(answer.collections);
  });

  it('needs a wallet’s token: none, a bad one or the other chain’s is 401; an agent key 403 key_not_allowed', async () => {
    expectError(await list(testnet, undefined), 401, 'unauthorized');
    expectError(await list(testnet, 'not.a.token'), 401, 'unauthorized');
    expectError(await list(testnet, await login(deployment('mainnet'), newWallet())), 401, 'token_wrong_chain');
    const agent = await freshAgent(testnet);
    const key = await createKey(agent, ['contexts:read']);
    expectError(await list(testnet, key.key), 403, 'key_not_allowed');
  });

  it('an OAuth access token is 401 invalid_token here and on the wallet’s own tokens', async () => {
    const agent = await freshAgent(testnet);
    const { tokens } = await oauthTokens(testnet, agent);
    const res = await list(testnet, tokens.access_token);
    expectError(res, 401, 'invalid_token');
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const owned = await call(testnet.baseUrl, `/wallet/collections/${agent.collection}/tokens`, { token: tokens.access_token });
    expectError(owned, 401, 'invalid_token');
  });
});

describe(`at most ${COLLECTIONS_MAX}`, () => {
  // A chain no deployment serves: this test's rows only.
  const CHAIN = 4_031_337;
  const db = {
    sql: {
      query: async (text: string, values?: unknown[]) => {
        const { rows, rowCount } = await pool.query(text, values);
        return { rows, rowCount };
      },
    },
  } as unknown as Database;

  afterAll(async () => {
    await pool.query('delete from gateway.collections where chain_id = $1', [CHAIN]);
  });

  it(`lists the first ${COLLECTIONS_MAX} by address and says truncated; exactly ${COLLECTIONS_MAX} is not truncated`, async () => {
    const addresses = Array.from({ length: COLLECTIONS_MAX + 1 }, () => newWallet().address);
    const lower = addresses.map((a) => a.toLowerCase()).sort();
    await pool.query(`insert into gateway.collections (chain_id, address, kind) select $1, a, 'internal' from unnest($2::text[]) a`, [
      CHAIN,
      lower,
    ]);
    const full = await listCollections({ db, chainId: CHAIN });
    expect(full.truncated).toBe(true);
    expect(full.collections.map((c) => c.address)).toEqual(lower.slice(0, COLLECTIONS_MAX).map((a) => getAddress(a)));
    await pool.query('delete from gateway.collections where chain_id = $1 and address = $2', [CHAIN, lower.at(-1)]);
    const exact = await listCollections({ db, chainId: CHAIN });
    expect(exact.truncated).toBe(false);
    expect(exact.collections).toHaveLength(COLLECTIONS_MAX);
  });
});
