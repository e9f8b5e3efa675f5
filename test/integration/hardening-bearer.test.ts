/**
 * The Bearer scheme's name is case-insensitive (RFC 7235): `bearer` and `BEARER` carry a wallet's
 * JWT, an agent key and an OAuth access token as `Bearer` does, on REST routes and on the agent's
 * MCP route; another scheme or a second word is still 401 (issue 33, item 11).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { freshAgent } from '../support/agent';
import { createKey } from '../support/agent-keys';
import { call, deployment, expectError } from '../support/http';
import { agentPath } from '../support/login';
import { oauthTokens } from '../support/oauth';
import { closePg } from '../support/pg';

const testnet = deployment('testnet');
const SCHEMES = ['bearer', 'BEARER', 'bEaReR', 'Bearer  '];

afterAll(closePg);

const asIs = (path: string, authorization: string, init: Parameters<typeof call>[2] = {}) =>
  call(testnet.baseUrl, path, { ...init, headers: { ...(init.headers as Record<string, string> | undefined), authorization } });

const listTools = (path: string, authorization: string) =>
  asIs(path, authorization, {
    method: 'POST',
    headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });

describe('the Bearer scheme in any case', () => {
  it("takes the owner's JWT and an agent key with the scheme in any case, on REST and on the MCP route", async () => {
    const agent = await freshAgent(testnet);
    const key = await createKey(agent, ['contexts:read', 'mcp']);
    const path = agentPath(agent.collection, agent.tokenId);
    for (const scheme of SCHEMES) {
      const owner = await asIs(path, `${scheme} ${agent.token}`);
      expect(owner.status, `${scheme}: ${owner.text}`).toBe(200);
      const keyed = await asIs(`${path}/contexts/keys`, `${scheme} ${key.key}`);
      expect(keyed.status, `${scheme}: ${keyed.text}`).toBe(200);
      const mcp = await listTools(`${path}/mcp`, `${scheme} ${key.key}`);
      expect(mcp.status, `${scheme}: ${mcp.text}`).toBe(200);
      expect(mcp.text).toContain('memory_search');
    }
  });

  it('takes an OAuth access token with a lower-case scheme on the MCP route', async () => {
    const agent = await freshAgent(testnet);
    const { tokens } = await oauthTokens(testnet, agent);
    const mcp = await listTools(agentPath(agent.collection, agent.tokenId, '/mcp'), `bearer ${tokens.access_token}`);
    expect(mcp.status, mcp.text).toBe(200);
    expect(mcp.text).toContain('memory_search');
  });

  it('still refuses another scheme, a scheme glued to the token and a second word (401 unauthorized)', async () => {
    const agent = await freshAgent(testnet);
    const path = agentPath(agent.collection, agent.tokenId);
    for (const header of [`Basic ${agent.token}`, `Bearer${agent.token}`, `bearer ${agent.token} extra`, `Bearerx ${agent.token}`]) {
      expectError(await asIs(path, header), 401, 'unauthorized');
    }
  });
});
