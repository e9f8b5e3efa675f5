import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';

describe('the OpenAPI document', () => {
  const app = createApp();
  const doc = app.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 'agent-gateway', version: 'test' } });

  it('generates, and documents every route the app serves', () => {
    const documented = new Set<string>();
    for (const [path, ops] of Object.entries(doc.paths ?? {})) {
      for (const method of Object.keys(ops ?? {})) documented.add(`${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`);
    }
    const served = app.routes
      .filter((r) => r.method !== 'ALL' && !r.path.includes('*') && !['/docs', '/', '/openapi.json'].includes(r.path))
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
      for (const [method, op] of Object.entries(ops ?? {}) as [string, { responses?: Record<string, { description?: string; headers?: Record<string, unknown> }> }][]) {
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
    const append = doc.paths?.['/agent/{agentCollectionAddress}/{agentTokenId}/context/{contextKey}/message']?.post?.responses?.['400'] as { description: string };
    expect(append.description).toMatch(/^`validation_failed`.*`idempotency_key_reused`.*`invalid_encoding`.*`nul_character`/s);
  });
});
