/**
 * The agent's A2A Agent Card (GET …/.well-known/agent-card.json) in workerd against real Postgres
 * and anvil: public (no credential, nor the gates), built from the profile with the URLs of the
 * deployment it is asked on, resolved by @a2a-js/sdk's own card resolver, 404 without a profile
 * or for an unregistered collection, and listed in the ERC-8004 registration file.
 */
import { DefaultAgentCardResolver } from '@a2a-js/sdk/client';
import { getAddress } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { freshAgent } from '../support/agent';
import { newWallet, transferFreshAgent } from '../support/chain';
import { call, deployment, expectError } from '../support/http';
import { agentPath, login } from '../support/login';
import { closePg } from '../support/pg';
import type { DeploymentInfo } from '../support/stack-info';

const testnet = deployment('testnet');
const mainnet = deployment('mainnet');
const profile = { name: 'Warranty desk', description: 'Answers questions about orders.', image: 'https://example.com/a.png' };
const CARD = '/.well-known/agent-card.json';

afterAll(closePg);

const card = (d: DeploymentInfo, collection: string, tokenId: bigint | string, headers: Record<string, string> = {}) =>
  call<Record<string, any>>(d.baseUrl, agentPath(collection, tokenId, CARD), { headers });

describe('the Agent Card', () => {
  it('is public, built from the profile, with the A2A URL, streaming, both credentials and the skills', async () => {
    const agent = await freshAgent(testnet);
    expect((await agent.call('/profile', { method: 'PUT', json: profile })).status).toBe(200);
    const res = await card(testnet, agent.collection, agent.tokenId);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=60');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const origin = new URL(testnet.baseUrl).origin;
    const a2aUrl = `${origin}/agent/${getAddress(agent.collection)}/${agent.tokenId}/a2a`;
    expect(res.body).toMatchObject({
      name: profile.name,
      description: profile.description,
      supportedInterfaces: [{ url: a2aUrl, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      capabilities: { streaming: true },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      iconUrl: profile.image,
    });
    expect(res.body.securitySchemes.agentKey.httpAuthSecurityScheme.scheme).toBe('Bearer');
    expect(res.body.securitySchemes.oauth.oauth2SecurityScheme).toMatchObject({
      oauth2MetadataUrl: `${origin}/.well-known/oauth-authorization-server`,
      flows: {
        authorizationCode: { authorizationUrl: `${origin}/oauth/authorize`, tokenUrl: `${origin}/oauth/token`, pkceRequired: true },
      },
    });
    expect(res.body.skills.map((s: { id: string }) => s.id)).toEqual(['ask', 'memory']);
    // The URLs it names are real: the authorization server's metadata answers.
    const metadata = await fetch(res.body.securitySchemes.oauth.oauth2SecurityScheme.oauth2MetadataUrl);
    expect(metadata.status).toBe(200);
  });

  it("passes no gate: a bad, a stranger's or another deployment's token changes nothing", async () => {
    const agent = await freshAgent(testnet);
    await agent.call('/profile', { method: 'PUT', json: profile });
    const other = await freshAgent(mainnet);
    for (const authorization of ['Bearer nonsense', 'Bearer agk_nope', `Bearer ${other.token}`]) {
      const res = await card(testnet, agent.collection, agent.tokenId, { authorization });
      expect(res.status, `${authorization}: ${res.text}`).toBe(200);
    }
  });

  it("may be fetched from a browser page with A2A's headers (the CORS preflight allows them)", async () => {
    const agent = await freshAgent(testnet);
    const res = await fetch(`${testnet.baseUrl}${agentPath(agent.collection, agent.tokenId, CARD)}`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://other-agent.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'a2a-version',
      },
    });
    expect(res.status).toBeLessThan(300);
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('a2a-version');
  });

  it("is resolved by @a2a-js/sdk's own card resolver", async () => {
    const agent = await freshAgent(testnet);
    await agent.call('/profile', { method: 'PUT', json: profile });
    const resolved = await new DefaultAgentCardResolver().resolve(`${testnet.baseUrl}/agent/${agent.collection}/${agent.tokenId}/`);
    expect(resolved.name).toBe(profile.name);
    expect(resolved.capabilities?.streaming).toBe(true);
    expect(resolved.supportedInterfaces[0]?.url).toBe(`${testnet.baseUrl}/agent/${getAddress(agent.collection)}/${agent.tokenId}/a2a`);
    expect(resolved.securitySchemes.oauth?.scheme?.$case).toBe('oauth2SecurityScheme');
  });

  it('names the URLs of the deployment it is asked on', async () => {
    const agent = await freshAgent(mainnet);
    await agent.call('/profile', { method: 'PUT', json: profile });
    const res = await card(mainnet, agent.collection, agent.tokenId);
    expect(res.status, res.text).toBe(200);
    const origin = new URL(mainnet.baseUrl).origin;
    expect(origin).not.toBe(new URL(testnet.baseUrl).origin);
    expect(res.body.supportedInterfaces[0].url).toBe(`${origin}/agent/${getAddress(agent.collection)}/${agent.tokenId}/a2a`);
    expect(res.body.securitySchemes.oauth.oauth2SecurityScheme.oauth2MetadataUrl).toBe(`${origin}/.well-known/oauth-authorization-server`);
    // The same agent's path on the other deployment names a collection it does not register, or no profile.
    expect((await card(testnet, agent.collection, agent.tokenId)).status).toBe(404);
  });

  it('is 404 profile_not_found without a profile, agent_not_found for an unregistered collection, 400 for a bad path', async () => {
    const agent = await freshAgent(testnet);
    expectError(await card(testnet, agent.collection, agent.tokenId), 404, 'profile_not_found');
    expectError(await card(testnet, newWallet().address, 1n), 404, 'agent_not_found');
    expectError(await card(testnet, '0x123', 1n), 400, 'validation_failed');
    expectError(await card(testnet, agent.collection, '01'), 400, 'validation_failed');
    const post = await call(testnet.baseUrl, agentPath(agent.collection, agent.tokenId, CARD), { method: 'POST', json: {} });
    expectError(post, 405, 'method_not_allowed');
  });

  it("is 404 profile_not_found after a transfer (the seller's profile is not presented) until the new owner sets one", async () => {
    const agent = await freshAgent(testnet);
    expect((await agent.call('/profile', { method: 'PUT', json: profile })).status).toBe(200);
    expect((await card(testnet, agent.collection, agent.tokenId)).status).toBe(200);
    const buyer = newWallet();
    await transferFreshAgent(testnet, agent.owner, buyer.address, agent.tokenId);
    expectError(await card(testnet, agent.collection, agent.tokenId), 404, 'profile_not_found');
    const mine = await call(testnet.baseUrl, agentPath(agent.collection, agent.tokenId, '/profile'), {
      method: 'PUT',
      json: { name: 'New desk', description: 'Under new owners.' },
      token: await login(testnet, buyer),
    });
    expect(mine.status, mine.text).toBe(200);
    const res = await card(testnet, agent.collection, agent.tokenId);
    expect(res.status, res.text).toBe(200);
    expect(res.body.name).toBe('New desk');
  });

  it('follows the profile: a new name shows, an inline image is no icon', async () => {
    const agent = await freshAgent(testnet);
    await agent.call('/profile', { method: 'PUT', json: profile });
    await agent.call('/profile', {
      method: 'PUT',
      json: { name: 'Desk', description: 'Orders.', image: 'data:image/png;base64,iVBORw0KGgo=' },
    });
    const res = await card(testnet, agent.collection, agent.tokenId);
    expect(res.body.name).toBe('Desk');
    expect(res.body).not.toHaveProperty('iconUrl');
  });
});

describe('the registration file', () => {
  it('lists the card as its A2A service, beside the MCP endpoint, and the URL it names serves the card', async () => {
    const agent = await freshAgent(testnet);
    await agent.call('/profile', { method: 'PUT', json: profile });
    const file = await call<{ services: { name: string; endpoint: string; version: string }[] }>(
      testnet.baseUrl,
      agentPath(agent.collection, agent.tokenId, '/registration.json'),
    );
    expect(file.status, file.text).toBe(200);
    const base = `${testnet.baseUrl}/agent/${agent.collection}/${agent.tokenId}`;
    expect(file.body.services).toEqual([
      { name: 'MCP', endpoint: `${base}/mcp`, version: '2025-11-25' },
      { name: 'A2A', endpoint: `${base}/.well-known/agent-card.json`, version: '1.0' },
    ]);
    const served = await fetch(file.body.services[1]!.endpoint);
    expect(served.status).toBe(200);
    expect(((await served.json()) as { name: string }).name).toBe(profile.name);
  });
});
