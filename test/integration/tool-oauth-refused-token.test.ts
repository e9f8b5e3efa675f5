/**
 * The callback when the tool server refuses the access token it just had issued (the conformance
 * suite's scope-retry-limit server does so with 403 insufficient_scope on every request; here
 * the token is born expired, so the server answers 401): the page says 502
 * `tool_server_oauth_failed`, as the callback's contract says (it said OAuth was unsupported),
 * nothing is stored, and the connection still asks for authorization.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freshAgent } from '../support/agent';
import { deployment, expectError } from '../support/http';
import { addOAuth, approve, callback, gatewayCall } from '../support/oauth-flow';
import { startOAuthToolServer, type OAuthToolServer } from '../support/oauth-tool-server';
import { workerWithToolServers } from '../support/tool-routing';

const stack = inject('stack');
const testnet = deployment('testnet');

let worker: Awaited<ReturnType<typeof workerWithToolServers>>;
let server: OAuthToolServer;

beforeAll(async () => {
  server = await startOAuthToolServer('oauth-refuses');
  worker = await workerWithToolServers(stack, { 'oauth-refuses': server.url });
});

afterAll(async () => {
  await worker?.dispose();
  await server?.close();
});

describe('the callback, the tool server refusing the new token', () => {
  it('502 tool_server_oauth_failed on the page, nothing stored, still authorization_required', async () => {
    const who = await freshAgent(testnet);
    const added = await addOAuth(worker, who, server);
    expect(added.status, added.text).toBe(200);
    server.config.accessTtl = -60;
    try {
      const page = await callback(await approve(server, added.body.authorizeUrl));
      expect(page.status, page.html).toBe(502);
      expect(page.html).toContain('tool_server_oauth_failed');
      expect(page.html).toContain('refused the new access token (HTTP 401)');
      expect(page.html).toContain('Nothing was stored');
    } finally {
      server.config.accessTtl = 3600;
    }
    const list = await gatewayCall(worker, who, '/mcp/connections');
    expect(list.body.connections[0]).toMatchObject({ id: added.body.id, status: 'authorization_required', tools: [] });
    // As registered: the scopes asked, no expiry (no token).
    expect(list.body.connections[0].authorization).toEqual(added.body.authorization);
    const called = await gatewayCall(worker, who, `/mcp/connection/${added.body.id}/tools/call`, {
      method: 'POST',
      json: { name: 'echo', arguments: { text: 'x' } },
    });
    expectError(called, 424, 'tool_authorization_required');
    expect(called.body.error.details.authorizeUrl).toMatch(/^https:\/\/oauth-refuses\.tools\.example\/authorize\?/);
  }, 60_000);
});
