import { describe, expect, inject, it } from 'vitest';
import { startMiniflare } from '../../scripts/lib/worker-bundle';
import { newWallet } from '../support/chain';
import { call, deployment, errorCode, postEarlyAnswer } from '../support/http';
import { workerBindingsFor } from '../support/worker';

const stack = inject('stack');
const { baseUrl } = deployment('testnet');
const init = '/auth/jwt/init';
const validBody = () => JSON.stringify({ walletAddress: newWallet().address, chainId: 80002 });

describe('bad input at the edge', () => {
  it('answers 400 invalid_json for a malformed JSON body', async () => {
    const res = await call(baseUrl, init, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"walletAddress": ' });
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe('invalid_json');
  });

  it.each([
    ['arrays', (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`],
    ['objects', (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`],
  ])('answers 400 invalid_json, not a 500, for %s nested 100000 deep (no token needed), and 64 deep still parses', async (_, nest) => {
    const deep = await call(baseUrl, init, { method: 'POST', headers: { 'content-type': 'application/json' }, body: nest(100_000) });
    expect(deep.status, deep.text).toBe(400);
    expect(errorCode(deep)).toBe('invalid_json');
    expect((deep.body as { error: { message: string } }).error.message).toMatch(/deeper than 64/);
    // At the limit the body parses and reaches the route's validation.
    const ok = await call(baseUrl, init, { method: 'POST', headers: { 'content-type': 'application/json' }, body: nest(64) });
    expect(ok.status).toBe(400);
    expect(errorCode(ok)).toBe('validation_failed');
    // Brackets inside strings do not count.
    const strings = await call(baseUrl, init, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ walletAddress: '['.repeat(10_000), chainId: 80002, note: '{\\"['.repeat(1000) }),
    });
    expect(errorCode(strings)).toBe('validation_failed');
  });

  it('answers 400 invalid_json for an empty JSON body', async () => {
    const res = await call(baseUrl, init, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '' });
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe('invalid_json');
  });

  it('answers 400 validation_failed listing each problem for a body of the wrong shape', async () => {
    const res = await call(baseUrl, init, { method: 'POST', json: { walletAddress: 42 } });
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe('validation_failed');
    const issues = (res.body as { error: { details: { issues: { path: string }[] } } }).error.details.issues;
    expect(issues.map((i) => i.path).sort()).toEqual(['chainId', 'walletAddress']);
  });

  it.each([
    ['no content type', undefined],
    ['text/plain', 'text/plain'],
    ['form data', 'application/x-www-form-urlencoded'],
    ['a JSON look-alike', 'application/jsonp'],
  ])('answers 415 for a POST with %s', async (_, type) => {
    const res = await call(baseUrl, init, { method: 'POST', headers: type ? { 'content-type': type } : {}, body: validBody() });
    expect(res.status).toBe(415);
    expect(errorCode(res)).toBe('unsupported_media_type');
  });

  it('accepts application/json with a charset', async () => {
    const res = await call(baseUrl, init, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: validBody(),
    });
    expect(res.status).toBe(200);
  });

  it('answers 413 for a body over MAX_BODY_BYTES, declared or streamed', async () => {
    // A small limit keeps the body inside socket buffers, so the early 413 can be read back.
    const worker = await startMiniflare({
      scriptPath: stack.scriptPath,
      deployment: 'testnet',
      bindings: { ...workerBindingsFor(stack), MAX_BODY_BYTES: '2048' },
    });
    try {
      const big = new TextEncoder().encode(JSON.stringify({ walletAddress: 'x'.repeat(5_000), chainId: 80002 }));
      const declared = await postEarlyAnswer(worker.url + init, big, { chunked: false });
      expect(declared.status).toBe(413);
      expect(errorCode(declared)).toBe('payload_too_large');
      const streamed = await postEarlyAnswer(worker.url + init, big, { chunked: true });
      expect(streamed.status).toBe(413);
      expect(errorCode(streamed)).toBe('payload_too_large');
      const fits = await call(worker.url, init, { method: 'POST', headers: { 'content-type': 'application/json' }, body: validBody() });
      expect(fits.status).toBe(200);
    } finally {
      await worker.dispose();
    }
  });

  it('answers 404 JSON for an unknown route, whatever the method', async () => {
    for (const method of ['GET', 'POST', 'DELETE']) {
      const res = await call(baseUrl, '/no/such/route', {
        method,
        headers: { 'content-type': 'application/json' },
        body: method === 'GET' ? undefined : '{}',
      });
      expect(res.status).toBe(404);
      expect(errorCode(res)).toBe('not_found');
    }
  });

  it('answers 404 (not 401) for an unknown route under an agent path', async () => {
    const res = await call(baseUrl, `/agent/${newWallet().address}/1/no-such-thing`);
    expect(res.status).toBe(404);
    expect(errorCode(res)).toBe('not_found');
  });

  it('answers 405 with an Allow header for a wrong method on a known path', async () => {
    const get = await call(baseUrl, init);
    expect(get.status).toBe(405);
    expect(errorCode(get)).toBe('method_not_allowed');
    expect(get.headers.get('allow')).toBe('POST');
    const post = await call(baseUrl, '/health', { method: 'POST', json: {} });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    const del = await call(baseUrl, `/agent/${newWallet().address}/1`, { method: 'DELETE' });
    expect(del.status).toBe(405);
  });
});

describe('every response', () => {
  it('carries a request id, echoed from a safe X-Request-Id and replaced when unsafe', async () => {
    const plain = await call(baseUrl, '/health');
    expect(plain.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await call(baseUrl, '/health', { headers: { 'x-request-id': 'pipeline-run-42.step-7' } });
    expect(echoed.headers.get('x-request-id')).toBe('pipeline-run-42.step-7');
    const unsafe = await call(baseUrl, '/health', { headers: { 'x-request-id': '<script>alert(1)</script>' } });
    expect(unsafe.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const error = await call(baseUrl, '/nope');
    expect(errorCode(error)).toBe('not_found'); // errorCode checks body.requestId === X-Request-Id
  });

  it('never carries a stack trace or internals in an error body, and is not cached', async () => {
    const res = await call(baseUrl, init, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' });
    expect(res.text).not.toMatch(/at .*\(.*:\d+:\d+\)|SyntaxError|node_modules/);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('answers CORS preflights so a browser dashboard can call the API', async () => {
    const res = await fetch(baseUrl + init, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://dashboard.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,authorization',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
  });
});

describe('documentation', () => {
  it('serves an OpenAPI 3.1 document listing every route, each agent route with its gate errors', async () => {
    const res = await call<{
      openapi: string;
      paths: Record<string, Record<string, { responses: Record<string, unknown>; security?: unknown[] }>>;
    }>(baseUrl, '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\.1/);
    expect(Object.keys(res.body.paths)).toEqual(
      expect.arrayContaining([
        '/agent/{agentCollectionAddress}/{agentTokenId}',
        '/auth/jwt/finish',
        '/auth/jwt/init',
        '/health',
        '/wallet/verify',
      ]),
    );
    for (const [path, operations] of Object.entries(res.body.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        // 200, or 201 where a standard says so (RFC 7591 registration).
        expect(
          Object.keys(operation.responses).filter((status) => status === '200' || status === '201'),
          `${method} ${path}`,
        ).not.toEqual([]);
        if (!path.startsWith('/agent/')) continue;
        if (Array.isArray(operation.security) && operation.security.length === 0) continue; // public: test/integration/profile.test.ts
        // The owner's token everywhere; an agent key too where the key table names a scope.
        const keyed = (operation as { 'x-agent-key-scope'?: string })['x-agent-key-scope'] !== undefined;
        expect(operation.security, `${method} ${path}`).toEqual(keyed ? [{ bearer: [] }, { agentKey: [] }] : [{ bearer: [] }]);
        for (const status of ['400', '401', '403', '404', '503']) expect(operation.responses, `${method} ${path}`).toHaveProperty(status);
      }
    }
  });

  it('serves the interactive reference at /docs, and / leads there', async () => {
    const docs = await call(baseUrl, '/docs');
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toContain('text/html');
    expect(docs.text).toContain('data-spec-url="/openapi.json"');
    expect(docs.headers.get('content-security-policy')).toMatch(
      /^default-src 'none'; script-src 'sha256-[A-Za-z0-9+/]+=*'; style-src 'sha256-/,
    );
    const root = await call(baseUrl, '/');
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/docs');
  });
});
