/**
 * OAuth 2.1 for MCP clients, in workerd against real KV, Postgres and anvil: the
 * metadata documents, dynamic registration and its bounds, the authorize request's refusals (PKCE
 * S256 only, `resource` required), the wallet's consent, the code and refresh exchanges (PKCE
 * verifier, single-use codes, rotating refresh tokens), and where an access token is refused.
 */
import { getAddress } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { freshAgent } from '../support/agent';
import { newWallet, transferFreshAgent } from '../support/chain';
import { call, deployment, expectError } from '../support/http';
import { agentPath } from '../support/login';
import {
  approvalMessage,
  approve,
  authorizeUrl,
  mcpUrl,
  oauthTokens,
  openAuthorizePage,
  pkce,
  postApproval,
  publicClient,
  REDIRECT_URI,
  registerClient,
  tokenRequest,
} from '../support/oauth';
import { closePg } from '../support/pg';

const testnet = deployment('testnet');
const origin = new URL(testnet.baseUrl).origin;

afterAll(closePg);

describe('metadata', () => {
  it("serves RFC 9728 metadata for an agent's MCP URL, naming the gateway as its authorization server", async () => {
    const agent = await freshAgent(testnet);
    const collection = getAddress(agent.collection);
    const res = await call(testnet.baseUrl, `/.well-known/oauth-protected-resource/agent/${collection}/${agent.tokenId}/mcp`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      resource: `${origin}/agent/${collection}/${agent.tokenId}/mcp`,
      authorization_servers: [origin],
      scopes_supported: ['mcp'],
      bearer_methods_supported: ['header'],
    });
  });

  it('refuses metadata for a malformed agent (400) or an unregistered collection (404)', async () => {
    expectError(await call(testnet.baseUrl, '/.well-known/oauth-protected-resource/agent/0x123/1/mcp'), 400, 'validation_failed');
    const stranger = newWallet().address;
    expectError(await call(testnet.baseUrl, `/.well-known/oauth-protected-resource/agent/${stranger}/1/mcp`), 404, 'agent_not_found');
  });

  it('serves RFC 8414 metadata: issuer, endpoints, S256 only, no placeholder resource', async () => {
    const res = await call<Record<string, unknown>>(testnet.baseUrl, '/.well-known/oauth-authorization-server');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      issuer: origin,
      authorization_endpoint: `${origin}/oauth/authorize`,
      token_endpoint: `${origin}/oauth/token`,
      registration_endpoint: `${origin}/oauth/register`,
      code_challenge_methods_supported: ['S256'],
      response_types_supported: ['code'],
      scopes_supported: ['mcp'],
    });
    expect(res.body.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token']));
    expect(res.body).not.toHaveProperty('protected_resources');
  });

  it('answers metadata and registration the same with a trailing slash and a query (never 500)', async () => {
    const plain = await call<Record<string, unknown>>(testnet.baseUrl, '/.well-known/oauth-authorization-server');
    const slashed = await call<Record<string, unknown>>(testnet.baseUrl, '/.well-known/oauth-authorization-server/?x=1');
    expect(slashed.status, slashed.text).toBe(200);
    expect(slashed.body).toEqual(plain.body);
    const registered = await call<Record<string, unknown>>(testnet.baseUrl, '/oauth/register/', {
      method: 'POST',
      json: { redirect_uris: [REDIRECT_URI], client_name: 'Test MCP client', token_endpoint_auth_method: 'none' },
    });
    expect(registered.status, registered.text).toBe(201);
    expect(registered.body.client_id).toEqual(expect.any(String));
  });
});

describe('dynamic client registration', () => {
  it('registers a public client (201, no secret)', async () => {
    const res = await registerClient(testnet);
    expect(res.status, res.text).toBe(201);
    expect(res.body.client_id).toEqual(expect.any(String));
    expect(res.body.client_secret).toBeUndefined();
    expect(res.body.redirect_uris).toEqual([REDIRECT_URI]);
  });

  it.each([
    ['http on a public host', { redirect_uris: ['http://example.com/cb'] }, 'invalid_redirect_uri'],
    ['a fragment', { redirect_uris: ['https://example.com/cb#x'] }, 'invalid_redirect_uri'],
    ['a private-use scheme', { redirect_uris: ['com.example.app:/cb'] }, 'invalid_redirect_uri'],
    ['no redirect URI', { redirect_uris: [] }, 'invalid_redirect_uri'],
    ['eleven redirect URIs', { redirect_uris: Array.from({ length: 11 }, (_, i) => `https://example.com/${i}`) }, 'invalid_redirect_uri'],
    ['a 2001-character redirect URI', { redirect_uris: [`https://example.com/${'a'.repeat(1981)}`] }, 'invalid_redirect_uri'],
    ['a 101-character name', { client_name: 'n'.repeat(101) }, 'invalid_client_metadata'],
    ['a name with a control character', { client_name: 'a\u0007b' }, 'invalid_client_metadata'],
    ['an http logo', { logo_uri: 'http://example.com/logo.png' }, 'invalid_client_metadata'],
    ['the implicit grant', { grant_types: ['implicit'] }, 'invalid_client_metadata'],
    ['six contacts', { contacts: ['a', 'b', 'c', 'd', 'e', 'f'] }, 'invalid_client_metadata'],
    ['31 fields', Object.fromEntries(Array.from({ length: 31 }, (_, i) => [`x_${i}`, 1])), 'invalid_client_metadata'],
    ['9 KiB of metadata', { x_big: 'b'.repeat(9000) }, 'invalid_client_metadata'],
  ])('refuses %s with 400 %s', async (_label, metadata, code) => {
    const res = await registerClient(testnet, metadata);
    expect(res.status, res.text).toBe(400);
    expect(res.body).toMatchObject({ error: code, error_description: expect.any(String) });
  });
});

describe('the authorize request', () => {
  const request = async (overrides: Record<string, string | undefined>) => {
    const agent = await freshAgent(testnet);
    const clientId = await publicClient(testnet);
    const { challenge } = pkce();
    return openAuthorizePage(
      authorizeUrl(testnet, {
        response_type: 'code',
        client_id: clientId,
        redirect_uri: REDIRECT_URI,
        state: 's1',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        resource: mcpUrl(testnet, agent.collection, agent.tokenId),
        ...overrides,
      }),
    );
  };
  /** The refusal shown on the page (400, no redirect): its error code. */
  const pageError = ({ res, html }: { res: Response; html: string }) => {
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    return /<code>([a-z_]+)<\/code>/.exec(html)?.[1];
  };

  it('refuses PKCE plain, and no PKCE at all, on the page: never redirected before consent (invalid_request)', async () => {
    expect(pageError(await request({ code_challenge_method: 'plain' }))).toBe('invalid_request');
    expect(pageError(await request({ code_challenge: undefined, code_challenge_method: undefined }))).toBe('invalid_request');
  });

  it('requires resource: missing, another origin, or no agent MCP URL is invalid_target, on the page', async () => {
    expect(pageError(await request({ resource: undefined }))).toBe('invalid_target');
    expect(pageError(await request({ resource: 'https://elsewhere.example/agent/x/1/mcp' }))).toBe('invalid_target');
    expect(pageError(await request({ resource: `${origin}/agent/${testnet.collection.toLowerCase()}/1/mcp` }))).toBe('invalid_target');
  });

  it('shows an unknown client or an unregistered redirect URI on the page, never redirecting (400)', async () => {
    const unknown = await request({ client_id: 'no-such-client' });
    expect(unknown.res.status).toBe(400);
    expect(unknown.html).toContain('invalid_request');
    const elsewhere = await request({ redirect_uri: 'https://attacker.example/cb' });
    expect(elsewhere.res.status).toBe(400);
    expect(elsewhere.res.headers.get('location')).toBeNull();
  });

  it('renders the page under a strict CSP, naming the client (escaped) and the agent', async () => {
    const agent = await freshAgent(testnet);
    const reg = await registerClient(testnet, { client_name: '<img src=x onerror=alert(1)>' });
    const page = await openAuthorizePage(
      authorizeUrl(testnet, {
        response_type: 'code',
        client_id: reg.body.client_id,
        redirect_uri: REDIRECT_URI,
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
        resource: mcpUrl(testnet, agent.collection, agent.tokenId),
      }),
    );
    expect(page.res.status).toBe(200);
    const csp = page.res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/script-src 'nonce-[A-Za-z0-9+/=]+'/);
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(page.res.headers.get('x-frame-options')).toBe('DENY');
    expect(page.html).not.toContain('<img src=x');
    expect(page.html).toContain('&#60;img src=x onerror=alert(1)&#62;');
    expect(page.html).toContain(`#${agent.tokenId}`);
    expect(page.html).toContain(getAddress(agent.collection));
    expect(page.handle).not.toBe('');
    expect(page.cookie).toMatch(/^__Host-oauth-consent/);
  });
});

describe('consent with the wallet', () => {
  const pageFor = async (agent: { collection: string; tokenId: bigint }) => {
    const clientId = await publicClient(testnet);
    const { verifier, challenge } = pkce();
    const page = await openAuthorizePage(
      authorizeUrl(testnet, {
        response_type: 'code',
        client_id: clientId,
        redirect_uri: REDIRECT_URI,
        state: 'xyz',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        resource: mcpUrl(testnet, agent.collection, agent.tokenId),
      }),
    );
    return { clientId, verifier, page };
  };

  it('refuses a wallet that does not own the agent (403 not_owner), with a valid signature', async () => {
    const agent = await freshAgent(testnet);
    const { page } = await pageFor(agent);
    expectError(await approve(testnet, page, newWallet()), 403, 'not_owner');
  });

  it('refuses a handle without its browser cookie, and a handle used twice (400 consent_invalid)', async () => {
    const agent = await freshAgent(testnet);
    const { page } = await pageFor(agent);
    expectError(await approve(testnet, { ...page, cookie: '' }, agent.owner), 400, 'consent_invalid');
    const first = await approve(testnet, page, agent.owner);
    expect(first.status, first.text).toBe(200);
    expectError(await approve(testnet, page, agent.owner), 400, 'consent_invalid');
  });

  it('refuses a wrong signature (401 signature_invalid)', async () => {
    const agent = await freshAgent(testnet);
    const { page } = await pageFor(agent);
    const approval = await approvalMessage(testnet, page, agent.owner.address);
    const signature = await newWallet().signMessage({ message: approval.message });
    expectError(await postApproval(testnet, page, agent.owner.address, { nonce: approval.nonce, signature }), 401, 'signature_invalid');
  });

  it('redirects with a code, state and iss; the code needs the right PKCE verifier and works once', async () => {
    const agent = await freshAgent(testnet);
    const { clientId, verifier, page } = await pageFor(agent);
    const approved = await approve(testnet, page, agent.owner);
    expect(approved.status, approved.text).toBe(200);
    const to = new URL(approved.body.redirectTo);
    expect(`${to.origin}${to.pathname}`).toBe(REDIRECT_URI);
    expect(to.searchParams.get('state')).toBe('xyz');
    expect(to.searchParams.get('iss')).toBe(origin);
    const code = to.searchParams.get('code') ?? '';
    const resource = mcpUrl(testnet, agent.collection, agent.tokenId);
    const exchange = (code_verifier: string) =>
      tokenRequest(testnet, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT_URI,
        code_verifier,
        client_id: clientId,
        resource,
      });

    const wrong = await exchange(pkce().verifier);
    expect(wrong.status, wrong.text).toBe(400);
    expect(wrong.body.error).toBe('invalid_grant');
    const ok = await exchange(verifier);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toMatchObject({ token_type: 'bearer', expires_in: 600, scope: 'mcp', resource });
    expect(ok.body.refresh_token).toEqual(expect.any(String));
    const again = await exchange(verifier);
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');
  });
});

describe('refresh tokens', () => {
  it('rotate: each refresh answers a new pair, and a refresh token replaced by a used successor is refused', async () => {
    const agent = await freshAgent(testnet);
    const { clientId, tokens } = await oauthTokens(testnet, agent);
    const refresh = (refresh_token: string) => tokenRequest(testnet, { grant_type: 'refresh_token', refresh_token, client_id: clientId });
    const second = await refresh(tokens.refresh_token);
    expect(second.status, second.text).toBe(200);
    expect(second.body.refresh_token).not.toBe(tokens.refresh_token);
    expect(second.body.access_token).not.toBe(tokens.access_token);
    const third = await refresh(second.body.refresh_token);
    expect(third.status, third.text).toBe(200);
    // The first is out of rotation once its successor was used.
    const reused = await refresh(tokens.refresh_token);
    expect(reused.status, reused.text).toBe(400);
    expect(reused.body.error).toBe('invalid_grant');
  });

  it('refuses a body that is not a form, on either spelling of the path (415 unsupported_media_type, never 500)', async () => {
    for (const path of ['/oauth/token', '/oauth/token/']) {
      const res = await call(testnet.baseUrl, path, { method: 'POST', json: [[[{ grant_type: 'authorization_code' }]]] });
      expectError(res, 415, 'unsupported_media_type');
    }
  });

  it("refuses another client's refresh token and a forged prefix (invalid_grant)", async () => {
    const agent = await freshAgent(testnet);
    const { tokens } = await oauthTokens(testnet, agent);
    const other = await publicClient(testnet);
    const stolen = await tokenRequest(testnet, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: other });
    expect(stolen.status).toBe(400);
    expect(stolen.body.error).toBe('invalid_grant');
    const forged = tokens.refresh_token.replace(/^[^.]+/, newWallet().address);
    const res = await tokenRequest(testnet, { grant_type: 'refresh_token', refresh_token: forged, client_id: other });
    expect(res.status).toBe(400);
  });
});

describe('where an access token is accepted', () => {
  it('is refused on a REST route of its own agent (401 invalid_token)', async () => {
    const agent = await freshAgent(testnet);
    const { tokens } = await oauthTokens(testnet, agent);
    const res = await call(testnet.baseUrl, agentPath(agent.collection, agent.tokenId, '/contexts/keys'), { token: tokens.access_token });
    expectError(res, 401, 'invalid_token');
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const write = await call(testnet.baseUrl, agentPath(agent.collection, agent.tokenId, '/contexts'), {
      method: 'POST',
      token: tokens.access_token,
      json: { keys: ['oauth-must-not-write'] },
    });
    expectError(write, 401, 'invalid_token');
  });
});

describe('on the MCP route', () => {
  const rpc = (collection: string, tokenId: bigint, credential: string) =>
    call<any>(testnet.baseUrl, agentPath(collection, tokenId, '/mcp'), {
      method: 'POST',
      token: credential,
      headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      json: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });

  it("works on its own agent's MCP URL, also spelled in lower case", async () => {
    const agent = await freshAgent(testnet);
    const { tokens } = await oauthTokens(testnet, agent);
    const res = await rpc(agent.collection, agent.tokenId, tokens.access_token);
    expect(res.status, res.text).toBe(200);
    expect((res.body.result.tools as { name: string }[]).map((t) => t.name)).toEqual(expect.arrayContaining(['ask', 'memory_search']));
    expect((await rpc(agent.collection.toLowerCase(), agent.tokenId, tokens.access_token)).status).toBe(200);
  });

  it("is refused on another agent's MCP URL of the same owner: 401 invalid_token naming that resource's metadata", async () => {
    const agent = await freshAgent(testnet);
    const other = await freshAgent(testnet, { owner: agent.owner, token: agent.token });
    const { tokens } = await oauthTokens(testnet, agent);
    const res = await rpc(other.collection, other.tokenId, tokens.access_token);
    expectError(res, 401, 'invalid_token');
    const challenge = res.headers.get('www-authenticate') ?? '';
    expect(challenge).toContain('error="invalid_token"');
    expect(challenge).toContain(
      `resource_metadata="${origin}/.well-known/oauth-protected-resource/agent/${getAddress(other.collection)}/${other.tokenId}/mcp"`,
    );
  });

  it('refuses an unknown, a forged and a revoked token (401 invalid_token)', async () => {
    const agent = await freshAgent(testnet);
    const { clientId, tokens } = await oauthTokens(testnet, agent);
    const [userId, grantId] = tokens.access_token.split(':');
    expectError(await rpc(agent.collection, agent.tokenId, `${userId}:${grantId}:${'x'.repeat(32)}`), 401, 'invalid_token');
    expectError(await rpc(agent.collection, agent.tokenId, 'a:b:c'), 401, 'invalid_token');
    const revoked = await tokenRequest(testnet, { token: tokens.access_token, client_id: clientId });
    expect(revoked.status, revoked.text).toBe(200);
    expectError(await rpc(agent.collection, agent.tokenId, tokens.access_token), 401, 'invalid_token');
  });

  it('after a transfer of the agent: 403 not_owner on the next call, and a refreshed token too until the grant is revoked', async () => {
    const agent = await freshAgent(testnet);
    const { clientId, tokens } = await oauthTokens(testnet, agent);
    expect((await rpc(agent.collection, agent.tokenId, tokens.access_token)).status).toBe(200);
    await transferFreshAgent(testnet, agent.owner, newWallet().address, agent.tokenId);
    expectError(await rpc(agent.collection, agent.tokenId, tokens.access_token), 403, 'not_owner');
    const refreshed = await tokenRequest(testnet, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    // The 403 revoked the seller's grants in the background (oauth-sale.test.ts): either this refresh
    // came first and its token is refused as not the owner's, or the grant is gone already.
    if (refreshed.status === 200) {
      const res = await rpc(agent.collection, agent.tokenId, refreshed.body.access_token);
      expect([401, 403], res.text).toContain(res.status);
    } else {
      expect(refreshed.body.error).toBe('invalid_grant');
    }
  });
});
