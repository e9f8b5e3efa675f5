/**
 * What an OAuth grant leaves behind (issue 33): approving writes an audit entry, and a grant does
 * not outlive a sale of its agent: once the gateway sees the agent under another owner (the
 * seller's token refused, the new owner's listing of grants), the seller's grants are revoked for
 * good, and a transfer back revives none of them.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { freshAgent, type TestAgent } from '../support/agent';
import { newWallet, transferFreshAgent } from '../support/chain';
import { call, deployment, expectError, type JsonResponse } from '../support/http';
import { agentPath, login } from '../support/login';
import { oauthTokens, tokenRequest } from '../support/oauth';
import { closePg } from '../support/pg';

const testnet = deployment('testnet');

afterAll(closePg);

const rpc = (agent: TestAgent, credential: string) =>
  call<any>(testnet.baseUrl, agentPath(agent.collection, agent.tokenId, '/mcp'), {
    method: 'POST',
    token: credential,
    headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    json: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
  });

/** Asks again (the revocation runs after the 403 is answered) until `done`, at most 5 s. */
async function eventually(ask: () => Promise<JsonResponse<any>>, done: (res: JsonResponse<any>) => boolean): Promise<JsonResponse<any>> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const res = await ask();
    if (done(res) || Date.now() > deadline) return res;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('approving a grant', () => {
  it('writes an audit entry oauth_grant.approve with the grant, the client id and its name', async () => {
    const agent = await freshAgent(testnet);
    const { clientId, tokens } = await oauthTokens(testnet, agent);
    const audit = await agent.call<any>('/audit');
    expect(audit.status, audit.text).toBe(200);
    expect(audit.body.entries[0]).toMatchObject({
      actor: { wallet: agent.owner.address.toLowerCase() },
      action: 'oauth_grant.approve',
      target: { grantId: tokens.access_token.split(':')[1], clientId, clientName: 'Test MCP client' },
      outcome: 'ok',
    });
  });
});

describe('a grant across a sale of its agent', () => {
  it("the seller's token refused as not the owner revokes the seller's grants: 401 next, and after a transfer back", async () => {
    const agent = await freshAgent(testnet);
    const { clientId, tokens } = await oauthTokens(testnet, agent);
    const buyer = newWallet();
    await transferFreshAgent(testnet, agent.owner, buyer.address, agent.tokenId);
    expectError(await rpc(agent, tokens.access_token), 403, 'not_owner');
    const after = await eventually(
      () => rpc(agent, tokens.access_token),
      (res) => res.status === 401,
    );
    expectError(after, 401, 'invalid_token');
    expect(after.body.error.message).toContain('was revoked');
    await transferFreshAgent(testnet, buyer, agent.owner.address, agent.tokenId);
    expectError(await rpc(agent, tokens.access_token), 401, 'invalid_token');
    const refreshed = await tokenRequest(testnet, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect(refreshed.status, refreshed.text).toBe(400);
    expect(refreshed.body.error).toBe('invalid_grant');
    expect((await agent.call<any>('/oauth/grants')).body.grants).toEqual([]);
  });

  it("the new owner's listing of grants revokes the seller's, though the seller never called again", async () => {
    const agent = await freshAgent(testnet);
    const { clientId, tokens } = await oauthTokens(testnet, agent);
    const buyer = newWallet();
    await transferFreshAgent(testnet, agent.owner, buyer.address, agent.tokenId);
    const listed = await call<any>(testnet.baseUrl, agentPath(agent.collection, agent.tokenId, '/oauth/grants'), {
      token: await login(testnet, buyer),
    });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.grants).toEqual([]);
    await transferFreshAgent(testnet, buyer, agent.owner.address, agent.tokenId);
    expectError(await rpc(agent, tokens.access_token), 401, 'invalid_token');
    const refreshed = await tokenRequest(testnet, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect(refreshed.body.error).toBe('invalid_grant');
  });
});

describe('any answered request of the new owner', () => {
  it("revokes the seller's grants (in the background): a transfer back revives none", async () => {
    const agent = await freshAgent(testnet);
    const { tokens } = await oauthTokens(testnet, agent);
    const buyer = newWallet();
    await transferFreshAgent(testnet, agent.owner, buyer.address, agent.tokenId);
    const seen = await call(testnet.baseUrl, agentPath(agent.collection, agent.tokenId, ''), { token: await login(testnet, buyer) });
    expect(seen.status, seen.text).toBe(200);
    await transferFreshAgent(testnet, buyer, agent.owner.address, agent.tokenId);
    const after = await eventually(
      () => rpc(agent, tokens.access_token),
      (res) => res.status === 401,
    );
    expectError(after, 401, 'invalid_token');
    expect(after.body.error.message).toContain('was revoked');
  });
});

describe('a revoked token', () => {
  it('says it was revoked (401 invalid_token), where an unknown one says it is not valid', async () => {
    const agent = await freshAgent(testnet);
    const { tokens } = await oauthTokens(testnet, agent);
    const [userId, grantId] = tokens.access_token.split(':');
    const revoked = await agent.call(`/oauth/grants/${grantId}`, { method: 'DELETE' });
    expect(revoked.status, revoked.text).toBe(200);
    const res = await rpc(agent, tokens.access_token);
    expectError(res, 401, 'invalid_token');
    expect(res.body.error.message).toContain('was revoked');
    expect(res.headers.get('www-authenticate')).toContain('error_description="The access token was revoked"');
    expect(res.headers.get('www-authenticate')).toContain('resource_metadata=');
    const unknown = await rpc(agent, `${userId}:unknownGrant0001:${'x'.repeat(32)}`);
    expectError(unknown, 401, 'invalid_token');
    expect(unknown.body.error.message).not.toContain('was revoked');
  });
});
