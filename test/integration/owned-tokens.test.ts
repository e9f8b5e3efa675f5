/**
 * GET /wallet/collections/{c}/tokens against workerd + anvil: the wallet's own tokens of a
 * registered ERC-721 Enumerable collection, read on-chain on every request. The mainnet dev chain
 * has Multicall3 (one batched eth_call), the testnet one has none (parallel calls): both run.
 */
import { createPublicClient, getAddress, http } from 'viem';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { registerCollection } from '../../scripts/lib/collections';
import { deployPlainAgents, MULTICALL3_ADDRESS } from '../../scripts/lib/contracts';
import { startMiniflare } from '../../scripts/lib/worker-bundle';
import { freshAgent } from '../support/agent';
import { createKey } from '../support/agent-keys';
import { deploySmartWallet, fundedWallet, mintAgents, mintFreshAgent, newWallet, transferFreshAgent } from '../support/chain';
import { call, deployment, type Deployment, expectError, type JsonResponse } from '../support/http';
import { agentPath, login } from '../support/login';
import { earlyInWindow } from '../support/rate-limits';
import { countingProxy, startRpcProxy, type RpcProxy } from '../support/rpc-proxy';
import type { DeploymentInfo } from '../support/stack-info';
import { workerBindingsFor } from '../support/worker';

const stack = inject('stack');

interface OwnedTokens {
  collection: string;
  owner: string;
  enumerable: boolean;
  tokens: { tokenId: string }[];
  truncated: boolean;
}

const ownedPath = (collection: string) => `/wallet/collections/${collection}/tokens`;

function owned(d: DeploymentInfo, token: string | undefined, collection = d.collection, baseUrl = d.baseUrl) {
  return call<OwnedTokens>(baseUrl, ownedPath(collection), token === undefined ? {} : { token });
}

function ids(res: JsonResponse<OwnedTokens>): string[] {
  expect(res.status, res.text).toBe(200);
  return res.body.tokens.map((t) => t.tokenId);
}

const ascending = (values: bigint[]) => [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map(String);

describe.each(['mainnet', 'testnet'] as Deployment[])('the wallet’s own tokens on %s', (name) => {
  const d = deployment(name);

  it(`${name === 'mainnet' ? 'has' : 'has no'} Multicall3 on its dev chain`, async () => {
    const code = await createPublicClient({ transport: http(d.rpcUrl) }).getCode({ address: MULTICALL3_ADDRESS });
    expect(code !== undefined && code !== '0x').toBe(name === 'mainnet');
  });

  it('lists exactly the caller’s tokens after mints to two wallets, and follows a transfer', async () => {
    const alice = newWallet();
    const bob = newWallet();
    const [aliceIds, bobIds, aliceToken, bobToken] = await Promise.all([
      mintAgents(d, alice.address, 3),
      mintAgents(d, bob.address, 2),
      login(d, alice),
      login(d, bob),
    ]);
    const mine = await owned(d, aliceToken);
    expect(mine.body).toEqual({
      collection: getAddress(d.collection),
      owner: alice.address,
      enumerable: true,
      tokens: ascending(aliceIds).map((tokenId) => ({ tokenId })),
      truncated: false,
      delegated: [],
      delegatedTruncated: false,
    });
    expect(ids(await owned(d, bobToken))).toEqual(ascending(bobIds));

    // Alice sends her first token to Bob: both lists change at once (nothing is cached).
    const moved = aliceIds[0] as bigint;
    await transferFreshAgent(d, alice, bob.address, moved);
    expect(ids(await owned(d, aliceToken))).toEqual(ascending(aliceIds.slice(1)));
    expect(ids(await owned(d, bobToken))).toEqual(ascending([...bobIds, moved]));
    // A lower-case collection address is the same collection.
    expect(ids(await owned(d, bobToken, d.collection.toLowerCase()))).toEqual(ascending([...bobIds, moved]));
  });

  it('answers an empty list to a wallet without a token', async () => {
    const nobody = newWallet();
    const res = await owned(d, await login(d, nobody));
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ owner: nobody.address, enumerable: true, tokens: [], truncated: false });
  });

  it('stops at 100 tokens and says so', async () => {
    const whale = newWallet();
    const [minted, token] = await Promise.all([mintAgents(d, whale.address, 101), login(d, whale)]);
    const res = await owned(d, token);
    const listed = ids(res);
    expect(res.body.truncated).toBe(true);
    expect(listed).toHaveLength(100);
    expect(new Set(listed).size).toBe(100);
    const all = new Set(minted.map(String));
    for (const id of listed) expect(all.has(id), id).toBe(true);
  }, 60_000);
});

describe('collections the list cannot serve', () => {
  const testnet = deployment('testnet');
  let token: string;
  const holder = newWallet();

  beforeAll(async () => {
    token = await login(testnet, holder);
  });

  it('a registered collection without ERC-721 Enumerable: 200, enumerable false, no tokens', async () => {
    const minter = await fundedWallet(testnet.rpcUrl);
    const plain = await deployPlainAgents(testnet.rpcUrl, minter.privateKey);
    await registerCollection(stack.databaseUrl, { chainId: testnet.chainId, address: plain, kind: 'internal' });
    await mintFreshAgent(testnet, holder.address, plain);
    const res = await owned(testnet, token, plain);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      collection: plain,
      owner: holder.address,
      enumerable: false,
      tokens: [],
      truncated: false,
      delegated: [],
      delegatedTruncated: false,
    });
  });

  it('a bad address is 400 validation_failed', async () => {
    expectError(await owned(testnet, token, '0x1234'), 400, 'validation_failed');
    const mixed = `0x${getAddress(testnet.collection)
      .slice(2)
      .replace(/[a-f]/, (c) => c.toUpperCase())}`;
    if (mixed !== getAddress(testnet.collection)) expectError(await owned(testnet, token, mixed), 400, 'validation_failed');
  });

  it('an unregistered collection, a registered address without code and a contract that is not ERC-721 are 404 collection_not_found', async () => {
    expectError(await owned(testnet, token, newWallet().address), 404, 'collection_not_found');
    // The other deployment's collection is not this one's.
    const mainnet = deployment('mainnet');
    if (mainnet.collection.toLowerCase() !== testnet.collection.toLowerCase()) {
      expectError(await owned(testnet, token, mainnet.collection), 404, 'collection_not_found');
    }
    const empty = newWallet().address;
    await registerCollection(stack.databaseUrl, { chainId: testnet.chainId, address: empty, kind: 'internal' });
    expectError(await owned(testnet, token, empty), 404, 'collection_not_found');
    // TestWallet1271 answers ERC-165: an ERC-1271 wallet, not an ERC-721.
    const wallet = await deploySmartWallet(testnet, holder.address);
    await registerCollection(stack.databaseUrl, { chainId: testnet.chainId, address: wallet, kind: 'internal' });
    const notNft = await owned(testnet, token, wallet);
    expectError(notNft, 404, 'collection_not_found');
    expect((notNft.body as unknown as { error: { message: string } }).error.message).toContain('not an ERC-721');
  });

  it('needs the wallet’s token: none is 401, a token of the other chain 401, an agent key 403 key_not_allowed', async () => {
    expectError(await owned(testnet, undefined), 401, 'unauthorized');
    expectError(await owned(testnet, 'not.a.token'), 401, 'unauthorized');
    const mainnetToken = await login(deployment('mainnet'), holder);
    expectError(await owned(testnet, mainnetToken), 401, 'token_wrong_chain');
    const agent = await freshAgent(testnet);
    const key = await createKey(agent, ['contexts:read']);
    expectError(await owned(testnet, key.key), 403, 'key_not_allowed');
  });
});

describe('an RPC outage', () => {
  let proxy: RpcProxy;
  let worker: Awaited<ReturnType<typeof startMiniflare>>;

  beforeAll(async () => {
    proxy = await startRpcProxy(stack.testnet.rpcUrl);
    worker = await startMiniflare({
      scriptPath: stack.scriptPath,
      deployment: 'testnet',
      bindings: { ...workerBindingsFor(stack), RPC_URL: proxy.url, RPC_TIMEOUT_MS: '1000' },
    });
  }, 60_000);

  afterAll(async () => {
    await worker?.dispose();
    await proxy?.close();
  });

  it('is 503 dependency_unavailable with Retry-After, and the list is back with the RPC', async () => {
    const testnet = { ...deployment('testnet'), baseUrl: worker.url };
    const holder = newWallet();
    const [tokenId, token] = await Promise.all([mintFreshAgent(testnet, holder.address), login(testnet, holder)]);
    proxy.setUp(false);
    try {
      const res = await owned(testnet, token);
      expectError(res, 503, 'dependency_unavailable');
      expect(res.headers.get('retry-after')).toBe('5');
    } finally {
      proxy.setUp(true);
    }
    expect(ids(await owned(testnet, token))).toEqual([tokenId.toString()]);
  });
});

describe('the chain calls one list costs', () => {
  const proxies: Awaited<ReturnType<typeof countingProxy>>[] = [];
  const workers: Awaited<ReturnType<typeof startMiniflare>>[] = [];

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.dispose()));
    await Promise.all(proxies.map((p) => p.close()));
  });

  it.each([
    ['mainnet', 1] as const, // Multicall3: one aggregate3 call for every index
    ['testnet', 5] as const, // none: one call per index
  ])(
    'on %s: four reads, then %i for five tokens; Multicall3 is looked up once per isolate',
    async (name, indexCalls) => {
      const d = deployment(name);
      const proxy = await countingProxy(d.rpcUrl);
      proxies.push(proxy);
      const worker = await startMiniflare({
        scriptPath: stack.scriptPath,
        deployment: name,
        bindings: { ...workerBindingsFor(stack), CHAIN_ID: String(d.chainId), RPC_URL: proxy.url },
      });
      workers.push(worker);
      const here = { ...d, baseUrl: worker.url };
      const holder = newWallet();
      const [minted, token] = await Promise.all([mintAgents(d, holder.address, 5), login(here, holder)]);
      proxy.counts.clear();
      expect(ids(await owned(here, token))).toEqual(ascending(minted));
      // supportsInterface twice, balanceOf and the delegations to the wallet (none), then the indexes;
      // the code at Multicall3's address once.
      expect(Object.fromEntries(proxy.counts)).toEqual({ eth_call: 4 + indexCalls, eth_getCode: 1 });
      proxy.counts.clear();
      expect(ids(await owned(here, token))).toEqual(ascending(minted));
      expect(Object.fromEntries(proxy.counts)).toEqual({ eth_call: 4 + indexCalls });
    },
    60_000,
  );
});

describe('on a deployment with a low agent limit (3 a minute)', () => {
  let worker: Awaited<ReturnType<typeof startMiniflare>>;
  beforeAll(async () => {
    worker = await startMiniflare({
      scriptPath: stack.scriptPath,
      deployment: 'testnet',
      bindings: workerBindingsFor(stack),
      limits: { AGENT_RATE_LIMITER: 3 },
    });
  }, 60_000);
  afterAll(async () => {
    await worker?.dispose();
  });

  it('counts the list in the wallet’s budget of the agent routes: 429 rate_limited with Retry-After', async () => {
    const testnet = deployment('testnet');
    const agent = await freshAgent(testnet);
    await earlyInWindow();
    expect((await call(worker.url, agentPath(agent.collection, agent.tokenId), { token: agent.token })).status).toBe(200);
    for (let i = 0; i < 2; i++)
      expect(ids(await owned(testnet, agent.token, testnet.collection, worker.url))).toEqual([String(agent.tokenId)]);
    const limited = await owned(testnet, agent.token, testnet.collection, worker.url);
    expectError(limited, 429, 'rate_limited');
    expect(limited.headers.get('retry-after')).toBe('60');
    expectError(await call(worker.url, agentPath(agent.collection, agent.tokenId), { token: agent.token }), 429, 'rate_limited');
  });
});
