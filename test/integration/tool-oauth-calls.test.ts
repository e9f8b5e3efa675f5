/**
 * Calls on an OAuth tool server: the access token refreshed near its end (one token request for
 * parallel calls), or once on a 401 with a retry; a refused refresh leaves the connection
 * `authorization_required` and the call 424 `tool_authorization_required` with a fresh authorize
 * URL for the owner; a 403 `insufficient_scope` is a step-up (424 with the union of the scopes,
 * no retry loop); through the agent's MCP server the failure is a tool error naming the code,
 * never a URL; after a transfer the earlier owner's tokens are never used.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createKey } from '../support/agent-keys';
import { connectMcp, mcpUrl, resultText } from '../support/agent-mcp';
import { freshAgent, type TestAgent } from '../support/agent';
import { newWallet, transferFreshAgent } from '../support/chain';
import { deployment, expectError } from '../support/http';
import { login } from '../support/login';
import { authorize, connectAuthorized, gatewayCall } from '../support/oauth-flow';
import { startOAuthToolServer, type OAuthToolServer } from '../support/oauth-tool-server';
import { workerWithToolServers } from '../support/tool-routing';

const stack = inject('stack');
const testnet = deployment('testnet');

let worker: Awaited<ReturnType<typeof workerWithToolServers>>;
let server: OAuthToolServer;
let stepUp: OAuthToolServer;

beforeAll(async () => {
  [server, stepUp] = await Promise.all([
    startOAuthToolServer('oauth-calls'),
    startOAuthToolServer('oauth-step', { challengeScope: 'read' }),
  ]);
  worker = await workerWithToolServers(stack, { 'oauth-calls': server.url, 'oauth-step': stepUp.url });
});

afterAll(async () => {
  await worker?.dispose();
  await Promise.all([server, stepUp].map((s) => s?.close()));
});

const echo = (who: TestAgent, id: string, text = 'hi') =>
  gatewayCall(worker, who, `/mcp/connection/${id}/tools/call`, { method: 'POST', json: { name: 'echo', arguments: { text } } });

describe('refreshing', () => {
  it('refreshes a token about to run out once for parallel calls, and stores the rotated one', async () => {
    server.config.accessTtl = 10; // inside the refresh margin: the next call refreshes
    const who = await freshAgent(testnet);
    const id = await connectAuthorized(worker, who, server);
    server.config.accessTtl = 3600;
    const before = server.counts.refresh;
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => echo(who, id, `p${i}`)));
    for (const res of answers) expect(res.status, res.text).toBe(200);
    expect(server.counts.refresh).toBe(before + 1);
    // The rotated refresh token was stored: the old one is spent, yet later calls go on.
    const list = await gatewayCall(worker, who, '/mcp/connections');
    expect(Date.parse(list.body.connections[0].authorization.expiresAt)).toBeGreaterThan(Date.now() + 3_000_000);
    expect((await echo(who, id)).status).toBe(200);
    expect(server.counts.refresh).toBe(before + 1);
  });

  it('a 401 on a call refreshes once and retries', async () => {
    const who = await freshAgent(testnet);
    const id = await connectAuthorized(worker, who, server);
    server.tokens.clear(); // the server forgets every access token it issued
    const before = server.counts.refresh;
    const res = await echo(who, id);
    expect(res.status, res.text).toBe(200);
    expect(server.counts.refresh).toBe(before + 1);
  });

  it('a refused refresh (invalid_grant): 424 tool_authorization_required with a fresh authorize URL, then authorization_required', async () => {
    server.config.accessTtl = 10;
    const who = await freshAgent(testnet);
    const id = await connectAuthorized(worker, who, server);
    server.config.refuseRefresh = true;
    try {
      const res = await echo(who, id);
      expectError(res, 424, 'tool_authorization_required');
      const url = new URL(res.body.error.details.authorizeUrl);
      expect(url.origin).toBe(server.base);
      const list = await gatewayCall(worker, who, '/mcp/connections');
      expect(list.body.connections[0]).toMatchObject({ status: 'authorization_required', authorization: { expiresAt: null } });
      expectError(await echo(who, id), 424, 'tool_authorization_required');
      // Authorizing again makes it ready.
      server.config.accessTtl = 3600;
      await authorize(server, res.body.error.details.authorizeUrl);
      expect((await echo(who, id)).status).toBe(200);
    } finally {
      server.config.refuseRefresh = false;
      server.config.accessTtl = 3600;
    }
  });

  it('a 401 after refreshing: 424 and authorization_required', async () => {
    const who = await freshAgent(testnet);
    const id = await connectAuthorized(worker, who, server);
    const original = server.tokens.set.bind(server.tokens);
    server.tokens.clear();
    server.tokens.set = () => server.tokens; // new tokens are issued but never accepted
    try {
      expectError(await echo(who, id), 424, 'tool_authorization_required');
    } finally {
      server.tokens.set = original;
    }
    const list = await gatewayCall(worker, who, '/mcp/connections');
    expect(list.body.connections[0].status).toBe('authorization_required');
  });
});

describe('step-up', () => {
  it('403 insufficient_scope: 424 with a URL for the union of the scopes, once; authorized again, the tool runs', async () => {
    const who = await freshAgent(testnet);
    const id = await connectAuthorized(worker, who, stepUp);
    const before = stepUp.counts.mcpWithToken;
    const res = await gatewayCall(worker, who, `/mcp/connection/${id}/tools/call`, {
      method: 'POST',
      json: { name: 'admin_op', arguments: {} },
    });
    expectError(res, 424, 'tool_authorization_required');
    expect(stepUp.counts.mcpWithToken - before).toBe(1); // no retry loop
    const url = new URL(res.body.error.details.authorizeUrl);
    expect(url.searchParams.get('scope')?.split(' ').sort()).toEqual(['admin', 'read']);
    await authorize(stepUp, url.toString());
    const again = await gatewayCall(worker, who, `/mcp/connection/${id}/tools/call`, {
      method: 'POST',
      json: { name: 'admin_op', arguments: {} },
    });
    expect(again.status, again.text).toBe(200);
    const list = await gatewayCall(worker, who, '/mcp/connections');
    expect(list.body.connections[0].authorization.scopes.sort()).toEqual(['admin', 'read']);
  });
});

describe('other callers', () => {
  it("through the agent's MCP server with a key: an error result naming the code, no URL; no hang", async () => {
    server.config.accessTtl = 10;
    const who = await freshAgent(testnet);
    await connectAuthorized(worker, who, server);
    server.config.refuseRefresh = true;
    try {
      const key = await createKey({ ...who, call: (rest, init) => gatewayCall(worker, who, rest, init) }, ['mcp']);
      const { client } = await connectMcp(mcpUrl(worker.url, who), key.key);
      const result = await client.callTool({ name: 'echo', arguments: { text: 'x' } });
      expect(result.isError).toBe(true);
      expect(resultText(result)).toContain('tool_authorization_required');
      expect(resultText(result)).not.toContain('http');
      await client.close();
    } finally {
      server.config.refuseRefresh = false;
      server.config.accessTtl = 3600;
    }
  });
});

describe('a transfer', () => {
  it("leaves the earlier owner's tokens unused: the new owner takes the connection over and authorizes anew", async () => {
    const who = await freshAgent(testnet);
    const id = await connectAuthorized(worker, who, server);
    const buyer = newWallet();
    await transferFreshAgent(testnet, who.owner, buyer.address, who.tokenId);
    const next: TestAgent = { ...who, owner: buyer, token: await login(testnet, buyer) };
    const list = await gatewayCall(worker, next, '/mcp/connections');
    expect(list.body.connections[0]).toMatchObject({ status: 'authorization_required', credential: 'reenter_required' });
    const before = server.counts.mcpWithToken;
    expectError(await echo(next, id), 409, 'credential_reentry_required');
    expectError(
      await gatewayCall(worker, next, `/mcp/connection/${id}/authorize`, { method: 'POST', json: {} }),
      409,
      'credential_reentry_required',
    );
    expect(server.counts.mcpWithToken).toBe(before);

    const taken = await gatewayCall(worker, next, `/mcp/connection/${id}/auth`, {
      method: 'PUT',
      json: { url: `${server.base}/mcp`, auth: { type: 'oauth' } },
    });
    expect(taken.status, taken.text).toBe(200);
    expect(taken.body).toMatchObject({ status: 'authorization_required', credential: 'set' });
    expectError(await echo(next, id), 424, 'tool_authorization_required');
    await authorize(server, taken.body.authorizeUrl);
    expect((await echo(next, id)).status).toBe(200);
  });
});
