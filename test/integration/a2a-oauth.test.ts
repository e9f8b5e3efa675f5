/**
 * OAuth for the agent's A2A URL, in workerd against real KV, Postgres and anvil: the A2A URL is a
 * resource of its own (RFC 9728 metadata, the authorize page and the signed approval name it, the
 * grant and its tokens are bound to it), and a token is good only on the route of the resource it
 * was issued for: an A2A token is refused on the MCP URL and on REST routes, an MCP token on the
 * A2A URL, and another agent's token anywhere. The acceptance on `POST …/a2a` itself is in
 * a2a-oauth-route.test.ts, and bearer()'s rule alone in test/unit/a2a-oauth-bearer.test.ts.
 */
import { getAddress } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { freshAgent } from '../support/agent';
import { newWallet } from '../support/chain';
import { call, deployment, expectError } from '../support/http';
import { agentPath } from '../support/login';
import {
  a2aUrl,
  approvalMessage,
  authorizeUrl,
  mcpUrl,
  oauthTokens,
  openAuthorizePage,
  pkce,
  publicClient,
  REDIRECT_URI,
  tokenRequest,
} from '../support/oauth';
import { closePg } from '../support/pg';

const testnet = deployment('testnet');
const origin = new URL(testnet.baseUrl).origin;

afterAll(closePg);

const mcpList = (collection: string, tokenId: bigint, credential: string) =>
  call<any>(testnet.baseUrl, agentPath(collection, tokenId, '/mcp'), {
    method: 'POST',
    token: credential,
    headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    json: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
  });

describe('the A2A URL as an OAuth resource', () => {
  it('has RFC 9728 metadata of its own, public, naming the gateway as its authorization server', async () => {
    const agent = await freshAgent(testnet);
    const collection = getAddress(agent.collection);
    const res = await call(testnet.baseUrl, `/.well-known/oauth-protected-resource/agent/${collection}/${agent.tokenId}/a2a`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      resource: `${origin}/agent/${collection}/${agent.tokenId}/a2a`,
      authorization_servers: [origin],
      bearer_methods_supported: ['header'],
      resource_name: `A2A endpoint of agent ${agent.tokenId} in collection ${collection}`,
    });
    expectError(await call(testnet.baseUrl, '/.well-known/oauth-protected-resource/agent/0x123/1/a2a'), 400, 'validation_failed');
    const stranger = newWallet().address;
    expectError(await call(testnet.baseUrl, `/.well-known/oauth-protected-resource/agent/${stranger}/1/a2a`), 404, 'agent_not_found');
  });

  it('is named by the authorize page and by the approval the owner signs', async () => {
    const agent = await freshAgent(testnet);
    const clientId = await publicClient(testnet);
    const resource = a2aUrl(testnet, agent.collection, agent.tokenId);
    const page = await openAuthorizePage(
      authorizeUrl(testnet, {
        response_type: 'code',
        client_id: clientId,
        redirect_uri: REDIRECT_URI,
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
        resource,
      }),
    );
    expect(page.res.status, page.html.slice(0, 300)).toBe(200);
    expect(page.resource).toBe(resource);
    expect(page.html).toContain('through its A2A endpoint');
    const approval = await approvalMessage(testnet, page, agent.owner.address);
    expect(approval.message).toContain('through its A2A endpoint');
    expect(approval.message).toContain(`- ${resource}`);
    // A path that is neither door is no resource.
    const bad = await openAuthorizePage(
      authorizeUrl(testnet, {
        response_type: 'code',
        client_id: clientId,
        redirect_uri: REDIRECT_URI,
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
        resource: resource.replace(/a2a$/, 'contexts'),
      }),
    );
    expect(bad.res.status).toBe(400);
  });

  it('issues tokens bound to the A2A URL, refreshed for it only, and the grant is listed for the owner', async () => {
    const agent = await freshAgent(testnet);
    const resource = a2aUrl(testnet, agent.collection, agent.tokenId);
    const { clientId, tokens } = await oauthTokens(testnet, agent, { resource });
    expect(tokens.resource).toBe(resource);
    const toMcp = await tokenRequest(testnet, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
      resource: mcpUrl(testnet, agent.collection, agent.tokenId),
    });
    expect(toMcp.status).toBe(400);
    expect(toMcp.body.error).toBe('invalid_target');
    const refreshed = await tokenRequest(testnet, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect(refreshed.status, refreshed.text).toBe(200);
    expect(refreshed.body.resource).toBe(resource);
    const grants = await agent.call('/oauth/grants');
    expect(grants.status, grants.text).toBe(200);
    const listed = (grants.body as { grants: { clientId: string; resource: string }[] }).grants;
    expect(listed.filter((g) => g.clientId === clientId).map((g) => g.resource)).toEqual([resource]);
  });
});

describe('a token on the route of another resource', () => {
  it("an A2A token is refused on its own agent's MCP URL and on REST routes (401 invalid_token)", async () => {
    const agent = await freshAgent(testnet);
    const { tokens } = await oauthTokens(testnet, agent, { resource: a2aUrl(testnet, agent.collection, agent.tokenId) });
    const res = await mcpList(agent.collection, agent.tokenId, tokens.access_token);
    expectError(res, 401, 'invalid_token');
    expect(res.headers.get('www-authenticate')).toContain(
      `resource_metadata="${origin}/.well-known/oauth-protected-resource/agent/${getAddress(agent.collection)}/${agent.tokenId}/mcp"`,
    );
    const rest = await call(testnet.baseUrl, agentPath(agent.collection, agent.tokenId, '/contexts/keys'), { token: tokens.access_token });
    expectError(rest, 401, 'invalid_token');
  });

  it('an MCP token still opens the MCP URL (the two resources do not disturb each other)', async () => {
    const agent = await freshAgent(testnet);
    await oauthTokens(testnet, agent, { resource: a2aUrl(testnet, agent.collection, agent.tokenId) });
    const { tokens } = await oauthTokens(testnet, agent);
    expect(tokens.resource).toBe(mcpUrl(testnet, agent.collection, agent.tokenId));
    const res = await mcpList(agent.collection, agent.tokenId, tokens.access_token);
    expect(res.status, res.text).toBe(200);
  });
});
