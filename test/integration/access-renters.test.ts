/**
 * Who may use an agent besides its owner, part two: renters (ERC-4907, the rentable demo
 * collection) and faults. A renter is let in as `renter` while the rental runs by the chain's time
 * (moved on a private fork of the chain), never beyond `use`, and not at all under `none`; an
 * absurd expiry is no rental. A collection that lies about ERC-4907 and a delegate registry that
 * reverts or is absent never lock the owner out: only the delegates and renters lose their way in.
 */
import { startMiniflare } from '../../scripts/lib/worker-bundle';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freshAgent, type TestAgent } from '../support/agent';
import { newWallet, type TestAccount } from '../support/chain';
import {
  advanceChainTime,
  breakRegistry,
  chainTime,
  delegateERC721,
  deployLyingCollection,
  type ForkedChain,
  forkChain,
  rent,
} from '../support/delegation';
import { call, deployment, expectError, type JsonResponse } from '../support/http';
import { agentPath, login } from '../support/login';
import { closePg } from '../support/pg';
import type { DeploymentInfo } from '../support/stack-info';
import { workerBindingsFor } from '../support/worker';

const stack = inject('stack');
const testnet = deployment('testnet');
const DAY = 86_400n;
const settings = { provider: 'openai', model: 'gpt-4.1-mini', temperature: 0.3, maxTokens: 4096 };
let fork: ForkedChain;
let forkWorker: Awaited<ReturnType<typeof startMiniflare>>;
let onFork: DeploymentInfo;

beforeAll(async () => {
  fork = await forkChain(testnet);
  forkWorker = await startMiniflare({
    scriptPath: stack.scriptPath,
    deployment: 'testnet',
    bindings: { ...workerBindingsFor(stack), RPC_URL: fork.rpcUrl },
  });
  onFork = { ...fork, baseUrl: forkWorker.url };
});

afterAll(async () => {
  await forkWorker?.dispose();
  await Promise.all([fork?.stop(), closePg()]);
});

/** A fresh agent of `collection` on `chain` (the rentable collection by default), and a logged-in stranger. */
async function setup(
  chain: DeploymentInfo,
  collection = chain.rentableCollection,
): Promise<{ agent: TestAgent; other: TestAccount; token: string }> {
  const other = newWallet();
  const [agent, token] = await Promise.all([freshAgent(chain, { collection }), login(chain, other)]);
  return { agent, other, token };
}

const as = <T = any>(token: string, agent: TestAgent, rest: string): Promise<JsonResponse<T>> =>
  call(agent.deployment.baseUrl, agentPath(agent.collection, agent.tokenId, rest), { token });

const collectionOf = (agent: TestAgent) => agent.collection as `0x${string}`;

describe('renters (ERC-4907)', () => {
  it('the user is let in as `renter` while the rental runs, for `use` only', async () => {
    const { agent, other, token } = await setup(testnet);
    expectError(await as(token, agent, ''), 403, 'not_owner');
    await rent(testnet, agent.owner, collectionOf(agent), agent.tokenId, other.address, (await chainTime(testnet)) + DAY);
    const res = await as(token, agent, '');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ role: 'renter', owner: agent.owner.address });
    expect((await as(token, agent, '/contexts/keys')).status).toBe(200);
    expectError(await as(token, agent, '/llm/settings'), 403, 'not_owner');
    expectError(await as(token, agent, '/keys'), 403, 'not_owner');
  });

  it('none: the owner can shut renters out', async () => {
    const { agent, other, token } = await setup(testnet);
    await rent(testnet, agent.owner, collectionOf(agent), agent.tokenId, other.address, (await chainTime(testnet)) + DAY);
    const saved = await agent.call('/llm/settings', {
      method: 'POST',
      json: { ...settings, access: { delegates: 'use', renters: 'none' } },
    });
    expect(saved.status, saved.text).toBe(200);
    expectError(await as(token, agent, ''), 403, 'not_owner');
    // A save that leaves `access` out keeps it.
    expect((await agent.call('/llm/settings', { method: 'POST', json: settings })).body.access).toEqual({
      delegates: 'use',
      renters: 'none',
    });
    expectError(await as(token, agent, ''), 403, 'not_owner');
  });

  it("an ended rental (the chain's time moved past it) stops the renter on the next request", async () => {
    const { agent, other, token } = await setup(onFork);
    await rent(onFork, agent.owner, collectionOf(agent), agent.tokenId, other.address, (await chainTime(onFork)) + 600n);
    expect((await as(token, agent, '')).body.role).toBe('renter');
    await advanceChainTime(onFork, 601);
    expectError(await as(token, agent, ''), 403, 'not_owner');
    expect((await agent.call('')).status).toBe(200);
  });

  it('an absurd expiry (centuries away) is no rental', async () => {
    const { agent, other, token } = await setup(testnet);
    await rent(testnet, agent.owner, collectionOf(agent), agent.tokenId, other.address, (await chainTime(testnet)) + 200n * 366n * DAY);
    expectError(await as(token, agent, ''), 403, 'not_owner');
  });

  it('the token of a collection without ERC-4907 has no renter, the owner unaffected', async () => {
    const { agent, token } = await setup(testnet, testnet.collection);
    expectError(await as(token, agent, ''), 403, 'not_owner');
    expect((await agent.call('')).body.role).toBe('owner');
  });
});

describe('faults never lock the owner out', () => {
  it('a collection that claims ERC-4907 and reverts its reads: the owner gets in, a stranger does not', async () => {
    const lying = await deployLyingCollection(testnet, stack.databaseUrl);
    const { agent, token } = await setup(testnet, lying);
    const res = await agent.call('');
    expect(res.status, res.text).toBe(200);
    expect(res.body.role).toBe('owner');
    expectError(await as(token, agent, ''), 403, 'not_owner');
  });

  it.each(['revert', 'absent'] as const)('a registry that is %s: the owner gets in, the delegate waits until it is back', async (how) => {
    const { agent, other, token } = await setup(onFork, onFork.collection);
    await delegateERC721(onFork, agent.owner, other.address, collectionOf(agent), agent.tokenId);
    expect((await as(token, agent, '')).body.role).toBe('delegate');
    const restore = await breakRegistry(onFork, how);
    try {
      const owner = await agent.call('');
      expect(owner.status, owner.text).toBe(200);
      expect(owner.body.role).toBe('owner');
      expectError(await as(token, agent, ''), 403, 'not_owner');
    } finally {
      await restore();
    }
    expect((await as(token, agent, '')).body.role).toBe('delegate');
  });

  it('a renter and a delegate of a token that does not exist: 404, as for anyone', async () => {
    const { agent, token } = await setup(testnet);
    const missing = { ...agent, tokenId: agent.tokenId + 1_000_000n };
    expectError(await as(token, missing, ''), 404, 'agent_not_found');
  });
});
