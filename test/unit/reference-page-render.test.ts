/** The /docs page script, bundled as wrangler bundles it, run against a DOM stub. */
import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundledReferencePage, inlineScript, runPage, type StubNode } from '../support/docs-page';

let script = '';
beforeAll(async () => {
  const referencePage = await bundledReferencePage();
  script = inlineScript((await referencePage({ specUrl: '/openapi.json', title: 'API' })).html);
});

function sampleSpec() {
  const app = new OpenAPIHono();
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer' });
  app.openAPIRegistry.registerComponent('securitySchemes', 'agentKey', {
    type: 'http',
    scheme: 'bearer',
    description: 'An agent key (agk_...). Made by the owner.',
  });
  const Context = z
    .object({
      key: z.string().min(1).max(64).openapi({ example: 'greeting' }),
      value: z.string().openapi({ description: 'stored <b>value</b>' }),
      kind: z.enum(['text', 'json']),
    })
    .openapi('Context');
  const params = z.object({
    agentCollectionAddress: z.string().openapi({ param: { name: 'agentCollectionAddress', in: 'path' }, example: '0xabc' }),
    agentTokenId: z.string().openapi({ param: { name: 'agentTokenId', in: 'path' }, example: '1' }),
  });
  const base = '/agent/{agentCollectionAddress}/{agentTokenId}/contexts';
  app.openapi(
    createRoute({
      method: 'get',
      path: `${base}/keys`,
      tags: ['Contexts'],
      summary: 'List context keys',
      operationId: 'listContextKeys',
      security: [{ bearer: [] }, { agentKey: [] }],
      request: { params, query: z.object({ search: z.string().openapi({ example: 'cust' }) }) },
      responses: {
        200: {
          description: 'Keys',
          content: { 'application/json': { schema: z.object({ keys: z.array(z.string().openapi({ example: 'customer:42' })) }) } },
        },
      },
    }),
    (c) => c.json({ keys: [] }, 200),
  );
  app.openapi(
    createRoute({
      method: 'post',
      path: base,
      tags: ['Contexts'],
      summary: 'Store a context',
      operationId: 'createContext',
      security: [{ bearer: [] }, { agentKey: [] }],
      'x-agent-key-scope': 'contexts:write',
      request: { params, body: { required: true, content: { 'application/json': { schema: Context } } } },
      responses: { 201: { description: 'Stored', content: { 'application/json': { schema: Context } } } },
    }),
    (c) => c.json({ key: 'k', value: 'v', kind: 'text' as const }, 201),
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: '/health',
      tags: ['Operations'],
      summary: 'Check health',
      responses: { 200: { description: 'OK', content: { 'application/json': { schema: z.object({ ok: z.boolean() }) } } } },
    }),
    (c) => c.json({ ok: true }, 200),
  );
  const doc = app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: { title: 'Agent <Gateway>', version: '1.2.3', description: '<img src=x onerror=alert(1)>' },
    servers: [{ url: 'https://gw.example' }],
    tags: [{ name: 'Operations', description: 'Health' }, { name: 'Contexts' }],
  }) as unknown as { components: { schemas: Record<string, unknown> }; paths: Record<string, Record<string, unknown>> };
  doc.components.schemas.Tree = {
    type: 'object',
    properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/components/schemas/Tree' } } },
  };
  doc.paths['/reply'] = {
    post: {
      summary: 'Reply',
      operationId: 'reply',
      security: [{ bearer: [] }],
      responses: {
        200: {
          description: 'The reply',
          content: {
            'application/json': { schema: { type: 'object', properties: { reply: { type: 'string' } } } },
            'text/event-stream': {
              schema: { type: 'string' },
              description: 'One `delta` per piece of text, then `done`.',
              example: 'event: delta\ndata: {"text":"Hi"}\n\nevent: done\ndata: {"reply":"Hi"}\n\n',
            },
          },
        },
      },
    },
  };
  doc.paths['/tree'] = {
    get: {
      responses: { 200: { description: 'Tree', content: { 'application/json': { schema: { $ref: '#/components/schemas/Tree' } } } } },
    },
  };
  return doc;
}

const ready = async () => {
  const spec = sampleSpec();
  const env = runPage(script, async () => ({ ok: true, status: 200, json: async () => spec }));
  await env.settled();
  expect(env.body.getAttribute('data-state')).toBe('ready');
  const section = (op: string) => env.root.all((n) => n.getAttribute('data-operation') === op)[0]!;
  const visible = (attr: string) => env.root.all((n) => n.attrs.has(attr) && n.visibleIn(env.root)).map((n) => n.getAttribute(attr));
  return { env, section, visible };
};
const sampleText = (section: StubNode, kind: string) =>
  section.all((n) => n.getAttribute('data-sample') === kind)[0]!.all((n) => n.tagName === 'pre')[0]!.textContent;

describe('referencePage: rendering (DOM stub)', () => {
  it('lists every operation by tag with method and summary, auth markers and escaped text', async () => {
    const { env, section } = await ready();
    const ops = env.root.all((n) => n.attrs.has('data-operation')).map((n) => n.getAttribute('data-operation'));
    expect(ops).toEqual([
      'GET /health',
      'GET /agent/{agentCollectionAddress}/{agentTokenId}/contexts/keys',
      'POST /agent/{agentCollectionAddress}/{agentTokenId}/contexts',
      'POST /reply',
      'GET /tree',
    ]);
    const nav = env.root.all((n) => n.attrs.has('data-nav'));
    expect(nav.map((n) => n.textContent)).toEqual([
      'GETCheck health',
      'GETList context keys',
      'POSTStore a context',
      'POSTReply',
      'GETGET /tree',
    ]);
    expect(
      env
        .byId('nav')
        .all((n) => n.tagName === 'h2')
        .map((n) => n.textContent),
    ).toEqual(['Operations', 'Contexts', 'Other']);
    const keys = section('GET /agent/{agentCollectionAddress}/{agentTokenId}/contexts/keys');
    expect(keys.getAttribute('data-auth')).toBe('bearer agentKey');
    expect(keys.id).toBe('op-listContextKeys');
    expect(keys.textContent).toContain('requires bearer token or agent key');
    expect(section('GET /health').textContent).not.toContain('requires bearer token');
    // An operation that also takes an agent key says so, with the scope it needs.
    expect(section('POST /agent/{agentCollectionAddress}/{agentTokenId}/contexts').textContent).toContain(
      'requires bearer token or agent key (contexts:write)',
    );
    expect(env.byId('title').textContent).toBe('Agent <Gateway>');
    expect(env.byId('description').textContent).toBe('<img src=x onerror=alert(1)>');
    expect(env.byId('version').textContent).toBe('v1.2.3');
    expect(section('GET /tree').textContent).toContain('recursive');
    const post = section('POST /agent/{agentCollectionAddress}/{agentTokenId}/contexts').textContent;
    expect(post).toContain('enum: text | json');
    expect(post).toContain('minLength: 1');
    expect(env.byId('search-count').textContent).toBe('5 operations');
    expect(env.consoleCalls).toEqual([]);
  });

  it('search filters by summary, path, operationId and tag', async () => {
    const { env, visible } = await ready();
    env.search('store');
    expect(visible('data-operation')).toEqual(['POST /agent/{agentCollectionAddress}/{agentTokenId}/contexts']);
    expect(visible('data-nav')).toEqual(['POST /agent/{agentCollectionAddress}/{agentTokenId}/contexts']);
    expect(env.byId('search-count').textContent).toBe('1 of 5 operations');
    env.search('listcontextkeys');
    expect(visible('data-operation')).toEqual(['GET /agent/{agentCollectionAddress}/{agentTokenId}/contexts/keys']);
    env.search('/tree');
    expect(visible('data-nav')).toEqual(['GET /tree']);
    env.search('contexts get');
    expect(visible('data-operation')).toEqual(['GET /agent/{agentCollectionAddress}/{agentTokenId}/contexts/keys']);
    env.search('nothing like this');
    expect(visible('data-operation')).toEqual([]);
    expect(env.byId('no-match').hidden).toBe(false);
    env.search('');
    expect(visible('data-operation')).toHaveLength(5);
    expect(env.byId('no-match').hidden).toBe(true);
  });

  it('shows request and response examples and both code samples', async () => {
    const { section } = await ready();
    const post = section('POST /agent/{agentCollectionAddress}/{agentTokenId}/contexts');
    const request = post.all((n) => n.getAttribute('data-example') === 'request')[0]!;
    expect(JSON.parse(request.all((n) => n.tagName === 'pre')[0]!.textContent)).toEqual({ key: 'greeting', value: 'string', kind: 'text' });
    expect(post.all((n) => n.getAttribute('data-example') === 'response 201')).toHaveLength(1);
    expect(sampleText(post, 'curl')).toBe(
      [
        "curl -X POST 'https://gw.example/agent/0xabc/1/contexts' \\",
        '  -H "Authorization: Bearer $AGENT_GATEWAY_TOKEN" \\',
        "  -H 'Content-Type: application/json' \\",
        '  --data \'{\n  "key": "greeting",\n  "value": "string",\n  "kind": "text"\n}\'',
      ].join('\n'),
    );
    const client = sampleText(post, 'client');
    expect(client).toContain("import { createGatewayClient } from 'agent-gateway/client';");
    expect(client).toContain("createGatewayClient({ baseUrl: 'https://gw.example', token: process.env.AGENT_GATEWAY_TOKEN })");
    expect(client).toContain("const agent = client.agent('0xabc', '1');");
    expect(client).toContain("await agent.createContext({\n  key: 'greeting',");
    const keys = section('GET /agent/{agentCollectionAddress}/{agentTokenId}/contexts/keys');
    expect(sampleText(keys, 'curl')).toContain("'https://gw.example/agent/0xabc/1/contexts/keys?search=cust'");
    expect(sampleText(keys, 'client')).toContain("await agent.listContextKeys({\n  search: 'cust'\n});");
    expect(sampleText(section('GET /health'), 'curl')).toBe("curl -X GET 'https://gw.example/health'");
    // No operationId: no client method to name, so the sample falls back to fetch.
    expect(sampleText(section('GET /tree'), 'client')).toContain("const res = await fetch('https://gw.example/tree', {");
  });

  it('Try it sends a same-origin request with encoded path params, JSON body and the bearer token', async () => {
    const { env, section } = await ready();
    env.storage.set('agent-gateway.token', 'secret-token');
    const post = section('POST /agent/{agentCollectionAddress}/{agentTokenId}/contexts');
    const textarea = post.all((n) => n.tagName === 'textarea')[0]!;
    expect(JSON.parse(textarea.value)).toEqual({ key: 'greeting', value: 'string', kind: 'text' });
    const inputs = post.all((n) => n.tagName === 'input');
    expect(inputs.map((n) => n.value)).toEqual(['0xabc', '1']);
    inputs.find((n) => n.id.endsWith('agentTokenId'))!.value = 'a/b c';
    post.all((n) => n.tagName === 'button' && n.textContent === 'Send')[0]!.dispatchEvent({ type: 'click' });
    for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 0));
    const call = env.calls.at(-1)!;
    expect(call.url).toBe('/agent/0xabc/a%2Fb%20c/contexts');
    expect(call.init.method).toBe('POST');
    expect(call.init.headers).toMatchObject({ 'content-type': 'application/json', authorization: 'Bearer secret-token' });
    expect(JSON.parse(call.init.body!)).toEqual({ key: 'greeting', value: 'string', kind: 'text' });
    expect(post.textContent).toContain('201 Created');
    expect(post.textContent).toContain('x-request-id: req-123');
    expect(post.textContent).toContain('"ok": true');
    expect(post.textContent).not.toContain('secret-token');
    // An operation without security gets no Authorization header.
    const health = section('GET /health');
    health.all((n) => n.tagName === 'button' && n.textContent === 'Send')[0]!.dispatchEvent({ type: 'click' });
    for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 0));
    expect(env.calls.at(-1)!.url).toBe('/health');
    expect(env.calls.at(-1)!.init.headers).not.toHaveProperty('authorization');
    expect(env.consoleCalls).toEqual([]);
  });

  it('a field for each bearer scheme; Try it sends the chosen one (the agent key here)', async () => {
    const { env, section } = await ready();
    const agentKey = env.byId('cred-agentKey');
    expect(agentKey.tagName).toBe('input');
    expect(agentKey.getAttribute('type')).toBe('password');
    expect(agentKey.getAttribute('placeholder')).toBe('An agent key (agk_...).');
    agentKey.value = 'agk_secret';
    agentKey.dispatchEvent({ type: 'input' });
    expect(env.storage.get('agent-gateway.cred.agentKey')).toBe('agk_secret');
    const keys = section('GET /agent/{agentCollectionAddress}/{agentTokenId}/contexts/keys');
    const select = keys.all((n) => n.tagName === 'select')[0]!;
    expect(select.id).toBe('op-listContextKeys-scheme');
    expect(select.all((n) => n.tagName === 'option').map((n) => n.getAttribute('value'))).toEqual(['bearer', 'agentKey']);
    select.value = 'agentKey';
    keys.all((n) => n.tagName === 'button' && n.textContent === 'Send')[0]!.dispatchEvent({ type: 'click' });
    for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 0));
    expect(env.calls.at(-1)!.init.headers).toMatchObject({ authorization: 'Bearer agk_secret' });
    expect(keys.textContent).not.toContain('agk_secret');
    // Try it sits in the side column, beside the request sample, not after the responses.
    const side = keys.all((n) => n.getAttribute('class') === 'opside')[0]!;
    expect(side.all((n) => n.attrs.has('data-try'))).toHaveLength(1);
  });

  it('a text/event-stream response: its example event by event, and Try it shows live events as they arrive', async () => {
    const { env, section } = await ready();
    const reply = section('POST /reply');
    expect(reply.all((n) => n.getAttribute('data-stream') === '200')[0]!.textContent).toContain('text/event-stream');
    const example = reply.all((n) => n.getAttribute('data-example') === 'stream 200')[0]!;
    expect(example.all((n) => n.attrs.has('data-event')).map((n) => n.getAttribute('data-event'))).toEqual(['delta', 'done']);
    expect(example.textContent).toContain('"reply": "Hi"');
    const accept = reply.all((n) => n.tagName === 'select')[0]!;
    expect(accept.id).toBe('op-reply-accept');
    accept.value = 'text/event-stream';
    reply.all((n) => n.tagName === 'button' && n.textContent === 'Send')[0]!.dispatchEvent({ type: 'click' });
    for (let i = 0; i < 40; i++) await new Promise((r) => setTimeout(r, 0));
    expect(env.calls.at(-1)!.init.headers).toMatchObject({ accept: 'text/event-stream' });
    const live = reply.all((n) => n.attrs.has('data-live-events'))[0]!;
    expect(live.all((n) => n.attrs.has('data-event')).map((n) => n.getAttribute('data-event'))).toEqual(['delta', 'delta', 'done']);
    expect(live.textContent).toContain('"text": "Hel"');
    expect(reply.textContent).toContain('3 events in');
  });

  it('the theme button cycles auto, dark, light and remembers the choice', async () => {
    const { env } = await ready();
    const button = env.byId('theme');
    expect(button.textContent).toBe('Theme: auto');
    button.dispatchEvent({ type: 'click' });
    expect(env.root.getAttribute('data-theme')).toBe('dark');
    expect(env.local.get('agent-gateway.theme')).toBe('dark');
    button.dispatchEvent({ type: 'click' });
    expect(env.root.getAttribute('data-theme')).toBe('light');
    button.dispatchEvent({ type: 'click' });
    expect(env.root.getAttribute('data-theme')).toBeNull();
    expect(button.textContent).toBe('Theme: auto');
  });

  it('shows a visible error when the spec cannot be loaded', async () => {
    const env = runPage(script, async () => ({ ok: false, status: 500, json: async () => ({}) }));
    await env.settled();
    expect(env.body.getAttribute('data-state')).toBe('error');
    expect(env.byId('status').textContent).toContain('Could not load the API specification from /openapi.json: HTTP 500');
    expect(env.consoleCalls).toEqual([]);
  });
});
