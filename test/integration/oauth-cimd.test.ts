/**
 * OAuth client metadata documents (an https `client_id`), in workerd against real KV, Postgres
 * and anvil: the documents come from a real loopback HTTP server the worker reaches as
 * `https://docs.tools.example/...` (test/support/client-documents.ts). The whole flow to a token
 * used on the agent's MCP URL and refreshed; every way a document can fail (400 on the page in
 * words, nothing stored, no redirect); the request's redirect URI bound by the document; the
 * cache (one fetch within max-age, at most 24 h); the metadata flags and `iss`.
 */
import { parseSiweMessage } from 'viem/siwe';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freshAgent } from '../support/agent';
import {
  DOCUMENT_HOST,
  documentFor,
  json,
  startDocumentServer,
  type DocumentAnswer,
  type DocumentServer,
} from '../support/client-documents';
import { call, deployment, expectError } from '../support/http';
import { mcpRpc } from '../support/agent-mcp';
import {
  approvalMessage,
  approve,
  authorizeUrl,
  mcpUrl,
  openAuthorizePage,
  pkce,
  REDIRECT_URI,
  registerClient,
  tokenRequest,
} from '../support/oauth';
import { closePg } from '../support/pg';
import type { DeploymentInfo } from '../support/stack-info';
import { workerWithToolServers } from '../support/tool-routing';

const stack = inject('stack');
const testnet = deployment('testnet');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let docs: DocumentServer;
let worker: Awaited<ReturnType<typeof workerWithToolServers>>;
let gw: DeploymentInfo;

beforeAll(async () => {
  docs = await startDocumentServer();
  worker = await workerWithToolServers(stack, { docs: docs.listener.url });
  gw = { ...testnet, baseUrl: worker.url };
});

afterAll(async () => {
  await worker?.dispose();
  await docs?.close();
  await closePg();
});

/** The `cimd:` and `client:` KV keys the worker holds for `clientId`. */
async function storedFor(clientId: string) {
  const kv = await worker.miniflare.getKVNamespace('NONCES');
  const exactly = async (name: string) => (await kv.list({ prefix: name })).keys.filter((key) => key.name === name);
  const cached = await exactly(`cimd:${clientId}`);
  const client = await exactly(`client:${clientId}`);
  return { cached, client };
}

/** Opens the authorize page for `clientId` on a fresh agent; the PKCE verifier and resource with it. */
async function authorize(clientId: string, overrides: Record<string, string> = {}) {
  const agent = await freshAgent(testnet);
  const { verifier, challenge } = pkce();
  const resource = mcpUrl(gw, agent.collection, agent.tokenId);
  const page = await openAuthorizePage(
    authorizeUrl(gw, {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      state: 'cimd-state',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource,
      ...overrides,
    }),
  );
  return { agent, verifier, resource, page };
}

/** The refusal on the page: 400, no redirect, the page's own look; its code and words. */
function refusal(page: { res: Response; html: string }) {
  expect(page.res.status, page.html.slice(0, 400)).toBe(400);
  expect(page.res.headers.get('location')).toBeNull();
  expect(page.res.headers.get('content-type')).toMatch(/^text\/html/);
  expect(page.html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
  expect(page.html).toContain('<h1>Authorization failed</h1>');
  return {
    code: /<code>([a-z_]+)<\/code>/.exec(page.html)?.[1],
    text: page.html.replace(/<[^>]+>/g, '').replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n))),
  };
}

describe('metadata', () => {
  it('advertises client_id_metadata_document_supported and authorization_response_iss_parameter_supported', async () => {
    const res = await call<Record<string, unknown>>(gw.baseUrl, '/.well-known/oauth-authorization-server');
    expect(res.status, res.text).toBe(200);
    expect(res.body.client_id_metadata_document_supported).toBe(true);
    expect(res.body.authorization_response_iss_parameter_supported).toBe(true);
    expect(res.body.registration_endpoint).toBe(`${gw.baseUrl}/oauth/register`);
  });
});

describe('a metadata-document client, end to end', () => {
  it('authorizes (the page names the document host), redirects with code, state and iss, exchanges, calls MCP and refreshes', async () => {
    const doc = docs.path();
    doc.set(json(documentFor(doc.clientId, [REDIRECT_URI]), { 'cache-control': 'public, max-age=3600' }));
    const { agent, verifier, resource, page } = await authorize(doc.clientId);
    expect(page.res.status, page.html.slice(0, 400)).toBe(200);
    expect(page.html).toContain(`<h1>Allow ${DOCUMENT_HOST} to use your agent?</h1>`);
    expect(page.html).toContain(`<code>${doc.clientId}</code>`);
    expect(page.html).toContain('CIMD test app');
    expect(page.html).not.toContain('(unverified)');
    // The approval the wallet signs names the client by its document's host, and the agent's MCP URL.
    const approval = parseSiweMessage((await approvalMessage(gw, page, agent.owner.address)).message);
    expect(approval.statement).toContain(`Allow the app at ${DOCUMENT_HOST} to use agent #${agent.tokenId}`);
    expect(approval.resources).toEqual([resource]);

    const approved = await approve(gw, page, agent.owner);
    expect(approved.status, approved.text).toBe(200);
    const to = new URL(approved.body.redirectTo);
    expect(`${to.origin}${to.pathname}`).toBe(REDIRECT_URI);
    expect(to.searchParams.get('state')).toBe('cimd-state');
    expect(to.searchParams.get('iss')).toBe(gw.baseUrl);

    const form = { client_id: doc.clientId, resource };
    const tokens = await tokenRequest(gw, {
      ...form,
      grant_type: 'authorization_code',
      code: to.searchParams.get('code') ?? '',
      redirect_uri: REDIRECT_URI,
      code_verifier: verifier,
    });
    expect(tokens.status, tokens.text).toBe(200);
    const listed = await mcpRpc(new URL(resource), tokens.body.access_token, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.text).toContain('"ask"');

    const refreshed = await tokenRequest(gw, { ...form, grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token });
    expect(refreshed.status, refreshed.text).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(tokens.body.refresh_token);
    const again = await mcpRpc(new URL(resource), refreshed.body.access_token, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(again.status, again.text).toBe(200);
    // Page, approval, code and refresh: one fetch, the rest from the cache.
    expect(doc.hits()).toBe(1);
    expect((await storedFor(doc.clientId)).client).toEqual([]);
  });

  it('refuses a redirect_uri the document does not list (400 on the page, no redirect)', async () => {
    const doc = docs.path();
    doc.set(json(documentFor(doc.clientId, ['https://app.example/callback'])));
    const { page } = await authorize(doc.clientId, { redirect_uri: 'https://attacker.example/callback' });
    expect(refusal(page).code).toBe('invalid_request');
  });

  it('refuses an approval, and then a code exchange, once the document stops validating', async () => {
    const doc = docs.path();
    doc.set(json(documentFor(doc.clientId, [REDIRECT_URI]), { 'cache-control': 'no-store' }));
    const first = await authorize(doc.clientId);
    expect(first.page.res.status).toBe(200);
    const second = await authorize(doc.clientId);
    const approved = await approve(gw, second.page, second.agent.owner);
    expect(approved.status, approved.text).toBe(200);
    doc.set(json(documentFor('https://someone.else.example/client.json', [REDIRECT_URI])));
    expectError(await approve(gw, first.page, first.agent.owner), 400, 'client_metadata_invalid');
    const code = new URL(approved.body.redirectTo).searchParams.get('code') ?? '';
    const exchange = await tokenRequest(gw, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: second.verifier,
      client_id: doc.clientId,
      resource: second.resource,
    });
    expect(exchange.status, exchange.text).toBe(401);
    expect(exchange.body.error).toBe('invalid_client');
  });
});

describe('the approval, against the document as it is then', () => {
  it('refuses an approval once the document no longer lists the redirect URI (400 client_metadata_invalid)', async () => {
    const doc = docs.path();
    doc.set(json(documentFor(doc.clientId, [REDIRECT_URI]), { 'cache-control': 'no-store' }));
    const { agent, page } = await authorize(doc.clientId);
    expect(page.res.status).toBe(200);
    doc.set(json(documentFor(doc.clientId, ['https://app.example/callback'])));
    expectError(await approve(gw, page, agent.owner), 400, 'client_metadata_invalid');
  });
});

describe('the cache', () => {
  it('fetches a document once for two authorizes within its max-age, and keeps it at most 24 hours', async () => {
    const doc = docs.path();
    doc.set(json(documentFor(doc.clientId, [REDIRECT_URI]), { 'cache-control': 'max-age=604800' }));
    expect((await authorize(doc.clientId)).page.res.status).toBe(200);
    expect((await authorize(doc.clientId)).page.res.status).toBe(200);
    expect(doc.hits()).toBe(1);
    const { cached } = await storedFor(doc.clientId);
    expect(cached.map((k) => k.name)).toEqual([`cimd:${doc.clientId}`]);
    const now = Date.now() / 1000;
    expect(cached[0]?.expiration).toBeGreaterThan(now + 24 * 3600 - 120);
    expect(cached[0]?.expiration).toBeLessThanOrEqual(now + 24 * 3600 + 5);
  });

  it('fetches again when the answer says no-store, and keeps nothing', async () => {
    const doc = docs.path();
    doc.set(json(documentFor(doc.clientId, [REDIRECT_URI]), { 'cache-control': 'no-store' }));
    expect((await authorize(doc.clientId)).page.res.status).toBe(200);
    expect((await authorize(doc.clientId)).page.res.status).toBe(200);
    expect(doc.hits()).toBe(2);
    expect((await storedFor(doc.clientId)).cached).toEqual([]);
  });
});

const slow: DocumentAnswer = async (res) => {
  await sleep(6500);
  if (!res.destroyed) res.end('{}');
};
const chunkedHuge: DocumentAnswer = (res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=3600' });
  res.write(`{"client_id":"x","pad":"${'a'.repeat(4000)}`);
  res.end(`${'b'.repeat(4000)}"}`);
};
const answer =
  (status: number, headers: Record<string, string>, body = ''): DocumentAnswer =>
  (res) => {
    res.writeHead(status, headers);
    res.end(body);
  };

describe('a document that fails to load or validate: 400 on the page in words, nothing stored, no redirect', () => {
  const cases: [string, (clientId: string) => DocumentAnswer, RegExp][] = [
    ['slow (over 5 s)', () => slow, /did not arrive within 5 s/],
    ['huge (6 KiB declared)', (id) => json({ ...documentFor(id, [REDIRECT_URI]), pad: 'p'.repeat(6000) }), /larger than 5 KiB/],
    ['huge (8 KiB chunked, no length)', () => chunkedHuge, /larger than 5 KiB/],
    [
      'a redirect',
      () => answer(302, { location: 'https://docs.tools.example/elsewhere.json' }),
      /redirect \(HTTP 302\); redirects are not followed/,
    ],
    [
      'HTML',
      () => answer(200, { 'content-type': 'text/html' }, '<html><body>hello</body></html>'),
      /is not JSON \(Content-Type: text\/html\)/,
    ],
    [
      'a client_id mismatch',
      () => json(documentFor('https://docs.tools.example/other.json', [REDIRECT_URI])),
      /names another client_id than its own URL/,
    ],
    ['bad JSON', () => answer(200, { 'content-type': 'application/json' }, '{"client_id": '), /is not a valid JSON object/],
    ['an error status', () => answer(404, { 'content-type': 'application/json' }, '{}'), /answered HTTP 404/],
    ['no redirect_uris', (id) => json({ client_id: id, client_name: 'x' }), /redirect_uris/],
    [
      'a confidential client',
      (id) => json(documentFor(id, [REDIRECT_URI], { token_endpoint_auth_method: 'private_key_jwt' })),
      /only public clients/,
    ],
    ['a client secret inside', (id) => json(documentFor(id, [REDIRECT_URI], { client_secret: 's3cret' })), /must not hold a client secret/],
    ['a 101-character name', (id) => json(documentFor(id, [REDIRECT_URI], { client_name: 'n'.repeat(101) })), /client_name/],
  ];

  it.each(cases)('refuses %s', { timeout: 20_000 }, async (_label, answerFor, words) => {
    const doc = docs.path();
    doc.set(answerFor(doc.clientId));
    const { page } = await authorize(doc.clientId);
    const { code, text } = refusal(page);
    expect(code).toBe('invalid_client');
    expect(text).toMatch(words);
    expect(text).toContain(doc.clientId);
    expect(doc.hits()).toBe(1);
    expect(await storedFor(doc.clientId)).toEqual({ cached: [], client: [] });
  });

  it.each([
    ['an IP literal', 'https://127.0.0.1/client.json', /must be a name, not an IP address/],
    ['a metadata host', 'https://metadata.google.internal/client.json', /public name, not a local or internal one/],
    ['a loopback name', 'https://localtest.me/client.json', /resolves to loopback/],
    ['plain http', `http://${DOCUMENT_HOST}/clients/x/client.json`, /must be an https URL/],
    ['a blocked port', `https://${DOCUMENT_HOST}:6379/client.json`, /Port 6379 is not allowed/],
    ['the site root', `https://${DOCUMENT_HOST}/`, /must have a path/],
    ['a non-canonical spelling', `https://DOCS.tools.example/clients/x/client.json`, /canonical form/],
  ])('refuses %s as a client_id before any connection', async (_label, clientId, words) => {
    const before = docs.listener.requests.length;
    const { page } = await authorize(clientId);
    const { code, text } = refusal(page);
    expect(code).toBe('invalid_client');
    expect(text).toMatch(words);
    expect(docs.listener.requests.length).toBe(before);
    expect(await storedFor(clientId)).toEqual({ cached: [], client: [] });
  });
});

describe('registered clients (dynamic registration stays)', () => {
  it("marks a registered client's self-given name unverified on the page", async () => {
    const registered = await registerClient(gw, { client_name: 'Old style client' });
    expect(registered.status, registered.text).toBe(201);
    const { page } = await authorize(registered.body.client_id);
    expect(page.res.status, page.html.slice(0, 400)).toBe(200);
    expect(page.html).toContain('<h1>Allow Old style client (unverified) to use your agent?</h1>');
  });
});

describe("the local stack's DEV_LOOPBACK_TARGETS", () => {
  it('accepts a loopback http client_id there, and production refuses it', { timeout: 60_000 }, async () => {
    const doc = docs.path();
    const loopbackId = `${docs.listener.url}${new URL(doc.clientId).pathname}`;
    doc.set(json(documentFor(loopbackId, [REDIRECT_URI])));
    const refused = await authorize(loopbackId);
    expect(refusal(refused.page).text).toMatch(/must be an https URL/);
    const dev = await workerWithToolServers(stack, {}, { DEV_LOOPBACK_TARGETS: '1' });
    try {
      const agent = await freshAgent(testnet);
      const devGateway = { ...testnet, baseUrl: dev.url };
      const page = await openAuthorizePage(
        authorizeUrl(devGateway, {
          response_type: 'code',
          client_id: loopbackId,
          redirect_uri: REDIRECT_URI,
          code_challenge: pkce().challenge,
          code_challenge_method: 'S256',
          resource: mcpUrl(devGateway, agent.collection, agent.tokenId),
        }),
      );
      expect(page.res.status, page.html.slice(0, 400)).toBe(200);
      expect(page.html).toContain(`<h1>Allow ${new URL(loopbackId).host} to use your agent?</h1>`);
    } finally {
      await dev.dispose();
    }
  });
});
