/**
 * Tool servers that need OAuth, end to end on real workerd: registering answers
 * `authorization_required` with an authorize URL; the browser's round trip through the tool
 * server's authorization server and the gateway's callback stores the tokens; the connection is
 * then `ready`, its tools listed and callable with the Bearer token. Each client identity (dynamic
 * registration, pre-registered with either secret method, the gateway's Client ID Metadata
 * Document) and each discovery variant.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freshAgent } from '../support/agent';
import { call, deployment, expectError } from '../support/http';
import { addOAuth, authorize, connectAuthorized, gatewayCall } from '../support/oauth-flow';
import { startOAuthToolServer, type OAuthToolServer } from '../support/oauth-tool-server';
import { startPlainServer, type TestServer } from '../support/mcp-servers';
import { toolServerUrl, workerWithToolServers } from '../support/tool-routing';

const stack = inject('stack');
const testnet = deployment('testnet');

let worker: Awaited<ReturnType<typeof workerWithToolServers>>;
let dcr: OAuthToolServer;
let pre: OAuthToolServer;
let cimd: OAuthToolServer;
let legacy: OAuthToolServer;
let openid: OAuthToolServer;
let wellKnown: OAuthToolServer;
let plain: TestServer;
const PLAIN_KEY = `plain-${crypto.randomUUID()}`;

beforeAll(async () => {
  [dcr, pre, cimd, legacy, openid, wellKnown] = await Promise.all([
    startOAuthToolServer('oauth-dcr', { challengeScope: 'read' }),
    startOAuthToolServer('oauth-pre', { dcr: false, authMethods: ['client_secret_basic', 'client_secret_post'] }),
    startOAuthToolServer('oauth-cimd', { cimd: true, dcr: false, authMethods: ['none'] }),
    startOAuthToolServer('oauth-legacy', { prm: 'none', asMetadata: 'none' }),
    startOAuthToolServer('oauth-openid', { asMetadata: 'openid' }),
    startOAuthToolServer('oauth-wk', { prm: 'well-known' }),
  ]);
  plain = await startPlainServer({ apiKey: PLAIN_KEY });
  const servers = { dcr, pre, cimd, legacy, openid, wellKnown };
  worker = await workerWithToolServers(stack, {
    plain: plain.url,
    ...Object.fromEntries(Object.values(servers).map((s) => [new URL(s.base).hostname.split('.')[0], s.url])),
  });
});

afterAll(async () => {
  await worker?.dispose();
  await Promise.all([dcr, pre, cimd, legacy, openid, wellKnown, plain].map((s) => s?.close()));
});

const agent = () => freshAgent(testnet);

describe('registering and authorizing', () => {
  it('dynamic registration: authorization_required with an authorize URL, then ready, listed and callable', async () => {
    const who = await agent();
    const before = dcr.counts.register;
    const added = await addOAuth(worker, who, dcr);
    expect(added.status, added.text).toBe(200);
    expect(added.body).toMatchObject({ status: 'authorization_required', auth: { type: 'oauth', valueSet: false }, tools: [] });
    expect(dcr.counts.register).toBe(before + 1);
    const url = new URL(added.body.authorizeUrl);
    expect(url.origin + url.pathname).toBe(`${dcr.base}/authorize`);
    const q = url.searchParams;
    expect(q.get('response_type')).toBe('code');
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(q.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get('resource')).toBe(`${dcr.base}/mcp`);
    expect(q.get('redirect_uri')).toBe(`${worker.url}/oauth/callback`);
    expect(q.get('client_id')).toMatch(/^dcr-/);
    expect(q.get('scope')).toBe('read');
    expect(q.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);

    // Nothing reaches the tools before authorization.
    expectError(
      await gatewayCall(worker, who, `/mcp/connection/${added.body.id}/tools/call`, {
        method: 'POST',
        json: { name: 'echo', arguments: { text: 'x' } },
      }),
      424,
      'tool_authorization_required',
    );

    await authorize(dcr, added.body.authorizeUrl);
    const list = await gatewayCall(worker, who, '/mcp/connections');
    const shown = list.body.connections[0];
    expect(shown).toMatchObject({ status: 'ready', credential: 'set', auth: { type: 'oauth', valueSet: true } });
    expect(shown.authorization.scopes).toEqual(['read']);
    expect(Date.parse(shown.authorization.expiresAt)).toBeGreaterThan(Date.now());
    expect(shown.tools.map((t: { name: string }) => t.name)).toEqual(['echo', 'admin_op']);
    for (const token of dcr.tokens.keys()) expect(list.text).not.toContain(token);

    const tools = await gatewayCall(worker, who, `/mcp/connection/${shown.id}/tools`);
    expect(tools.status, tools.text).toBe(200);
    const res = await gatewayCall(worker, who, `/mcp/connection/${shown.id}/tools/call`, {
      method: 'POST',
      json: { name: 'echo', arguments: { text: 'hello' } },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.content).toEqual([{ type: 'text', text: 'hello' }]);
  });

  it.each(['client_secret_basic', 'client_secret_post'])(
    'a pre-registered client with %s: no registration, its secret never shown',
    async (method) => {
      const who = await agent();
      const clientId = `pre-${method}-${crypto.randomUUID()}`;
      const secret = `pre-secret-${crypto.randomUUID()}`;
      pre.clients.set(clientId, { secret, method, redirectUris: [`${worker.url}/oauth/callback`] });
      pre.config.authMethods = [method];
      const before = pre.counts.register;
      const added = await addOAuth(worker, who, pre, { clientId, clientSecret: secret, scopes: ['read'] });
      expect(added.status, added.text).toBe(200);
      expect(added.text).not.toContain(secret);
      expect(new URL(added.body.authorizeUrl).searchParams.get('client_id')).toBe(clientId);
      await authorize(pre, added.body.authorizeUrl);
      expect(pre.counts.register).toBe(before);
      const res = await gatewayCall(worker, who, `/mcp/connection/${added.body.id}/tools/call`, {
        method: 'POST',
        json: { name: 'echo', arguments: { text: 'pre' } },
      });
      expect(res.status, res.text).toBe(200);
    },
  );

  it("the gateway's Client ID Metadata Document where the server supports it", async () => {
    const doc = await call(worker.url, '/oauth/client.json');
    expect(doc.status).toBe(200);
    expect(doc.body).toEqual({
      client_id: `${worker.url}/oauth/client.json`,
      client_name: 'agent-gateway',
      client_uri: worker.url,
      redirect_uris: [`${worker.url}/oauth/callback`],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    const who = await agent();
    const added = await addOAuth(worker, who, cimd);
    expect(added.status, added.text).toBe(200);
    expect(new URL(added.body.authorizeUrl).searchParams.get('client_id')).toBe(`${worker.url}/oauth/client.json`);
    expect(cimd.counts.register).toBe(0);
    await authorize(cimd, added.body.authorizeUrl);
    const res = await gatewayCall(worker, who, `/mcp/connection/${added.body.id}/tools/call`, {
      method: 'POST',
      json: { name: 'echo', arguments: { text: 'cimd' } },
    });
    expect(res.status, res.text).toBe(200);
  });

  it.each([
    ['the 2025-03-26 revision (no metadata: the default endpoints)', () => legacy],
    ['OpenID discovery only', () => openid],
    ['resource metadata at its well-known place only', () => wellKnown],
  ])('discovery: %s', async (_, server) => {
    const who = await agent();
    const id = await connectAuthorized(worker, who, server());
    const res = await gatewayCall(worker, who, `/mcp/connection/${id}/tools/call`, {
      method: 'POST',
      json: { name: 'echo', arguments: { text: 'ok' } },
    });
    expect(res.status, res.text).toBe(200);
  });

  it('POST …/authorize gives a fresh URL (a new state each time); 400 tool_server_not_oauth on another kind; keys may not', async () => {
    const who = await agent();
    const id = await connectAuthorized(worker, who, dcr);
    const a = await gatewayCall(worker, who, `/mcp/connection/${id}/authorize`, { method: 'POST', json: {} });
    const b = await gatewayCall(worker, who, `/mcp/connection/${id}/authorize`, { method: 'POST', json: {} });
    expect(a.status, a.text).toBe(200);
    expect(new URL(a.body.authorizeUrl).searchParams.get('state')).not.toBe(new URL(b.body.authorizeUrl).searchParams.get('state'));
    expectError(
      await gatewayCall(worker, who, `/mcp/connection/${crypto.randomUUID()}/authorize`, { method: 'POST', json: {} }),
      404,
      'mcp_connection_not_found',
    );
  });

  it('before authorizing, GET …/tools is 424 with an authorize URL; a static key on an OAuth server is 400 tool_server_oauth_unsupported', async () => {
    const who = await agent();
    const added = await addOAuth(worker, who, dcr);
    const live = await gatewayCall(worker, who, `/mcp/connection/${added.body.id}/tools`);
    expectError(live, 424, 'tool_authorization_required');
    expect(new URL(live.body.error.details.authorizeUrl).origin).toBe(dcr.base);
    const other = await agent();
    const keyed = await gatewayCall(worker, other, '/mcp/connection', {
      method: 'POST',
      json: { url: `${dcr.base}/mcp`, auth: { type: 'bearer', value: 'static' } },
    });
    expectError(keyed, 400, 'tool_server_oauth_unsupported');
  });

  it('POST …/authorize: 400 tool_server_not_oauth on a connection with a static key; 403 for an agent key', async () => {
    const who = await agent();
    const added = await gatewayCall(worker, who, '/mcp/connection', {
      method: 'POST',
      json: { url: toolServerUrl('plain', plain.url), auth: { type: 'header', headerName: 'x-api-key', value: PLAIN_KEY } },
    });
    expect(added.status, added.text).toBe(200);
    const path = `/mcp/connection/${added.body.id}/authorize`;
    expectError(await gatewayCall(worker, who, path, { method: 'POST', json: {} }), 400, 'tool_server_not_oauth');
    const key = await gatewayCall(worker, who, '/keys', { method: 'POST', json: { name: 'k', scopes: ['mcp'] } });
    expectError(await gatewayCall(worker, { ...who, token: key.body.key }, path, { method: 'POST', json: {} }), 403, 'key_not_allowed');
  });

  it('removing an OAuth connection destroys its tokens: the list is empty, a second delete 404', async () => {
    const who = await agent();
    const id = await connectAuthorized(worker, who, dcr);
    expect((await gatewayCall(worker, who, `/mcp/connection/${id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await gatewayCall(worker, who, '/mcp/connections')).body.connections).toEqual([]);
    expectError(await gatewayCall(worker, who, `/mcp/connection/${id}`, { method: 'DELETE' }), 404, 'mcp_connection_not_found');
  });
});
