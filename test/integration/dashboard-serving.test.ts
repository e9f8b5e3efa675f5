/**
 * The dashboard at /app as workerd serves it: Workers static assets (the wrangler
 * file's `[assets]`, built by the harness's `wrangler deploy --dry-run` through `[build]`), run
 * through the worker, which adds the strict CSP and security headers. The page, its hashed
 * files, and the refusals (unknown path, wrong method) with their codes.
 */
import { describe, expect, it } from 'vitest';
import { call, deployment, errorCode } from '../support/http';

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

function expectSecurityHeaders(headers: Headers) {
  expect(headers.get('content-security-policy')).toBe(CSP);
  expect(headers.get('x-content-type-options')).toBe('nosniff');
  expect(headers.get('x-frame-options')).toBe('DENY');
  expect(headers.get('referrer-policy')).toBe('no-referrer');
  expect(headers.get('cross-origin-opener-policy')).toBe('same-origin');
}

/** The page's own script and stylesheet URLs, read from the served HTML. */
function assetsOf(html: string) {
  const js = /<script type="module" src="(\/app\/assets\/main-[A-Z0-9]{8}\.js)"><\/script>/.exec(html)?.[1];
  const css = /<link rel="stylesheet" href="(\/app\/assets\/main-[A-Z0-9]{8}\.css)">/.exec(html)?.[1];
  if (!js || !css) throw new Error(`no hashed script or stylesheet in the page:\n${html}`);
  return { js, css };
}

describe('GET /app', () => {
  it.each(['mainnet', 'testnet'] as const)('%s: /app and /app/ serve the page under the strict CSP', async (name) => {
    for (const path of ['/app', '/app/']) {
      const res = await call(deployment(name).baseUrl, path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expectSecurityHeaders(res.headers);
      expect(res.text).toContain('<div id="root">');
      // Nothing inline: every script and style comes from a file of this origin.
      expect(res.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(res.text).not.toMatch(/<style|\sstyle=/);
      expect(res.text).not.toMatch(/https?:\/\//);
    }
  });

  it('serves the hashed script and stylesheet, cached for good, with the same headers', async () => {
    const base = deployment('testnet').baseUrl;
    const { js, css } = assetsOf((await call(base, '/app')).text);
    const script = await call(base, js);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/^(text|application)\/javascript/);
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expectSecurityHeaders(script.headers);
    expect(script.text.length).toBeGreaterThan(1000);
    const style = await call(base, css);
    expect(style.status).toBe(200);
    expect(style.headers.get('content-type')).toMatch(/^text\/css/);
    expect(style.text).toMatch(/prefers-color-scheme: ?dark/);
    const icon = await call(base, '/app/icon.svg');
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
  });

  it('an unknown path under /app is 404 not_found (no page served in its place)', async () => {
    const base = deployment('testnet').baseUrl;
    for (const path of ['/app/nope', '/app/assets/main-AAAAAAAA.js', '/app/index.html', '/app/assets/']) {
      const res = await call(base, path);
      expect(res.status, path).toBe(404);
      expect(errorCode(res), path).toBe('not_found');
    }
  });

  it('a method other than GET on /app is 405 method_not_allowed', async () => {
    const res = await call(deployment('testnet').baseUrl, '/app', { method: 'POST', json: {} });
    expect(res.status).toBe(405);
    expect(errorCode(res)).toBe('method_not_allowed');
    expect(res.headers.get('allow')).toContain('GET');
  });

  it('the API beside it is the worker as before (health answers JSON, no dashboard headers)', async () => {
    const res = await call(deployment('testnet').baseUrl, '/health');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toBeNull();
  });
});
