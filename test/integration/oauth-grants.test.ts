/**
 * Owners list and revoke the OAuth grants of their agent, in workerd against real KV,
 * Postgres and anvil: the grant a full flow made, its revocation (access token refused on the MCP
 * route, refresh token `invalid_grant`), another client's grant untouched, the 404s, who may call,
 * a transfer, and the audit entry.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { freshAgent, type TestAgent } from '../support/agent';
import { newWallet, transferFreshAgent } from '../support/chain';
import { call, deployment, expectError } from '../support/http';
import { agentPath, login } from '../support/login';
import { mcpUrl, oauthTokens, tokenRequest } from '../support/oauth';
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

const grantIdOf = (accessToken: string) => accessToken.split(':')[1] ?? '';

describe('OAuth grants of an agent', () => {
  it('lists the grant a flow made; revoking it stops its tokens at once while another client keeps working', async () => {
    const agent = await freshAgent(testnet);
    const first = await oauthTokens(testnet, agent);
    const listed = await agent.call<any>('/oauth/grants');
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.grants).toEqual([
      {
        id: grantIdOf(first.tokens.access_token),
        clientId: first.clientId,
        clientName: 'Test MCP client',
        scope: ['mcp'],
        resource: mcpUrl(testnet, agent.collection, agent.tokenId),
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        refreshTokenLive: true,
      },
    ]);
    expect(listed.text).not.toContain(first.tokens.refresh_token.split(':')[2]);

    const second = await oauthTokens(testnet, agent);
    expect((await agent.call<any>('/oauth/grants')).body.grants.map((g: { id: string }) => g.id).sort()).toEqual(
      [grantIdOf(first.tokens.access_token), grantIdOf(second.tokens.access_token)].sort(),
    );
    expect((await rpc(agent, first.tokens.access_token)).status).toBe(200);

    const revoked = await agent.call(`/oauth/grants/${grantIdOf(first.tokens.access_token)}`, { method: 'DELETE' });
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.body).toEqual({ id: grantIdOf(first.tokens.access_token), clientId: first.clientId });

    expectError(await rpc(agent, first.tokens.access_token), 401, 'invalid_token');
    const refresh = await tokenRequest(testnet, {
      grant_type: 'refresh_token',
      refresh_token: first.tokens.refresh_token,
      client_id: first.clientId,
    });
    expect(refresh.status).toBe(400);
    expect(refresh.body.error).toBe('invalid_grant');

    expect((await rpc(agent, second.tokens.access_token)).status).toBe(200);
    const again = await tokenRequest(testnet, {
      grant_type: 'refresh_token',
      refresh_token: second.tokens.refresh_token,
      client_id: second.clientId,
    });
    expect(again.status, again.text).toBe(200);
    expect((await agent.call<any>('/oauth/grants')).body.grants.map((g: { id: string }) => g.id)).toEqual([
      grantIdOf(second.tokens.access_token),
    ]);

    expectError(
      await agent.call(`/oauth/grants/${grantIdOf(first.tokens.access_token)}`, { method: 'DELETE' }),
      404,
      'oauth_grant_not_found',
    );

    const audit = await agent.call<any>('/audit');
    expect(audit.status, audit.text).toBe(200);
    expect(audit.body.entries[0]).toMatchObject({
      actor: { wallet: agent.owner.address.toLowerCase() },
      action: 'oauth_grant.revoke',
      target: { grantId: grantIdOf(first.tokens.access_token), clientId: first.clientId },
      outcome: 'ok',
    });
  });

  it("404 oauth_grant_not_found for an unknown id and for another agent's grant (which stays live)", async () => {
    const agent = await freshAgent(testnet);
    const other = await freshAgent(testnet, { owner: agent.owner, token: agent.token });
    const theirs = await oauthTokens(testnet, other);
    expectError(await agent.call('/oauth/grants/unknownGrant1', { method: 'DELETE' }), 404, 'oauth_grant_not_found');
    expectError(await agent.call('/oauth/grants/bad:id', { method: 'DELETE' }), 404, 'oauth_grant_not_found');
    expectError(
      await agent.call(`/oauth/grants/${grantIdOf(theirs.tokens.access_token)}`, { method: 'DELETE' }),
      404,
      'oauth_grant_not_found',
    );
    expect((await agent.call<any>('/oauth/grants')).body.grants).toEqual([]);
    expect((await rpc(other, theirs.tokens.access_token)).status).toBe(200);
  });

  it('owner JWT only: no token 401, an agent key 403 key_not_allowed, an OAuth token 401, a stranger 403 not_owner', async () => {
    const agent = await freshAgent(testnet);
    const { tokens } = await oauthTokens(testnet, agent);
    const grantId = grantIdOf(tokens.access_token);
    const path = agentPath(agent.collection, agent.tokenId, '/oauth/grants');
    expectError(await call(testnet.baseUrl, path), 401, 'unauthorized');
    expectError(await call(testnet.baseUrl, `${path}/${grantId}`, { method: 'DELETE' }), 401, 'unauthorized');
    const key = await agent.call<any>('/keys', { method: 'POST', json: { name: 'ci', scopes: ['mcp'] } });
    expect(key.status, key.text).toBe(200);
    expectError(await call(testnet.baseUrl, path, { token: key.body.key }), 403, 'key_not_allowed');
    expectError(await call(testnet.baseUrl, `${path}/${grantId}`, { method: 'DELETE', token: key.body.key }), 403, 'key_not_allowed');
    expectError(await call(testnet.baseUrl, path, { token: tokens.access_token }), 401, 'invalid_token');
    const stranger = await login(testnet, newWallet());
    expectError(await call(testnet.baseUrl, path, { token: stranger }), 403, 'not_owner');
    expectError(await call(testnet.baseUrl, `${path}/${grantId}`, { method: 'DELETE', token: stranger }), 403, 'not_owner');
    expect((await rpc(agent, tokens.access_token)).status).toBe(200);
  });

  it("after a transfer the new owner sees none of the earlier owner's grants, cannot revoke them one by one, and listing revokes them all", async () => {
    const agent = await freshAgent(testnet);
    const { tokens } = await oauthTokens(testnet, agent);
    const buyer = newWallet();
    await transferFreshAgent(testnet, agent.owner, buyer.address, agent.tokenId);
    const buyerToken = await login(testnet, buyer);
    const path = agentPath(agent.collection, agent.tokenId, '/oauth/grants');
    const listed = await call<any>(testnet.baseUrl, path, { token: buyerToken });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.grants).toEqual([]);
    expectError(
      await call(testnet.baseUrl, `${path}/${grantIdOf(tokens.access_token)}`, { method: 'DELETE', token: buyerToken }),
      404,
      'oauth_grant_not_found',
    );
    // The listing saw the agent under its new owner: the seller's grants are gone (oauth-sale.test.ts).
    expectError(await rpc(agent, tokens.access_token), 401, 'invalid_token');
  });
});
