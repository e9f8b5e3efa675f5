/**
 * GET /wallet/collections/{c}/tokens, its `delegated` list, against workerd + anvil with our
 * stand-in of delegate.xyz v2's registry at its canonical address: a cold wallet holds the agents
 * and delegates to a hot one (one token, the collection, or everything; rights zero or the
 * gateway's own right), and the hot wallet's listing names them with their owner. A revoked
 * delegation, a sold token, another app's right or another collection's delegation list nothing;
 * the list stops at 100 and costs two more batched calls (Multicall3);
 * a chain without the registry, or one that reverts, lists none and keeps the owned list (on a
 * fork, so the shared chain keeps its registry).
 */
import { type Address, getAddress, stringToHex } from 'viem';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { registerCollection } from '../../scripts/lib/collections';
import { deployPlainAgents } from '../../scripts/lib/contracts';
import { startMiniflare } from '../../scripts/lib/worker-bundle';
import { fundedWallet, mintAgents, mintFreshAgent, newWallet, type TestAccount, transferFreshAgent } from '../support/chain';
import {
  AGENT_GATEWAY_RIGHT,
  breakRegistry,
  delegateAll,
  delegateContract,
  delegateERC721,
  type ForkedChain,
  forkChain,
  revokeAll,
  revokeContract,
  revokeERC721,
} from '../support/delegation';
import { call, deployment, type JsonResponse } from '../support/http';
import { countingProxy } from '../support/rpc-proxy';
import { login } from '../support/login';
import type { DeploymentInfo } from '../support/stack-info';
import { workerBindingsFor } from '../support/worker';

const stack = inject('stack');
const OTHER_RIGHT = stringToHex('some-other-app', { size: 32 });

interface Listing {
  collection: string;
  owner: string;
  enumerable: boolean;
  tokens: { tokenId: string }[];
  truncated: boolean;
  delegated: { tokenId: string; owner: string }[];
  delegatedTruncated: boolean;
}

async function listing(d: DeploymentInfo, token: string, collection = d.collection): Promise<Listing> {
  const res: JsonResponse<Listing> = await call<Listing>(d.baseUrl, `/wallet/collections/${collection}/tokens`, { token });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

const entries = (owner: Address, ids: bigint[]) =>
  [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map((id) => ({ tokenId: id.toString(), owner: getAddress(owner) }));

/** A cold wallet with gas (it signs delegations) and a fresh hot wallet logged in. */
async function coldAndHot(d: DeploymentInfo): Promise<{ cold: TestAccount; hot: TestAccount; hotToken: string }> {
  const cold = await fundedWallet(d.rpcUrl);
  const hot = newWallet();
  return { cold, hot, hotToken: await login(d, hot) };
}

describe('the agents a hot wallet may use as a delegate (testnet, no Multicall3)', () => {
  const d = deployment('testnet');

  it('a token-level delegation lists that token with its owner, until revoked or sold', async () => {
    const { cold, hot, hotToken } = await coldAndHot(d);
    const [first, second] = await mintAgents(d, cold.address, 2);
    const own = await mintFreshAgent(d, hot.address);
    await delegateERC721(d, cold, hot.address, d.collection as Address, first as bigint);
    const body = await listing(d, hotToken);
    expect(body).toMatchObject({ owner: hot.address, tokens: [{ tokenId: own.toString() }], truncated: false, delegatedTruncated: false });
    expect(body.delegated).toEqual(entries(cold.address, [first as bigint]));

    await revokeERC721(d, cold, hot.address, d.collection as Address, first as bigint);
    expect((await listing(d, hotToken)).delegated).toEqual([]);

    // Delegated again, then sold: the buyer did not delegate, so it is gone.
    await delegateERC721(d, cold, hot.address, d.collection as Address, second as bigint);
    expect((await listing(d, hotToken)).delegated).toEqual(entries(cold.address, [second as bigint]));
    await transferFreshAgent(d, cold, newWallet().address, second as bigint);
    expect((await listing(d, hotToken)).delegated).toEqual([]);
  });

  it('a collection-wide delegation lists the delegator’s tokens of that collection, not of another', async () => {
    const { cold, hot, hotToken } = await coldAndHot(d);
    const minted = await mintAgents(d, cold.address, 3);
    await delegateContract(d, cold, hot.address, d.collection as Address);
    expect((await listing(d, hotToken)).delegated).toEqual(entries(cold.address, minted));
    await revokeContract(d, cold, hot.address, d.collection as Address);
    expect((await listing(d, hotToken)).delegated).toEqual([]);

    await delegateContract(d, cold, hot.address, newWallet().address);
    expect((await listing(d, hotToken)).delegated).toEqual([]);
  });

  it('a wallet-wide delegation lists the delegator’s tokens; two delegators are listed together, by token id', async () => {
    const { cold, hot, hotToken } = await coldAndHot(d);
    const other = await fundedWallet(d.rpcUrl);
    const [coldIds, otherIds] = await Promise.all([mintAgents(d, cold.address, 2), mintAgents(d, other.address, 1)]);
    await delegateAll(d, cold, hot.address);
    await delegateERC721(d, other, hot.address, d.collection as Address, otherIds[0] as bigint);
    // A token-level delegation beside the wallet-wide one: listed once.
    await delegateERC721(d, cold, hot.address, d.collection as Address, coldIds[0] as bigint);
    const expected = [...entries(cold.address, coldIds), ...entries(other.address, otherIds)].sort((a, b) =>
      BigInt(a.tokenId) < BigInt(b.tokenId) ? -1 : 1,
    );
    expect((await listing(d, hotToken)).delegated).toEqual(expected);
    await revokeAll(d, cold, hot.address);
    expect((await listing(d, hotToken)).delegated).toEqual(
      [...entries(cold.address, [coldIds[0] as bigint]), ...entries(other.address, otherIds)].sort((a, b) =>
        BigInt(a.tokenId) < BigInt(b.tokenId) ? -1 : 1,
      ),
    );
  });

  it('counts rights zero and the gateway’s own right, not another app’s right', async () => {
    const { cold, hot, hotToken } = await coldAndHot(d);
    const [mine, theirs] = await mintAgents(d, cold.address, 2);
    await delegateERC721(d, cold, hot.address, d.collection as Address, mine as bigint, AGENT_GATEWAY_RIGHT);
    await delegateERC721(d, cold, hot.address, d.collection as Address, theirs as bigint, OTHER_RIGHT);
    expect((await listing(d, hotToken)).delegated).toEqual(entries(cold.address, [mine as bigint]));
  });

  it('a collection that is not Enumerable: a token-level delegation is listed, a wide one says delegatedTruncated', async () => {
    const { cold, hot, hotToken } = await coldAndHot(d);
    const plain = await deployPlainAgents(d.rpcUrl, (await fundedWallet(d.rpcUrl)).privateKey);
    await registerCollection(stack.databaseUrl, { chainId: d.chainId, address: plain, kind: 'internal' });
    const [named] = await Promise.all([mintFreshAgent(d, cold.address, plain), mintFreshAgent(d, cold.address, plain)]);
    await delegateERC721(d, cold, hot.address, plain, named);
    const body = await listing(d, hotToken, plain);
    expect(body).toMatchObject({ enumerable: false, tokens: [], delegatedTruncated: false });
    expect(body.delegated).toEqual(entries(cold.address, [named]));
    await delegateContract(d, cold, hot.address, plain);
    expect(await listing(d, hotToken, plain)).toMatchObject({ delegated: entries(cold.address, [named]), delegatedTruncated: true });
  });
});

describe('on mainnet (Multicall3)', () => {
  const d = deployment('mainnet');
  const proxies: Awaited<ReturnType<typeof countingProxy>>[] = [];
  const workers: Awaited<ReturnType<typeof startMiniflare>>[] = [];
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.dispose()));
    await Promise.all(proxies.map((p) => p.close()));
  });

  it('costs two more batched calls with delegations: the owners and balances, then the delegators’ indexes', async () => {
    const proxy = await countingProxy(d.rpcUrl);
    proxies.push(proxy);
    const worker = await startMiniflare({
      scriptPath: stack.scriptPath,
      deployment: 'mainnet',
      bindings: { ...workerBindingsFor(stack), CHAIN_ID: String(d.chainId), RPC_URL: proxy.url },
    });
    workers.push(worker);
    const here = { ...d, baseUrl: worker.url };
    const { cold, hot, hotToken } = await coldAndHot(here);
    const other = await fundedWallet(d.rpcUrl);
    const [coldIds, [named]] = await Promise.all([mintAgents(d, cold.address, 3), mintAgents(d, other.address, 1)]);
    await delegateContract(d, cold, hot.address, d.collection as Address);
    await delegateERC721(d, other, hot.address, d.collection as Address, named as bigint);
    expect((await listing(here, hotToken)).delegated).toHaveLength(coldIds.length + 1);
    proxy.counts.clear();
    expect((await listing(here, hotToken)).delegated).toHaveLength(coldIds.length + 1);
    // supportsInterface twice, balanceOf, the registry; the hot wallet holds none (no index read);
    // then ownerOf and balanceOf in one aggregate3, the cold wallet's three indexes in another.
    expect(Object.fromEntries(proxy.counts)).toEqual({ eth_call: 6 });
  }, 60_000);

  it('stops at 100 delegated tokens and says so', async () => {
    const { cold, hot, hotToken } = await coldAndHot(d);
    await mintAgents(d, cold.address, 101);
    await delegateAll(d, cold, hot.address);
    const body = await listing(d, hotToken);
    expect(body.delegated).toHaveLength(100);
    expect(new Set(body.delegated.map((t) => t.tokenId)).size).toBe(100);
    expect(body.delegatedTruncated).toBe(true);
  }, 60_000);

  it('lists token-level and collection-wide delegations the same way', async () => {
    const { cold, hot, hotToken } = await coldAndHot(d);
    const other = await fundedWallet(d.rpcUrl);
    const [coldIds, [named]] = await Promise.all([mintAgents(d, cold.address, 2), mintAgents(d, other.address, 1)]);
    await delegateContract(d, cold, hot.address, d.collection as Address);
    await delegateERC721(d, other, hot.address, d.collection as Address, named as bigint);
    const expected = [...entries(cold.address, coldIds), ...entries(other.address, [named as bigint])].sort((a, b) =>
      BigInt(a.tokenId) < BigInt(b.tokenId) ? -1 : 1,
    );
    expect((await listing(d, hotToken)).delegated).toEqual(expected);
  });
});

describe('a chain without the registry, or with one that reverts (on a fork of testnet)', () => {
  let fork: ForkedChain;
  let worker: Awaited<ReturnType<typeof startMiniflare>>;
  let here: DeploymentInfo;

  beforeAll(async () => {
    fork = await forkChain(stack.testnet);
    worker = await startMiniflare({
      scriptPath: stack.scriptPath,
      deployment: 'testnet',
      bindings: { ...workerBindingsFor(stack), RPC_URL: fork.rpcUrl },
    });
    here = { ...fork, baseUrl: worker.url };
  }, 120_000);

  afterAll(async () => {
    await worker?.dispose();
    await fork?.stop();
  });

  it.each(['absent', 'revert'] as const)(
    'registry %s: 200, no delegated agents, the owned list unchanged',
    async (how) => {
      const { cold, hot, hotToken } = await coldAndHot(here);
      const [own, lent] = await Promise.all([mintFreshAgent(here, hot.address), mintFreshAgent(here, cold.address)]);
      await delegateERC721(here, cold, hot.address, here.collection as Address, lent);
      expect((await listing(here, hotToken)).delegated).toEqual(entries(cold.address, [lent]));
      const restore = await breakRegistry(here, how);
      try {
        const body = await listing(here, hotToken);
        expect(body).toMatchObject({ tokens: [{ tokenId: own.toString() }], truncated: false, delegated: [], delegatedTruncated: false });
      } finally {
        await restore();
      }
      expect((await listing(here, hotToken)).delegated).toEqual(entries(cold.address, [lent]));
    },
    60_000,
  );
});
