import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../scripts/lib/openapi-document';
import { createApp } from '../../src/app';

describe('the OpenAPI document', () => {
  const app = createApp();
  const doc = app.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 'agent-gateway', version: 'test' } });

  it('generates, and documents every route the app serves', () => {
    const documented = new Set<string>();
    for (const [path, ops] of Object.entries(doc.paths ?? {})) {
      for (const method of Object.keys(ops ?? {})) documented.add(`${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`);
    }
    // Pages, not operations: the reference page, its document, the dashboard (/app, its files under /app/*).
    const served = app.routes
      .filter((r) => r.method !== 'ALL' && !r.path.includes('*') && !['/docs', '/', '/openapi.json', '/app'].includes(r.path))
      .map((r) => `${r.method} ${r.path}`);
    expect(served.length).toBeGreaterThan(5);
    for (const route of served) expect(documented, route).toContain(route);
  });

  it('gives every operation a summary, a description and tags', () => {
    for (const [path, ops] of Object.entries(doc.paths ?? {})) {
      for (const [method, op] of Object.entries(ops ?? {}) as [string, { summary?: string; description?: string; tags?: string[] }][]) {
        expect(op.summary, `${method} ${path}`).toBeTruthy();
        expect(op.description, `${method} ${path}`).toBeTruthy();
        expect(op.tags?.length, `${method} ${path}`).toBeGreaterThan(0);
      }
    }
  });

  it('documents 429 rate_limited with Retry-After on every operation (every one is rate limited)', () => {
    let operations = 0;
    for (const [path, ops] of Object.entries(doc.paths ?? {})) {
      for (const [method, op] of Object.entries(ops ?? {}) as [
        string,
        { responses?: Record<string, { description?: string; headers?: Record<string, unknown> }> },
      ][]) {
        operations += 1;
        const tooMany = op.responses?.['429'];
        expect(tooMany?.description, `${method} ${path}`).toContain('rate_limited');
        expect(Object.keys(tooMany?.headers ?? {}), `${method} ${path}`).toContain('Retry-After');
      }
    }
    expect(operations).toBeGreaterThan(20);
  });
});

describe('the request-bytes errors in the OpenAPI document', () => {
  const doc = createApp().getOpenAPI31Document({ openapi: '3.1.0', info: { title: 'agent-gateway', version: 'test' } });

  it('are named in the 400 response of every operation, next to its own 400 codes', () => {
    let checked = 0;
    for (const [path, ops] of Object.entries(doc.paths ?? {})) {
      for (const [method, op] of Object.entries(ops ?? {}) as [string, { responses?: Record<string, { description?: string }> }][]) {
        const description = op.responses?.['400']?.description ?? '';
        expect(description, `${method} ${path}`).toContain('`invalid_encoding`');
        expect(description, `${method} ${path}`).toContain('`nul_character`');
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(5);
    const append = doc.paths?.['/agent/{agentCollectionAddress}/{agentTokenId}/context/{contextKey}/message']?.post?.responses?.['400'] as {
      description: string;
    };
    expect(append.description).toMatch(/^`validation_failed`.*`idempotency_key_reused`.*`invalid_encoding`.*`nul_character`/s);
  });
});

describe('the served OpenAPI document, for tools', () => {
  type Response = { description?: string; headers?: Record<string, { $ref?: string }>; content?: unknown };
  type Operation = {
    operationId?: string;
    security?: unknown[];
    requestBody?: unknown;
    responses: Record<string, Response>;
    parameters?: { name: string; required?: boolean; schema: Record<string, unknown> }[];
  };
  const load = async () =>
    (await openApiDocument()) as {
      security?: unknown;
      paths: Record<string, Record<string, Operation>>;
      components: { schemas: Record<string, Record<string, unknown>>; headers: Record<string, unknown> };
    };
  const operations = (doc: Awaited<ReturnType<typeof load>>) =>
    Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op })),
    );

  it('names every operation (operationId, unique) and needs the bearer token except on health and login', async () => {
    const doc = await load();
    expect(doc.security).toEqual([{ bearer: [] }]);
    const ids = operations(doc).map(({ op }) => op.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z0-9]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const open = operations(doc)
      .filter(({ op }) => Array.isArray(op.security) && op.security.length === 0)
      .map(({ name }) => name);
    expect(open.sort()).toEqual([
      'GET /.well-known/oauth-authorization-server',
      'GET /.well-known/oauth-protected-resource/agent/{agentCollectionAddress}/{agentTokenId}/a2a',
      'GET /.well-known/oauth-protected-resource/agent/{agentCollectionAddress}/{agentTokenId}/mcp',
      'GET /agent/{agentCollectionAddress}/{agentTokenId}/.well-known/agent-card.json',
      'GET /agent/{agentCollectionAddress}/{agentTokenId}/registration.json',
      'GET /health',
      'GET /oauth/authorize',
      'GET /oauth/callback',
      'GET /oauth/client.json',
      'POST /agent/{agentCollectionAddress}/{agentTokenId}/paid/ask',
      'POST /auth/jwt/finish',
      'POST /auth/jwt/init',
      'POST /oauth/authorize',
      'POST /oauth/authorize/deny',
      'POST /oauth/authorize/message',
      'POST /oauth/register',
      'POST /oauth/token',
      'POST /wallet/verify',
    ]);
  });

  it('documents 405 with Allow, 500, X-Request-Id everywhere; 413, 415 and invalid_json on bodies; Retry-After on 429 and 503', async () => {
    const doc = await load();
    expect(Object.keys(doc.components.headers).sort()).toEqual(['Allow', 'Idempotent-Replayed', 'Retry-After', 'X-Request-Id']);
    for (const { name, op } of operations(doc)) {
      expect(op.responses['405']?.headers?.Allow, name).toEqual({ $ref: '#/components/headers/Allow' });
      expect(op.responses['500']?.description, name).toContain('`internal_error`');
      for (const [status, response] of Object.entries(op.responses)) {
        expect(response.headers?.['X-Request-Id'], `${name} ${status}`).toEqual({ $ref: '#/components/headers/X-Request-Id' });
        if (status === '429' || status === '503') expect(response.headers?.['Retry-After'], `${name} ${status}`).toBeDefined();
      }
      const hasBody = op.requestBody !== undefined;
      expect(op.responses['413'] !== undefined, name).toBe(hasBody);
      expect(op.responses['415'] !== undefined, name).toBe(hasBody);
      if (hasBody) expect(op.responses['400']?.description, name).toContain('`invalid_json`');
    }
  });

  it('documents Idempotent-Replayed on the appends, bounds on the paging parameters, a nullable active setup', async () => {
    const doc = await load();
    const byId: Record<string, Operation> = Object.fromEntries(operations(doc).map(({ op }) => [op.operationId ?? '', op]));
    for (const id of ['appendMessage', 'appendMessages']) {
      expect(byId[id]?.responses['200']?.headers?.['Idempotent-Replayed']).toEqual({ $ref: '#/components/headers/Idempotent-Replayed' });
    }
    const param = (id: string, name: string) => byId[id]?.parameters?.find((p) => p.name === name)?.schema;
    expect(param('listContextKeys', 'page')).toMatchObject({ type: 'integer', minimum: 1, default: 1 });
    expect(param('listContextKeys', 'elementsPerPage')).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 10 });
    expect(param('listContextKeys', 'elementsPerPage')?.description).toContain('clamped');
    expect(param('listContextKeys', 'after')).toMatchObject({ type: 'string', minLength: 2, maxLength: 255 });
    expect(byId.listContextKeys?.parameters?.find((p) => p.name === 'after')?.required).toBeFalsy();
    expect(doc.components.schemas.ContextKeyPage?.properties).toMatchObject({ nextAfter: { type: ['string', 'null'] } });
    expect(param('readMessages', 'limit')).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 50 });
    expect(doc.components.schemas.DatabaseSettings?.properties).toMatchObject({
      active: { anyOf: [{ $ref: '#/components/schemas/DatabaseSetup' }, { type: 'null' }] },
    });
  });
});
