/**
 * The token endpoint under requests no client should send (issue 33): a made-up code is
 * `invalid_grant` (RFC 6749 §5.2), and bodies or client ids the OAuth library cannot take (a
 * multipart body without a boundary, a form in another charset, a client id longer than a KV key
 * may be) are a 4xx with an OAuth error code, never a 500.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { freshAgent } from '../support/agent';
import { call, deployment, type JsonResponse } from '../support/http';
import { mcpUrl, oauthTokens, pkce, publicClient, REDIRECT_URI, tokenRequest } from '../support/oauth';
import { closePg } from '../support/pg';

const testnet = deployment('testnet');

afterAll(closePg);

const raw = (body: string | Uint8Array, contentType: string, headers: Record<string, string> = {}) =>
  call(testnet.baseUrl, '/oauth/token', { method: 'POST', headers: { 'content-type': contentType, ...headers }, body });

function expectOAuthError(res: JsonResponse, statuses: number[], codes: string[]): void {
  expect(statuses, `${res.status} ${res.text}`).toContain(res.status);
  expect(codes, res.text).toContain((res.body as { error?: string } | undefined)?.error);
}

describe('a made-up authorization code', () => {
  it('is invalid_grant (400), whatever its shape, never invalid_target', async () => {
    const agent = await freshAgent(testnet);
    const clientId = await publicClient(testnet);
    const resource = mcpUrl(testnet, agent.collection, agent.tokenId);
    const prefix = `${agent.owner.address}.${agent.collection}.${agent.tokenId}`;
    for (const code of ['made-up', 'a:b:c', `${prefix}:abcdef:${'x'.repeat(32)}`]) {
      const res = await tokenRequest(testnet, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT_URI,
        code_verifier: pkce().verifier,
        client_id: clientId,
        resource,
      });
      expect(res.status, `${code}: ${res.text}`).toBe(400);
      expect(res.body.error, code).toBe('invalid_grant');
    }
    const refresh = await tokenRequest(testnet, { grant_type: 'refresh_token', refresh_token: 'made-up', client_id: clientId });
    expect(refresh.status, refresh.text).toBe(400);
    expect(refresh.body.error).toBe('invalid_grant');
  });
});

describe('bodies the library cannot read', () => {
  const form = 'grant_type=authorization_code&code=abc&client_id=x&code_verifier=y';

  it('a multipart body without a boundary is 400 invalid_request', async () => {
    expectOAuthError(await raw(form, 'multipart/form-data'), [400, 415], ['invalid_request']);
    const slashed = await call(testnet.baseUrl, '/oauth/token/', {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data' },
      body: form,
    });
    expectOAuthError(slashed, [400, 415], ['invalid_request']);
    expectOAuthError(await raw(form, 'multipart/form-data; boundary='), [400, 415], ['invalid_request']);
  });

  it('a form in latin1 or utf-16 is 400 invalid_request', async () => {
    expectOAuthError(await raw(form, 'application/x-www-form-urlencoded; charset=latin1'), [400, 415], ['invalid_request']);
    const utf16 = new Uint8Array(Buffer.from(`\ufeff${form}`, 'utf16le'));
    expectOAuthError(await raw(utf16, 'application/x-www-form-urlencoded; charset=utf-16'), [400, 415], ['invalid_request']);
    expectOAuthError(await raw(utf16, 'application/x-www-form-urlencoded'), [400, 415], ['invalid_request']);
  });

  it('a form in utf-8, said or not, still works', async () => {
    const agent = await freshAgent(testnet);
    const { clientId, tokens } = await oauthTokens(testnet, agent);
    const body = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId });
    const res = await raw(body.toString(), 'application/x-www-form-urlencoded; charset=UTF-8');
    expect(res.status, res.text).toBe(200);
  });
});

describe('a client id longer than a KV key may be', () => {
  const long = 'c'.repeat(506);
  const longer = 'c'.repeat(600);

  it('in the form: 4xx invalid_client or invalid_request', async () => {
    for (const client_id of [long, `https://example.com/${long}`]) {
      const res = await tokenRequest(testnet, {
        grant_type: 'authorization_code',
        code: 'abc',
        redirect_uri: REDIRECT_URI,
        code_verifier: 'y',
        client_id,
      });
      expectOAuthError(res, [400, 401], ['invalid_client', 'invalid_request']);
    }
    const refresh = await tokenRequest(testnet, { grant_type: 'refresh_token', refresh_token: 'made-up', client_id: long });
    expectOAuthError(refresh, [400, 401], ['invalid_client', 'invalid_request', 'invalid_grant']);
  });

  it('in Basic auth: 401 invalid_client', async () => {
    const malformed = await raw(form(), 'application/x-www-form-urlencoded', { authorization: 'Basic %%%' });
    expectOAuthError(malformed, [400, 401], ['invalid_client', 'invalid_request']);
    for (const id of [long, longer, 'c'.repeat(4000), encodeURIComponent('é'.repeat(300))]) {
      const basic = `Basic ${Buffer.from(`${id}:secret`).toString('base64')}`;
      const res = await raw(form(), 'application/x-www-form-urlencoded', { authorization: basic });
      expectOAuthError(res, [400, 401], ['invalid_client', 'invalid_request']);
    }
  });

  it('at revocation: 4xx invalid_client or invalid_request', async () => {
    const res = await tokenRequest(testnet, { token: 'a:b:c', client_id: long });
    expectOAuthError(res, [400, 401], ['invalid_client', 'invalid_request']);
    const basic = `Basic ${Buffer.from(`${longer}:s`).toString('base64')}`;
    expectOAuthError(
      await raw('token=a%3Ab%3Ac', 'application/x-www-form-urlencoded', { authorization: basic }),
      [400, 401],
      ['invalid_client', 'invalid_request'],
    );
  });
});

function form(): string {
  return 'grant_type=authorization_code&code=abc&code_verifier=y';
}

describe('the authorize page', () => {
  it('refuses a client id longer than a KV key may be on the page (400), never a 500', async () => {
    const agent = await freshAgent(testnet);
    for (const client_id of ['c'.repeat(506), `https://example.com/${'é'.repeat(300)}`]) {
      const query = new URLSearchParams({
        response_type: 'code',
        client_id,
        redirect_uri: REDIRECT_URI,
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
        resource: mcpUrl(testnet, agent.collection, agent.tokenId),
      });
      const res = await fetch(`${testnet.baseUrl}/oauth/authorize?${query}`, { redirect: 'manual' });
      expect(res.status, client_id.slice(0, 30)).toBe(400);
      expect(await res.text()).toContain('Authorization failed');
    }
  });
});
