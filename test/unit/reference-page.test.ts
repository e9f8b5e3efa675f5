import vm from 'node:vm';
import { describe, it, expect } from 'vitest';
import { transformSync } from 'esbuild';
import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { referencePage } from '../../src/docs/reference-page';

const page = (title = 'Agent Gateway API', specUrl = '/openapi.json') => referencePage({ specUrl, title });

function moduleScript(html: string): string {
  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
  expect(scripts).toHaveLength(1);
  expect(scripts[0]![1]).toContain('type="module"');
  return scripts[0]![2]!;
}

const withoutScript = (html: string) => html.replace(/<script\b[^>]*>[\s\S]*?<\/script>/gi, '');

describe('referencePage: static output', () => {
  it('references no external resources', () => {
    const html = page();
    expect(html).not.toMatch(/https?:\/\//i);
    expect(html).not.toMatch(/@import/i);
    expect(html).not.toMatch(/url\(/i);
    expect(html).toContain('<link rel="icon" href="data:,">');
    for (const m of html.matchAll(/\s(?:src|href|action|srcset)\s*=\s*["']?([^"'\s>]*)/gi)) {
      const target = m[1]!;
      expect(target === 'data:,' || target.startsWith('#') || /^\/(?!\/)/.test(target), `off-origin reference ${target}`).toBe(true);
    }
  });

  it('escapes the title for HTML', () => {
    const html = page('<script>alert("x")</script> & co');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co');
    expect(html).not.toContain('<script>alert');
    expect(html.match(/<\/script>/gi)).toHaveLength(1);
  });

  it('embeds specUrl as a script-safe JSON literal', () => {
    const specUrl = '/openapi.json?x=</script><script>alert(1)</script>"\'\u2028';
    const html = page('API', specUrl);
    expect(html.match(/<\/script>/gi)).toHaveLength(1);
    expect(html.match(/<script\b/gi)).toHaveLength(1);
    const script = moduleScript(html);
    const literal = /const SPEC_URL = (.*);\n/.exec(script)?.[1];
    expect(literal).toBeDefined();
    expect(literal).not.toContain('<');
    expect(JSON.parse(literal!)).toBe(specUrl);
  });

  it('has no inline event handlers and no dynamic code evaluation', () => {
    const html = page();
    expect(withoutScript(html)).not.toMatch(/<[^>]*\son[a-z]+\s*=/i);
    const script = moduleScript(html);
    expect(script).not.toMatch(/setAttribute\(\s*['"]on/i);
    expect(script).not.toMatch(/\.on[a-z]+\s*=[^=]/);
    expect(script).not.toMatch(/new\s+Function|\beval\s*\(|innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
    expect(script).not.toMatch(/\bconsole\./);
  });

  it('contains a syntactically valid module script', () => {
    const script = moduleScript(page('API', '/x</script>'));
    expect(() => transformSync(script, { loader: 'js', format: 'esm' })).not.toThrow();
  });
});

// ---------------------------------------------------------------------------
// Behaviour: run the page script against a tiny DOM stub (no browser available).

class StubNode {
  children: (StubNode | { data: string })[] = [];
  attrs = new Map<string, string>();
  listeners = new Map<string, (() => void)[]>();
  value = '';
  disabled = false;
  constructor(readonly tagName: string) {}
  setAttribute(name: string, value: string) { this.attrs.set(name, String(value)); }
  getAttribute(name: string) { return this.attrs.get(name) ?? null; }
  get id() { return this.attrs.get('id') ?? ''; }
  append(...nodes: (StubNode | { data: string })[]) { this.children.push(...nodes); }
  replaceChildren(...nodes: (StubNode | { data: string })[]) { this.children = [...nodes]; }
  addEventListener(type: string, fn: () => void) { this.listeners.set(type, [...(this.listeners.get(type) ?? []), fn]); }
  dispatchEvent(event: { type: string }) { for (const fn of this.listeners.get(event.type) ?? []) fn(); return true; }
  scrollIntoView() {}
  get textContent(): string { return this.children.map((c) => (c instanceof StubNode ? c.textContent : c.data)).join(''); }
  set textContent(text: string) { this.children = [{ data: String(text) }]; }
  all(pred: (n: StubNode) => boolean): StubNode[] {
    const out: StubNode[] = [];
    for (const c of this.children) if (c instanceof StubNode) { if (pred(c)) out.push(c); out.push(...c.all(pred)); }
    return out;
  }
}

interface FetchCall { url: string; init: { method?: string; headers?: Record<string, string>; body?: string } }

function runPage(specResponse: () => Promise<{ ok: boolean; status: number; json: () => Promise<unknown> }>) {
  const root = new StubNode('html');
  const body = new StubNode('body');
  body.setAttribute('data-state', 'loading');
  root.append(body);
  for (const id of ['title', 'version', 'description', 'token', 'token-clear', 'nav', 'status', 'operations']) {
    const el = new StubNode('div');
    el.setAttribute('id', id);
    body.append(el);
  }
  const storage = new Map<string, string>();
  const calls: FetchCall[] = [];
  const consoleCalls: unknown[] = [];
  const fetch = async (url: string, init: FetchCall['init'] = {}) => {
    calls.push({ url, init });
    if (url === '/openapi.json') return specResponse();
    return {
      status: 201, statusText: 'Created',
      headers: new Headers({ 'content-type': 'application/json', 'x-request-id': 'req-123' }),
      text: async () => '{"ok":true}',
    };
  };
  const logger = new Proxy({}, { get: () => (...args: unknown[]) => consoleCalls.push(args) });
  const context = vm.createContext({
    document: {
      body,
      createElement: (tag: string) => new StubNode(tag),
      createTextNode: (data: string) => ({ data }),
      getElementById: (id: string) => root.all((n) => n.id === id)[0] ?? null,
    },
    fetch,
    sessionStorage: {
      getItem: (k: string) => storage.get(k) ?? null,
      setItem: (k: string, v: string) => void storage.set(k, v),
      removeItem: (k: string) => void storage.delete(k),
    },
    location: { hash: '' },
    URLSearchParams,
    Event: class { constructor(readonly type: string) {} },
    console: logger,
  });
  vm.runInContext(moduleScript(page()), context);
  const settled = async () => {
    for (let i = 0; i < 50 && body.getAttribute('data-state') === 'loading'; i++) await new Promise((r) => setTimeout(r, 0));
  };
  return { root, body, storage, calls, consoleCalls, settled, byId: (id: string) => root.all((n) => n.id === id)[0]! };
}

function sampleSpec() {
  const app = new OpenAPIHono();
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', { type: 'http', scheme: 'bearer' });
  const Context = z.object({
    key: z.string().min(1).max(64).openapi({ example: 'greeting' }),
    value: z.string().openapi({ description: 'stored <b>value</b>' }),
    kind: z.enum(['text', 'json']),
  }).openapi('Context');
  const params = z.object({
    agentCollectionAddress: z.string().openapi({ param: { name: 'agentCollectionAddress', in: 'path' }, example: '0xabc' }),
    agentTokenId: z.string().openapi({ param: { name: 'agentTokenId', in: 'path' }, example: '1' }),
  });
  const base = '/agent/{agentCollectionAddress}/{agentTokenId}/contexts';
  app.openapi(createRoute({
    method: 'get', path: base + '/keys', tags: ['Contexts'], security: [{ bearerAuth: [] }], request: { params },
    responses: { 200: { description: 'Keys', content: { 'application/json': { schema: z.object({ keys: z.array(z.string()) }) } } } },
  }), (c) => c.json({ keys: [] }, 200));
  app.openapi(createRoute({
    method: 'post', path: base, tags: ['Contexts'], security: [{ bearerAuth: [] }], request: {
      params, body: { required: true, content: { 'application/json': { schema: Context } } },
    },
    responses: { 201: { description: 'Stored', content: { 'application/json': { schema: Context } } } },
  }), (c) => c.json({ key: 'k', value: 'v', kind: 'text' as const }, 201));
  app.openapi(createRoute({
    method: 'get', path: '/health', responses: { 200: { description: 'OK', content: { 'application/json': { schema: z.object({ ok: z.boolean() }) } } } },
  }), (c) => c.json({ ok: true }, 200));
  const doc = app.getOpenAPI31Document({
    openapi: '3.1.0', info: { title: 'Agent <Gateway>', version: '1.2.3', description: '<img src=x onerror=alert(1)>' },
  }) as unknown as { components: { schemas: Record<string, unknown> }; paths: Record<string, Record<string, unknown>> };
  // A self-referencing schema to exercise the cycle guard.
  doc.components.schemas.Tree = { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/components/schemas/Tree' } } } };
  doc.paths['/tree'] = { get: { responses: { 200: { description: 'Tree', content: { 'application/json': { schema: { $ref: '#/components/schemas/Tree' } } } } } } };
  return doc;
}

describe('referencePage: rendering (DOM stub)', () => {
  it('renders every operation grouped by tag, with auth markers and escaped text', async () => {
    const spec = sampleSpec();
    const env = runPage(async () => ({ ok: true, status: 200, json: async () => spec }));
    await env.settled();
    expect(env.body.getAttribute('data-state')).toBe('ready');
    const ops = env.root.all((n) => n.attrs.has('data-operation'));
    expect(ops.map((n) => n.getAttribute('data-operation')).sort()).toEqual([
      'GET /agent/{agentCollectionAddress}/{agentTokenId}/contexts/keys', 'GET /health', 'GET /tree',
      'POST /agent/{agentCollectionAddress}/{agentTokenId}/contexts',
    ]);
    expect(env.root.all((n) => n.attrs.has('data-nav'))).toHaveLength(4);
    expect(env.root.all((n) => n.tagName === 'h2').map((n) => n.textContent)).toEqual(['Contexts', 'Other', 'Contexts', 'Other']);
    const keys = ops.find((n) => n.getAttribute('data-operation')!.endsWith('/keys'))!;
    expect(keys.getAttribute('data-auth')).toBe('bearer');
    expect(keys.textContent).toContain('requires bearer token');
    expect(ops.find((n) => n.getAttribute('data-operation') === 'GET /health')!.textContent).not.toContain('requires bearer token');
    expect(env.byId('title').textContent).toBe('Agent <Gateway>');
    expect(env.byId('description').textContent).toBe('<img src=x onerror=alert(1)>');
    expect(env.byId('version').textContent).toBe('v1.2.3');
    const tree = ops.find((n) => n.getAttribute('data-operation') === 'GET /tree')!;
    expect(tree.textContent).toContain('recursive');
    const post = ops.find((n) => n.getAttribute('data-operation')!.startsWith('POST'))!.textContent;
    expect(post).toContain('enum: text | json');
    expect(post).toContain('minLength: 1');
    expect(env.consoleCalls).toEqual([]);
  });

  it('Try it sends a same-origin request with encoded path params, JSON body and bearer token', async () => {
    const spec = sampleSpec();
    const env = runPage(async () => ({ ok: true, status: 200, json: async () => spec }));
    env.storage.set('agent-gateway.token', 'secret-token');
    await env.settled();
    const post = env.root.all((n) => (n.getAttribute('data-operation') ?? '').startsWith('POST'))[0]!;
    const textarea = post.all((n) => n.tagName === 'textarea')[0]!;
    expect(JSON.parse(textarea.value)).toEqual({ key: 'greeting', value: 'string', kind: 'text' });
    const inputs = post.all((n) => n.tagName === 'input');
    inputs.find((n) => n.getAttribute('aria-label')!.endsWith('agentCollectionAddress'))!.value = '0xabc';
    inputs.find((n) => n.getAttribute('aria-label')!.endsWith('agentTokenId'))!.value = 'a/b c';
    const send = post.all((n) => n.tagName === 'button' && n.textContent === 'Send')[0]!;
    send.dispatchEvent({ type: 'click' });
    for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 0));
    const call = env.calls.at(-1)!;
    expect(call.url).toBe('/agent/0xabc/a%2Fb%20c/contexts');
    expect(call.init.method).toBe('POST');
    expect(call.init.headers).toMatchObject({ 'content-type': 'application/json', authorization: 'Bearer secret-token' });
    expect(JSON.parse(call.init.body!)).toEqual({ key: 'greeting', value: 'string', kind: 'text' });
    expect(post.textContent).toContain('201 Created');
    expect(post.textContent).toContain('x-request-id: req-123');
    expect(post.textContent).toContain('"ok": true');
    expect(env.consoleCalls).toEqual([]);
  });

  it('shows a visible error when the spec cannot be loaded', async () => {
    const env = runPage(async () => ({ ok: false, status: 500, json: async () => ({}) }));
    await env.settled();
    expect(env.body.getAttribute('data-state')).toBe('error');
    expect(env.byId('status').textContent).toContain('Could not load the API specification from /openapi.json: HTTP 500');
    expect(env.consoleCalls).toEqual([]);
  });
});
