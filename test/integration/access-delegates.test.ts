/**
 * Who may use an agent besides its owner, part one: delegates (delegate.xyz v2, our stand-in at the
 * registry's address on the harness's chain). Each kind of delegation (wallet, collection, token)
 * with full rights or the gateway's own right lets the delegate in; another right, a revocation or
 * a delegation from an earlier owner does not. What a delegate may do is the owner's `access`
 * choice (none, use, admin) by route; secrets are never shown; `access` stays the owner's; a reply
 * runs on the owner's model key, and usage and audit name the delegate; a key a delegate made
 * serves only while its maker is a delegate. A renter's reply runs on the owner's key as well.
 */
import { stringToHex } from 'viem';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type StandinLlm, startStandinLlm } from '../../scripts/lib/standin-llm';
import { createKey, withKey } from '../support/agent-keys';
import { mcpRpc, mcpUrl } from '../support/agent-mcp';
import { newWallet, type TestAccount, transferFreshAgent } from '../support/chain';
import {
  AGENT_GATEWAY_RIGHT,
  chainTime,
  delegateAll,
  delegateContract,
  delegateERC721,
  rent,
  revokeAll,
  revokeERC721,
} from '../support/delegation';
import { call, expectError, type JsonResponse } from '../support/http';
import { agentPath, login } from '../support/login';
import { closePg } from '../support/pg';
import { LLM_BASE_URL, replyAgent, replyWorker, startSwitchableTools } from '../support/replies';
import { freshAgent } from '../support/agent';
import { toolServerUrl } from '../support/tool-routing';
import type { DeploymentInfo } from '../support/stack-info';

const stack = inject('stack');
const API_KEY = `sk-standin-${crypto.randomUUID()}`;
const OTHER_RIGHT = stringToHex('some-other-app', { size: 32 });
let llm: StandinLlm;
let tools: Awaited<ReturnType<typeof startSwitchableTools>>;
let worker: Awaited<ReturnType<typeof replyWorker>>;
let chain: DeploymentInfo;

beforeAll(async () => {
  [llm, tools] = await Promise.all([startStandinLlm({ apiKey: API_KEY }), startSwitchableTools()]);
  worker = await replyWorker(stack, llm, { tools: tools.url });
  chain = worker.deployment;
});

afterAll(async () => {
  await worker?.dispose();
  await Promise.all([llm?.close(), tools?.close(), closePg()]);
});

type Agent = Awaited<ReturnType<typeof replyAgent>>;

/** A fresh agent with LLM settings on the stand-in (the owner's key) and a logged-in stranger. */
async function setup(): Promise<{ agent: Agent; other: TestAccount; token: string }> {
  const other = newWallet();
  const [agent, token] = await Promise.all([replyAgent(chain, API_KEY), login(chain, other)]);
  return { agent, other, token };
}

const as = <T = any>(
  token: string,
  agent: { collection: string; tokenId: bigint },
  rest: string,
  init: Parameters<typeof call>[2] = {},
): Promise<JsonResponse<T>> => call(chain.baseUrl, agentPath(agent.collection, agent.tokenId, rest), { token, ...init });

const setAccess = async (agent: Agent, access: { delegates: string; renters: string }) => {
  const current = await agent.call('/llm/settings');
  const { provider, model, temperature, maxTokens, baseUrl } = current.body;
  const saved = await agent.call('/llm/settings', { method: 'POST', json: { provider, model, temperature, maxTokens, baseUrl, access } });
  expect(saved.status, saved.text).toBe(200);
  expect(saved.body.access).toEqual(access);
};

describe('each kind of delegation and its rights', () => {
  it.each([
    ['the wallet (all)', 'all', '0x0000000000000000000000000000000000000000000000000000000000000000'],
    ['the collection', 'contract', '0x0000000000000000000000000000000000000000000000000000000000000000'],
    ['the token', 'token', '0x0000000000000000000000000000000000000000000000000000000000000000'],
    ["the token, the gateway's own right", 'token', AGENT_GATEWAY_RIGHT],
    ["the wallet, the gateway's own right", 'all', AGENT_GATEWAY_RIGHT],
  ] as const)('a delegation for %s lets the delegate in as `delegate`', async (_name, kind, rights) => {
    const { agent, other, token } = await setup();
    expectError(await as(token, agent, ''), 403, 'not_owner');
    const collection = agent.collection as `0x${string}`;
    if (kind === 'all') await delegateAll(chain, agent.owner, other.address, rights);
    else if (kind === 'contract') await delegateContract(chain, agent.owner, other.address, collection, rights);
    else await delegateERC721(chain, agent.owner, other.address, collection, agent.tokenId, rights);
    const res = await as(token, agent, '');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ role: 'delegate', owner: agent.owner.address });
    expect((await agent.call('')).body.role).toBe('owner');
  });

  it('another right is not ours: 403 not_owner', async () => {
    const { agent, other, token } = await setup();
    await delegateERC721(chain, agent.owner, other.address, agent.collection as `0x${string}`, agent.tokenId, OTHER_RIGHT);
    expectError(await as(token, agent, ''), 403, 'not_owner');
  });

  it('a revoked delegation stops the delegate on the next request', async () => {
    const { agent, other, token } = await setup();
    const collection = agent.collection as `0x${string}`;
    await delegateERC721(chain, agent.owner, other.address, collection, agent.tokenId);
    expect((await as(token, agent, '/contexts/keys')).status).toBe(200);
    await revokeERC721(chain, agent.owner, other.address, collection, agent.tokenId);
    expectError(await as(token, agent, '/contexts/keys'), 403, 'not_owner');
  });

  it("an earlier owner's delegation does not count after a transfer", async () => {
    const { agent, other, token } = await setup();
    await delegateAll(chain, agent.owner, other.address);
    expect((await as(token, agent, '')).status).toBe(200);
    await transferFreshAgent(chain, agent.owner, newWallet().address, agent.tokenId);
    expectError(await as(token, agent, ''), 403, 'not_owner');
    await revokeAll(chain, agent.owner, other.address);
  });
});

describe("the owner's access choice", () => {
  it('use (the default): replies on the owner’s model key, memory; never settings, usage or audit', async () => {
    const { agent, other, token } = await setup();
    await delegateERC721(chain, agent.owner, other.address, agent.collection as `0x${string}`, agent.tokenId);
    expect((await agent.call('/llm/settings')).body.access).toEqual({ delegates: 'use', renters: 'use' });
    const reply = await as(token, agent, '/context/chat/reply', { method: 'POST', json: { message: 'hello from a delegate' } });
    expect(reply.status, reply.text).toBe(200);
    expect((await as(token, agent, '/contexts/keys')).status).toBe(200);
    for (const rest of ['/llm/settings', '/prompt-templates', '/keys', '/usage', '/audit', '/mcp/connections']) {
      expectError(await as(token, agent, rest), 403, 'not_owner');
    }
    // Usage names the delegate by how it came in; the owner reads it.
    const usage = await agent.call('/usage?groupBy=credential');
    expect(usage.status, usage.text).toBe(200);
    expect(usage.body.groups.map((g: { credential: string }) => g.credential)).toContain(`delegate:${other.address}`);
  });

  it('none: the delegate is refused everywhere, the owner is not', async () => {
    const { agent, other, token } = await setup();
    await delegateAll(chain, agent.owner, other.address);
    await setAccess(agent, { delegates: 'none', renters: 'use' });
    expectError(await as(token, agent, ''), 403, 'not_owner');
    expectError(await as(token, agent, '/contexts/keys'), 403, 'not_owner');
    expect((await agent.call('')).status).toBe(200);
    await revokeAll(chain, agent.owner, other.address);
  });

  it('admin: settings without the secret, never access itself; audit names the delegate', async () => {
    const { agent, other, token } = await setup();
    await delegateERC721(chain, agent.owner, other.address, agent.collection as `0x${string}`, agent.tokenId);
    await setAccess(agent, { delegates: 'admin', renters: 'use' });
    const read = await as(token, agent, '/llm/settings');
    expect(read.status, read.text).toBe(200);
    expect(read.body).toMatchObject({ apiKeySet: true, credential: 'set' });
    expect(read.text).not.toContain(API_KEY);
    const { provider, model, temperature, baseUrl } = read.body;
    const body = { provider, model, temperature, baseUrl, maxTokens: 128 };
    expectError(
      await as(token, agent, '/llm/settings', { method: 'POST', json: { ...body, access: { delegates: 'admin', renters: 'none' } } }),
      403,
      'not_owner',
    );
    const saved = await as(token, agent, '/llm/settings', { method: 'POST', json: body });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body).toMatchObject({ maxTokens: 128, apiKeySet: true, access: { delegates: 'admin', renters: 'use' } });
    expect(saved.text).not.toContain(API_KEY);
    // The owner's key still serves the owner's replies after a delegate's save.
    expect((await agent.reply({ message: 'still mine' })).status).toBe(200);
    // Owner-only routes stay so even for admin.
    expectError(await as(token, agent, '/usage'), 403, 'not_owner');
    expectError(await as(token, agent, '/audit'), 403, 'not_owner');
    const audit = await agent.call('/audit');
    const entry = audit.body.entries.find(
      (e: { action: string; actor: { wallet?: string } }) =>
        e.action === 'llm_settings.set' && e.actor.wallet === other.address.toLowerCase(),
    );
    expect(entry?.actor).toEqual({ wallet: other.address.toLowerCase(), via: 'delegate' });
    expect(audit.body.entries.filter((e: { actor: { via?: string } }) => e.actor.via === undefined).length).toBeGreaterThan(0);
  });

  it('admin: never the profile write nor the daily limit; baseUrl shown as its origin, and echoing it keeps the stored URL', async () => {
    const { agent, other, token } = await setup();
    await delegateERC721(chain, agent.owner, other.address, agent.collection as `0x${string}`, agent.tokenId);
    await setAccess(agent, { delegates: 'admin', renters: 'use' });
    expectError(
      await as(token, agent, '/profile', { method: 'PUT', json: { name: 'Taken', description: 'by a delegate' } }),
      403,
      'not_owner',
    );
    const urlKey = `url-key-${crypto.randomUUID()}`;
    const fullUrl = `${LLM_BASE_URL}?api-key=${urlKey}`;
    const owner = (await agent.call('/llm/settings')).body;
    const { provider, model, temperature, maxTokens } = owner;
    const limited = await agent.call('/llm/settings', {
      method: 'POST',
      json: { provider, model, temperature, maxTokens, baseUrl: fullUrl, apiKey: API_KEY, limits: { tokensPerDay: 1000 } },
    });
    expect(limited.status, limited.text).toBe(200);
    const stored = limited.body.baseUrl as string;
    expect(stored).toContain(urlKey);
    const read = await as(token, agent, '/llm/settings');
    expect(read.status, read.text).toBe(200);
    expect(read.body.baseUrl).toBe(new URL(LLM_BASE_URL).origin);
    expect(read.text).not.toContain(urlKey);
    const body = { provider, model, temperature, maxTokens, baseUrl: read.body.baseUrl };
    for (const limits of [{ tokensPerDay: 1_000_000 }, {}]) {
      expectError(await as(token, agent, '/llm/settings', { method: 'POST', json: { ...body, limits } }), 403, 'not_owner');
    }
    const same = await as(token, agent, '/llm/settings', { method: 'POST', json: { ...body, limits: { tokensPerDay: 1000 } } });
    expect(same.status, same.text).toBe(200);
    const saved = await as(token, agent, '/llm/settings', { method: 'POST', json: body });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body).toMatchObject({ baseUrl: new URL(LLM_BASE_URL).origin, limits: { tokensPerDay: 1000 }, apiKeySet: true });
    expect(saved.text).not.toContain(urlKey);
    const after = await agent.call('/llm/settings');
    expect(after.body).toMatchObject({ baseUrl: stored, limits: { tokensPerDay: 1000 }, apiKeySet: true });
  });

  it("an earlier owner's access choice does not carry over to the next owner's delegates", async () => {
    const { agent, other, token } = await setup();
    await setAccess(agent, { delegates: 'admin', renters: 'none' });
    const buyer = newWallet();
    await transferFreshAgent(chain, agent.owner, buyer.address, agent.tokenId);
    await delegateAll(chain, buyer, other.address);
    const res = await as(token, agent, '');
    expect(res.status, res.text).toBe(200);
    expect(res.body.role).toBe('delegate');
    expect((await as(token, agent, '/contexts/keys')).status).toBe(200);
    for (const rest of ['/llm/settings', '/keys', '/mcp/connections', '/prompt-templates']) {
      expectError(await as(token, agent, rest), 403, 'not_owner');
    }
    const buyerToken = await login(chain, buyer);
    const seen = await as(buyerToken, agent, '/llm/settings');
    expect(seen.status, seen.text).toBe(200);
    expect(seen.body.access).toEqual({ delegates: 'use', renters: 'use' });
    await revokeAll(chain, buyer, other.address);
  });

  it('a key a delegate made serves while its maker is a delegate, and stops (unrevoked) when it is not', async () => {
    const { agent, other, token } = await setup();
    const collection = agent.collection as `0x${string}`;
    await delegateERC721(chain, agent.owner, other.address, collection, agent.tokenId);
    await setAccess(agent, { delegates: 'admin', renters: 'use' });
    const delegateAgent = { ...agent, token, call: (rest: string, init: Parameters<typeof call>[2] = {}) => as(token, agent, rest, init) };
    const key = await createKey(delegateAgent, ['contexts:read']);
    const ownerKey = await createKey(agent, ['contexts:read']);
    expect((await withKey(agent, key.key, '/contexts/keys')).status).toBe(200);
    // The owner managing keys leaves the delegate's key alone.
    expect((await agent.call('/keys')).body.keys.map((k: { id: string }) => k.id)).toEqual(expect.arrayContaining([key.id, ownerKey.id]));
    expect((await withKey(agent, key.key, '/contexts/keys')).status).toBe(200);
    await revokeERC721(chain, agent.owner, other.address, collection, agent.tokenId);
    expectError(await withKey(agent, key.key, '/contexts/keys'), 403, 'not_owner');
    expect((await withKey(agent, ownerKey.key, '/contexts/keys')).status).toBe(200);
    await delegateERC721(chain, agent.owner, other.address, collection, agent.tokenId);
    expect((await withKey(agent, key.key, '/contexts/keys')).status).toBe(200);
  });

  it('a key a delegate made does not outlive a sale, even when the new owner delegates to the same wallet', async () => {
    const { agent, other, token } = await setup();
    await delegateERC721(chain, agent.owner, other.address, agent.collection as `0x${string}`, agent.tokenId);
    await setAccess(agent, { delegates: 'admin', renters: 'use' });
    const delegateAgent = { ...agent, token, call: (rest: string, init: Parameters<typeof call>[2] = {}) => as(token, agent, rest, init) };
    const key = await createKey(delegateAgent, ['contexts:read']);
    expect((await withKey(agent, key.key, '/contexts/keys')).status).toBe(200);
    const buyer = newWallet();
    await transferFreshAgent(chain, agent.owner, buyer.address, agent.tokenId);
    await delegateAll(chain, buyer, other.address);
    expect((await as(token, agent, '/contexts/keys')).status).toBe(200);
    expectError(await withKey(agent, key.key, '/contexts/keys'), 403, 'not_owner');
    await revokeAll(chain, buyer, other.address);
  });

  it("admin: tool servers run on the owner's credential, never shown to the delegate (nor a URL that may hold a key)", async () => {
    const { agent, other, token } = await setup();
    await delegateERC721(chain, agent.owner, other.address, agent.collection as `0x${string}`, agent.tokenId);
    await setAccess(agent, { delegates: 'admin', renters: 'use' });
    const secret = `tool-secret-${crypto.randomUUID()}`;
    const urlKey = `url-key-${crypto.randomUUID()}`;
    const url = `${toolServerUrl('tools', tools.url)}?key=${urlKey}`;
    const reg = await agent.call('/mcp/connection', { method: 'POST', json: { url, auth: { type: 'bearer', value: secret } } });
    expect(reg.status, reg.text).toBe(200);
    expect(reg.body.url).toBe(url);
    const listed = await as(token, agent, '/mcp/connections');
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.connections[0]).toMatchObject({
      url: new URL(url).origin,
      credential: 'set',
      auth: { type: 'bearer', valueSet: true },
    });
    expect(listed.text).not.toContain(secret);
    expect(listed.text).not.toContain(urlKey);
    const called = await as(token, agent, `/mcp/connection/${reg.body.id}/tools/call`, {
      method: 'POST',
      json: { name: 'echo', arguments: { text: 'from a delegate' } },
    });
    expect(called.status, called.text).toBe(200);
    expect(tools.state.authorizations.at(-1)).toBe(`Bearer ${secret}`);
    expect(called.text).not.toContain(secret);
    // The agent's MCP server (a `use` route): the owner's tool, on the owner's credential.
    const mcp = mcpUrl(chain.baseUrl, agent);
    const listedTools = await mcpRpc(mcp, token, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    expect(listedTools.status, listedTools.text).toBe(200);
    const mcpCall = await mcpRpc(mcp, token, {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'mcp' } },
    });
    expect(mcpCall.status, mcpCall.text).toBe(200);
    expect(JSON.stringify(mcpCall.body)).toContain('echo: mcp');
    expect(tools.state.authorizations.at(-1)).toBe(`Bearer ${secret}`);
    // The audit trail names the delegate for both calls, the owner for the registration.
    const audit = await agent.call('/audit');
    const byAction = (action: string) =>
      audit.body.entries.filter((e: { action: string }) => e.action === action).map((e: { actor: unknown }) => e.actor);
    const delegateActor = { wallet: other.address.toLowerCase(), via: 'delegate' };
    expect(byAction('tool.call')).toEqual(expect.arrayContaining([delegateActor]));
    expect(byAction('mcp_connection.add')).toEqual([{ wallet: agent.owner.address.toLowerCase() }]);
  });

  it("use: on the agent's MCP server a renter gets ask and the memory tools, never the tool servers' tools", async () => {
    const other = newWallet();
    const [agent, token] = await Promise.all([freshAgent(chain, { collection: chain.rentableCollection }), login(chain, other)]);
    const reg = await agent.call('/mcp/connection', {
      method: 'POST',
      json: { url: toolServerUrl('tools', tools.url), auth: { type: 'bearer', value: 'owner-secret' } },
    });
    expect(reg.status, reg.text).toBe(200);
    await rent(chain, agent.owner, agent.collection as `0x${string}`, agent.tokenId, other.address, (await chainTime(chain)) + 86_400n);
    const mcp = mcpUrl(chain.baseUrl, agent);
    const names = async (credential: string) => {
      const listed = await mcpRpc(mcp, credential, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
      expect(listed.status, listed.text).toBe(200);
      return (listed.body.result.tools as { name: string }[]).map((t) => t.name);
    };
    expect(await names(agent.token)).toContain('echo');
    const renterTools = await names(token);
    expect(renterTools).toContain('ask');
    expect(renterTools).toContain('memory_search');
    expect(renterTools).not.toContain('echo');
    const before = tools.state.authorizations.length;
    const called = await mcpRpc(mcp, token, {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'x' } },
    });
    expect(called.status, called.text).toBe(200);
    expect(called.body.error?.code, called.text).toBe(-32602);
    expect(tools.state.authorizations.length).toBe(before);
  });

  it("a renter's reply runs on the owner's model key; usage names the renter", async () => {
    const other = newWallet();
    const [agent, token] = await Promise.all([freshAgent(chain, { collection: chain.rentableCollection }), login(chain, other)]);
    const llm = {
      provider: 'openai-compatible',
      model: 'stand-in',
      temperature: 0,
      maxTokens: 256,
      baseUrl: LLM_BASE_URL,
      apiKey: API_KEY,
    };
    expect((await agent.call('/llm/settings', { method: 'POST', json: llm })).status).toBe(200);
    expect((await agent.call('/context', { method: 'POST', json: { key: 'chat' } })).status).toBe(200);
    expectError(await as(token, agent, '/context/chat/reply', { method: 'POST', json: { message: 'hi' } }), 403, 'not_owner');
    await rent(chain, agent.owner, agent.collection as `0x${string}`, agent.tokenId, other.address, (await chainTime(chain)) + 86_400n);
    const reply = await as(token, agent, '/context/chat/reply', { method: 'POST', json: { message: 'hello from a renter' } });
    expect(reply.status, reply.text).toBe(200);
    const usage = await agent.call('/usage?groupBy=credential');
    expect(usage.body.groups.map((g: { credential: string }) => g.credential)).toContain(`renter:${other.address}`);
  });
});
