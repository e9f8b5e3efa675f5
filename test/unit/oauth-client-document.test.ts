/**
 * The rules of an OAuth client metadata document (src/oauth/client-document.ts) and its cache
 * lifetime (client-document.store.ts), as pure functions: the URL before any connection, the
 * document's contents, and how long its caching headers let us keep it.
 */
import { describe, expect, it } from 'vitest';
import { checkDocumentUrl, isDocumentClientId, listsRedirectUri, parseDocument } from '../../src/oauth/client-document';
import { documentCacheSeconds } from '../../src/oauth/client-document.store';

const URL_ID = 'https://app.example.com/oauth/client.json';
const production = { loopbackTargets: false };
const bytes = (value: unknown) => new TextEncoder().encode(typeof value === 'string' ? value : JSON.stringify(value));
const doc = (extra: Record<string, unknown> = {}) => ({ client_id: URL_ID, redirect_uris: ['https://app.example.com/cb'], ...extra });

describe('which client_id is a document', () => {
  it('is any URL-shaped id; registered ids are letters and digits', () => {
    expect(isDocumentClientId(URL_ID)).toBe(true);
    expect(isDocumentClientId('http://127.0.0.1:8080/c.json')).toBe(true);
    expect(isDocumentClientId('aB3dE5fG7hJ9kL1m')).toBe(false);
  });
});

describe('the document URL', () => {
  it('accepts a canonical https URL with a path', () => {
    expect(checkDocumentUrl(URL_ID, production)).toEqual({ ok: true });
    expect(checkDocumentUrl('https://app.example.com/c.json?v=1', production)).toEqual({ ok: true });
  });

  it.each([
    ['http', 'http://app.example.com/c.json'],
    ['an IP literal', 'https://10.0.0.1/c.json'],
    ['an internal name', 'https://vault.internal/c.json'],
    ['userinfo', 'https://u:p@app.example.com/c.json'],
    ['a fragment', 'https://app.example.com/c.json#x'],
    ['dot segments', 'https://app.example.com/a/../c.json'],
    ['the root', 'https://app.example.com/'],
    ['a default port spelled out', 'https://app.example.com:443/c.json'],
    ['over 400 characters', `https://app.example.com/${'a'.repeat(400)}`],
    ['loopback http in production', 'http://127.0.0.1:8080/c.json'],
  ])('refuses %s', (_label, url) => {
    const checked = checkDocumentUrl(url, production);
    expect(checked.ok).toBe(false);
  });

  it('accepts loopback http with the local stack switch', () => {
    expect(checkDocumentUrl('http://127.0.0.1:8080/c.json', { loopbackTargets: true })).toEqual({ ok: true });
  });
});

describe('the document', () => {
  it('keeps client_id, name and redirect URIs of a valid public client', () => {
    expect(parseDocument(URL_ID, 'application/json; charset=utf-8', bytes(doc({ client_name: 'App' })))).toEqual({
      clientId: URL_ID,
      clientName: 'App',
      redirectUris: ['https://app.example.com/cb'],
    });
  });

  it('accepts a document offering none beside private_key_jwt, and an app scheme beside an https redirect URI', () => {
    const offered = doc({
      token_endpoint_auth_methods_supported: ['private_key_jwt', 'none'],
      redirect_uris: ['app.example:/cb', 'https://a.example/cb'],
    });
    expect(parseDocument(URL_ID, 'application/json', bytes(offered))).toHaveProperty('clientId', URL_ID);
  });

  it.each([
    ['HTML', 'text/html', bytes('<html></html>'), 'not_json'],
    ['bad JSON', 'application/json', bytes('{"client_id":'), 'invalid_json'],
    ['an array', 'application/json', bytes([]), 'invalid_json'],
    ['not UTF-8', 'application/json', new Uint8Array([0x7b, 0xff, 0x7d]), 'invalid_json'],
    ['another client_id', 'application/json', bytes(doc({ client_id: 'https://app.example.com/other.json' })), 'client_id_mismatch'],
    ['no redirect URI', 'application/json', bytes(doc({ redirect_uris: [] })), 'invalid_metadata'],
    ['only an app scheme', 'application/json', bytes(doc({ redirect_uris: ['app.example:/cb'] })), 'invalid_metadata'],
    [
      'a javascript: redirect URI',
      'application/json',
      bytes(doc({ redirect_uris: ['https://a.example/cb', 'javascript:alert(1)'] })),
      'invalid_metadata',
    ],
    ['a secret', 'application/json', bytes(doc({ client_secret: 'x' })), 'invalid_metadata'],
    ['client_secret_basic', 'application/json', bytes(doc({ token_endpoint_auth_method: 'client_secret_basic' })), 'invalid_metadata'],
    ['no authorization_code grant', 'application/json', bytes(doc({ grant_types: ['client_credentials'] })), 'invalid_metadata'],
    ['a control character in the name', 'application/json', bytes(doc({ client_name: 'a\u202eb' })), 'invalid_metadata'],
  ])('refuses %s', (_label, type, body, kind) => {
    expect(parseDocument(URL_ID, type, body)).toMatchObject({ kind });
  });
});

describe('the cache lifetime', () => {
  const seconds = (headers: Record<string, string>) => documentCacheSeconds(new Headers(headers));

  it('follows max-age (s-maxage first), less Age, at most a day', () => {
    expect(seconds({ 'cache-control': 'public, max-age=3600' })).toBe(3600);
    expect(seconds({ 'cache-control': 'max-age=3600, s-maxage=600' })).toBe(600);
    expect(seconds({ 'cache-control': 'max-age=3600', age: '600' })).toBe(3000);
    expect(seconds({ 'cache-control': 'max-age=604800' })).toBe(86400);
  });

  it('keeps nothing without max-age, under 60 s, or with no-store, no-cache or private', () => {
    expect(seconds({})).toBeUndefined();
    expect(seconds({ 'cache-control': 'public' })).toBeUndefined();
    expect(seconds({ 'cache-control': 'max-age=59' })).toBeUndefined();
    expect(seconds({ 'cache-control': 'no-store, max-age=3600' })).toBeUndefined();
    expect(seconds({ 'cache-control': 'max-age=3600, no-cache' })).toBeUndefined();
    expect(seconds({ 'cache-control': 'private, max-age=3600' })).toBeUndefined();
  });
});

describe('a redirect URI the document lists', () => {
  const listed = { clientId: URL_ID, redirectUris: ['https://app.example.com/cb', 'http://127.0.0.1/callback?x=1'] };

  it('matches exactly, or loopback http on any port (RFC 8252)', () => {
    expect(listsRedirectUri(listed, 'https://app.example.com/cb')).toBe(true);
    expect(listsRedirectUri(listed, 'http://127.0.0.1:33418/callback?x=1')).toBe(true);
  });

  it('refuses anything else', () => {
    expect(listsRedirectUri(listed, 'https://app.example.com/cb/')).toBe(false);
    expect(listsRedirectUri(listed, 'https://app.example.com:8443/cb')).toBe(false);
    expect(listsRedirectUri(listed, 'http://127.0.0.1:33418/callback')).toBe(false);
    expect(listsRedirectUri(listed, 'http://localhost:33418/callback?x=1')).toBe(false);
  });
});
