/**
 * The OAuth flow's refusals, each with its status and code, each storing nothing: a callback with
 * an unknown, used or expired `state`, or a wrong `iss`; metadata that is slow, huge, a redirect,
 * HTML or names another issuer; an authorization server with no way to identify the gateway.
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
let bad: OAuthToolServer;
let closed: OAuthToolServer;

beforeAll(async () => {
  [server, bad, closed] = await Promise.all([
    startOAuthToolServer('oauth-fail'),
    startOAuthToolServer('oauth-bad'),
    startOAuthToolServer('oauth-closed', { dcr: false }),
  ]);
  worker = await workerWithToolServers(stack, { 'oauth-fail': server.url, 'oauth-bad': bad.url, 'oauth-closed': closed.url });
});

afterAll(async () => {
  await worker?.dispose();
  await Promise.all([server, bad, closed].map((s) => s?.close()));
});

async function statusOf(who: Awaited<ReturnType<typeof freshAgent>>) {
  const list = await gatewayCall(worker, who, '/mcp/connections');
  return list.body.connections[0]?.status;
}

describe('the callback', () => {
  it('an unknown state: 400 page, nothing stored', async () => {
    const page = await callback(`${worker.url}/oauth/callback?code=abc&state=${'x'.repeat(43)}`);
    expect(page.status).toBe(400);
    expect(page.html).toContain('oauth_state_invalid');
    expect(page.html).toContain('name="viewport"');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const none = await callback(`${worker.url}/oauth/callback`);
    expect(none.status).toBe(400);
    expect(none.html).toContain('oauth_state_invalid');
  });

  it('a used state: the second visit is 400 and changes nothing', async () => {
    const who = await freshAgent(testnet);
    const added = await addOAuth(worker, who, server);
    const back = await approve(server, added.body.authorizeUrl);
    expect((await callback(back)).status).toBe(200);
    const before = server.counts.authorizationCode;
    const again = await callback(back);
    expect(again.status).toBe(400);
    expect(again.html).toContain('oauth_state_invalid');
    expect(server.counts.authorizationCode).toBe(before);
  });

  it('an expired state (older than 10 minutes): 400, no token request', async () => {
    const who = await freshAgent(testnet);
    const added = await addOAuth(worker, who, server);
    const state = new URL(added.body.authorizeUrl).searchParams.get('state') ?? '';
    const kv = await worker.miniflare.getKVNamespace('NONCES');
    const key = `tool-oauth:state:${state}`;
    const pending = JSON.parse((await kv.get(key)) ?? '{}') as { createdAt: number };
    await kv.put(key, JSON.stringify({ ...pending, createdAt: Date.now() - 11 * 60_000 }));
    const before = server.counts.authorizationCode;
    const back = await approve(server, added.body.authorizeUrl);
    const page = await callback(back);
    expect(page.status).toBe(400);
    expect(page.html).toContain('oauth_state_invalid');
    expect(server.counts.authorizationCode).toBe(before);
    expect(await statusOf(who)).toBe('authorization_required');
  });

  it('an iss that is not the authorization server: 400 oauth_issuer_mismatch, nothing stored', async () => {
    const who = await freshAgent(testnet);
    const added = await addOAuth(worker, who, server);
    server.config.iss = 'wrong';
    try {
      const page = await callback(await approve(server, added.body.authorizeUrl));
      expect(page.status).toBe(400);
      expect(page.html).toContain('oauth_issuer_mismatch');
    } finally {
      server.config.iss = 'right';
    }
    expect(await statusOf(who)).toBe('authorization_required');
  });

  it('the authorization server sent an error (the owner refused): 400 oauth_denied', async () => {
    const who = await freshAgent(testnet);
    const added = await addOAuth(worker, who, server);
    const state = new URL(added.body.authorizeUrl).searchParams.get('state');
    const page = await callback(`${worker.url}/oauth/callback?error=access_denied&state=${state}`);
    expect(page.status).toBe(400);
    expect(page.html).toContain('oauth_denied');
  });
});

describe('metadata that misbehaves', () => {
  it.each(['slow', 'huge', 'redirect', 'html', 'issuer'] as const)('%s: 502 tool_server_oauth_failed, nothing stored', async (mode) => {
    const who = await freshAgent(testnet);
    bad.config.badMetadata = mode;
    try {
      const res = await addOAuth(worker, who, bad);
      expectError(res, 502, 'tool_server_oauth_failed');
      expect(res.body.error.details.step).toMatch(/metadata/);
      expect(res.body.error.message.length).toBeGreaterThan(30);
    } finally {
      bad.config.badMetadata = undefined;
    }
    const list = await gatewayCall(worker, who, '/mcp/connections');
    expect(list.body.connections).toEqual([]);
  });

  it('no registration endpoint and no CIMD: 400 tool_server_oauth_client_required', async () => {
    const who = await freshAgent(testnet);
    expectError(await addOAuth(worker, who, closed), 400, 'tool_server_oauth_client_required');
  });

  it('a clientSecret without clientId: 400 validation_failed', async () => {
    const who = await freshAgent(testnet);
    expectError(await addOAuth(worker, who, server, { clientSecret: 'abc' }), 400, 'validation_failed');
  });
});
