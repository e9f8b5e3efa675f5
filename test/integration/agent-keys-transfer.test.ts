/**
 * Agent keys and the agent's owner: ownerOf is checked on every keyed request against
 * the wallet that made the key, so a transfer stops the seller's keys at once (403 `not_owner`);
 * such a key is then revoked on sight (`owner_changed`), as are all keys of an earlier owner when
 * the current owner manages keys, so a transfer back does not revive them. And rate limits count
 * per key and per agent (one budget all its keys share), apart from the owner's token.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startMiniflare } from '../../scripts/lib/worker-bundle';
import { freshAgent } from '../support/agent';
import { createKey, eventually, withKey } from '../support/agent-keys';
import { newWallet, transferFreshAgent } from '../support/chain';
import { call, deployment, expectError } from '../support/http';
import { agentPath, login } from '../support/login';
import { closePg, sql } from '../support/pg';
import { earlyInWindow } from '../support/rate-limits';
import { workerBindingsFor } from '../support/worker';

const stack = inject('stack');
const testnet = deployment('testnet');
const revokedReason = async (id: string) =>
  ((await sql(stack.databaseUrl, 'select revoked_reason from "gateway"."agent_keys" where id = $1', [id]))[0]?.revoked_reason ?? null) as
    | string
    | null;

afterAll(closePg);

describe('a transfer of the agent', () => {
  it("stops the seller's key on the next request, revokes it on sight, and a transfer back does not revive it", async () => {
    const agent = await freshAgent(testnet);
    const buyer = newWallet();
    const used = await createKey(agent, ['contexts:read'], { name: 'used after the sale' });
    expect((await withKey(agent, used.key, '/contexts/keys')).status).toBe(200);

    await transferFreshAgent(testnet, agent.owner, buyer.address, agent.tokenId);
    expectError(await withKey(agent, used.key, '/contexts/keys'), 403, 'not_owner');
    await eventually(async () => (await revokedReason(used.id)) === 'owner_changed');

    await transferFreshAgent(testnet, buyer, agent.owner.address, agent.tokenId);
    expectError(await withKey(agent, used.key, '/contexts/keys'), 401, 'key_revoked');
    // The seller, owner again, can make a new one.
    const fresh = await createKey(agent, ['contexts:read']);
    expect((await withKey(agent, fresh.key, '/contexts/keys')).status).toBe(200);
  });

  it('revokes every key of an earlier owner when the new owner manages keys, so none comes back with the agent', async () => {
    const agent = await freshAgent(testnet);
    const buyer = newWallet();
    const idle = await createKey(agent, ['contexts:read'], { name: 'not used during the sale' });
    await transferFreshAgent(testnet, agent.owner, buyer.address, agent.tokenId);
    const buyerToken = await login(testnet, buyer);
    const buyerList = await call(testnet.baseUrl, agentPath(agent.collection, agent.tokenId, '/keys'), { token: buyerToken });
    expect(buyerList.status, buyerList.text).toBe(200);
    expect(buyerList.body).toEqual({ keys: [] });
    expect(await revokedReason(idle.id)).toBe('owner_changed');
    // The seller's token is refused as the key is.
    expectError(await agent.call('/keys'), 403, 'not_owner');

    await transferFreshAgent(testnet, buyer, agent.owner.address, agent.tokenId);
    expectError(await withKey(agent, idle.key, '/contexts/keys'), 401, 'key_revoked');
  });

  it('known gap, pinned: a key nobody presented while another wallet owned the agent, whose owner never managed keys, works again after a transfer back', async () => {
    const agent = await freshAgent(testnet);
    const buyer = newWallet();
    const idle = await createKey(agent, ['contexts:read']);
    await transferFreshAgent(testnet, agent.owner, buyer.address, agent.tokenId);
    await transferFreshAgent(testnet, buyer, agent.owner.address, agent.tokenId);
    // ownerOf cannot tell "never sold" from "sold and bought back"; SECURITY.md says so.
    expect((await withKey(agent, idle.key, '/contexts/keys')).status).toBe(200);
  });
});

describe('rate limits per key (agent routes limited to 5 a minute)', () => {
  let worker: Awaited<ReturnType<typeof startMiniflare>>;
  beforeAll(async () => {
    worker = await startMiniflare({
      scriptPath: stack.scriptPath,
      deployment: 'testnet',
      bindings: workerBindingsFor(stack),
      limits: { AGENT_RATE_LIMITER: 5 },
    });
  });
  afterAll(async () => {
    await worker?.dispose();
  });

  it("counts each key on its own budget and on the agent's, which its other keys share; the owner's token is apart", async () => {
    const agent = await freshAgent(testnet);
    const [first, second] = [await createKey(agent, ['contexts:read']), await createKey(agent, ['contexts:read'])];
    const path = agentPath(agent.collection, agent.tokenId, '/contexts/keys');
    await earlyInWindow();
    for (let i = 0; i < 5; i++) expect((await call(worker.url, path, { token: first.key })).status, `request ${i}`).toBe(200);
    const limited = await call(worker.url, path, { token: first.key });
    expectError(limited, 429, 'rate_limited');
    expect(limited.headers.get('retry-after')).toBe('60');
    // The agent's budget is the same 5: the first key spent it for every key of the agent.
    expectError(await call(worker.url, path, { token: second.key }), 429, 'rate_limited');
    expect((await call(worker.url, path, { token: agent.token })).status).toBe(200);
  });
});
