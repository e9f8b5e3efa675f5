/**
 * Our MCP client against real tool servers on loopback: the spec's plain JSON-RPC server, MCP SDK
 * streamable-HTTP servers (stateful and stateless, SSE and JSON replies) and misbehaving servers.
 * The last block runs the same client bundled into workerd (Miniflare) to prove it runs there.
 * The client talks http:// here; the https-only rule belongs to src/tool-servers/url.ts.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkToolServer, createMcpClient, McpError, type McpAuth, type McpFailure } from '../../src/tool-servers/client';
import {
  startBadServer,
  startPlainServer,
  startSdkServer,
  type BadServer,
  type BadServerKind,
  type SdkTestServer,
  type TestServer,
} from '../support/mcp-servers';

const API_KEY = 'plain-api-key-3f9a1c77e2';
const BEARER = 'sdk-bearer-token-b81d0e55';
const WRONG = 'wrong-credential-0000';
/** Every credential a test sends; none may ever appear in an error message. */
const SECRETS = [API_KEY, BEARER, WRONG];
const ERROR_MESSAGES: string[] = [];

/** Headers Node's fetch (undici) adds on its own; anything else must be ours or the credential. */
const RUNTIME_HEADERS = ['host', 'connection', 'user-agent', 'accept-encoding', 'accept-language', 'sec-fetch-mode', 'content-length'];

async function expectFailure(promise: Promise<unknown>, kind: McpFailure): Promise<McpError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(McpError);
    const error = err as McpError;
    ERROR_MESSAGES.push(error.message, String(error), error.stack ?? '');
    expect(error.kind, error.message).toBe(kind);
    return error;
  }
  throw new Error(`expected an McpError of kind ${kind}`);
}

function headerNames(server: TestServer): string[] {
  return [...new Set(server.requests.flatMap((r) => Object.keys(r.headers)))].sort();
}

afterAll(() => {
  expect(ERROR_MESSAGES.length).toBeGreaterThan(10);
  for (const message of ERROR_MESSAGES) for (const secret of SECRETS) expect(message).not.toContain(secret);
});

describe('plain JSON-RPC server (the spec contract)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startPlainServer({ apiKey: API_KEY });
  });
  afterAll(() => server.close());

  const auth: McpAuth = { type: 'header', name: 'x-api-key', value: API_KEY };

  it('lists tools following nextCursor, one page per request', async () => {
    server.requests.length = 0;
    const tools = await createMcpClient({ url: server.url, auth }).listTools();
    expect(tools.map((t) => t.name)).toEqual(['echo', 'add']);
    expect(tools[0]).toEqual({
      name: 'echo',
      description: 'Echoes the text back',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    });
    expect(server.requests.map((r) => r.body)).toEqual([
      { jsonrpc: '2.0', method: 'tools/list', params: {}, id: 1 },
      { jsonrpc: '2.0', method: 'tools/list', params: { cursor: 'page-1' }, id: 2 },
    ]);
  });

  it('calls tools (round trip) without any handshake', async () => {
    server.requests.length = 0;
    const client = createMcpClient({ url: server.url, auth });
    expect(await client.callTool('echo', { text: 'hello' })).toEqual({ content: [{ type: 'text', text: 'hello' }] });
    expect(await client.callTool('add', { a: 2, b: 40 })).toEqual({ content: [{ type: 'text', text: '42' }] });
    expect(server.requests.map((r) => (r.body as { method: string }).method)).toEqual(['tools/call', 'tools/call']);
  });

  it('passes checkToolServer', async () => {
    const check = await checkToolServer(createMcpClient({ url: server.url, auth }));
    expect(check.ok).toBe(true);
    if (check.ok) expect(check.tools).toHaveLength(2);
  });

  it('surfaces a JSON-RPC error as rpc_error', async () => {
    const error = await expectFailure(createMcpClient({ url: server.url, auth }).callTool('nope', {}), 'rpc_error');
    expect(error.rpcCode).toBe(-32602);
  });

  it('sends only our headers and the credential: no cookie, no authorization, no session headers', () => {
    const names = headerNames(server).filter((name) => !RUNTIME_HEADERS.includes(name));
    expect(names).toEqual(['accept', 'content-type', 'x-api-key']);
    for (const request of server.requests) {
      expect(request.headers.accept).toBe('application/json, text/event-stream');
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.method).toBe('POST');
    }
  });

  it('a wrong or missing key → unauthorized (401), the key never in the message', async () => {
    const wrong = await expectFailure(
      createMcpClient({ url: server.url, auth: { type: 'header', name: 'x-api-key', value: WRONG } }).listTools(),
      'unauthorized',
    );
    expect(wrong.status).toBe(401);
    await expectFailure(createMcpClient({ url: server.url, auth: { type: 'none' } }).listTools(), 'unauthorized');
    await expectFailure(createMcpClient({ url: server.url, auth: { type: 'bearer', token: API_KEY } }).listTools(), 'unauthorized');
  });

  it('a wrong path → bad_status 404', async () => {
    const error = await expectFailure(createMcpClient({ url: server.url.replace('/mcp', '/mcp/'), auth }).listTools(), 'bad_status');
    expect(error.status).toBe(404);
  });
});

describe('MCP SDK servers (streamable HTTP)', () => {
  const variants = [
    { name: 'stateful, SSE replies', stateful: true, json: false },
    { name: 'stateful, JSON replies', stateful: true, json: true },
    { name: 'stateless, SSE replies', stateful: false, json: false },
    { name: 'stateless, JSON replies', stateful: false, json: true },
  ];

  for (const variant of variants) {
    describe(variant.name, () => {
      let server: SdkTestServer;
      beforeAll(async () => {
        server = await startSdkServer({ stateful: variant.stateful, json: variant.json, bearer: BEARER });
      });
      afterAll(() => server.close());
      const auth: McpAuth = { type: 'bearer', token: BEARER };

      it('lists tools and calls them', async () => {
        server.requests.length = 0;
        const client = createMcpClient({ url: server.url, auth });
        const tools = await client.listTools();
        expect(tools.map((t) => t.name)).toEqual(['echo', 'add']);
        expect(tools[1]!.inputSchema).toMatchObject({
          type: 'object',
          properties: { a: { type: 'number' }, b: { type: 'number' } },
          required: ['a', 'b'],
        });
        expect(await client.callTool('echo', { text: 'hi there' })).toEqual({ content: [{ type: 'text', text: 'hi there' }] });
        expect(await client.callTool('add', { a: 1, b: 2 })).toEqual({ content: [{ type: 'text', text: '3' }] });

        const methods = server.requests.map((r) => (r.body as { method?: string } | undefined)?.method);
        if (variant.stateful) {
          // Direct try, refused for lack of a session, handshake once, retry; later calls reuse the session.
          expect(methods).toEqual(['tools/list', 'initialize', 'notifications/initialized', 'tools/list', 'tools/call', 'tools/call']);
          const sessionIds = new Set(server.requests.slice(2).map((r) => r.headers['mcp-session-id']));
          expect(sessionIds.size).toBe(1);
          expect([...sessionIds][0]).toMatch(/^[0-9a-f-]{36}$/);
          for (const r of server.requests.slice(2)) expect(r.headers['mcp-protocol-version']).toBe('2025-11-25');
          expect(server.requests[1]!.body).toMatchObject({
            params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'agent-gateway' } },
          });
        } else {
          expect(methods).toEqual(['tools/list', 'tools/call', 'tools/call']);
        }
        for (const r of server.requests) expect(r.headers.authorization).toBe(`Bearer ${BEARER}`);
        await client.close();
      });

      it('passes checkToolServer (the SDK emits draft-07 $schema)', async () => {
        const check = await checkToolServer(createMcpClient({ url: server.url, auth }));
        expect(check).toMatchObject({ ok: true });
        if (check.ok) expect(check.tools[0]!.inputSchema.$schema).toBe('http://json-schema.org/draft-07/schema#');
      });

      it('a wrong bearer → unauthorized', async () => {
        await expectFailure(createMcpClient({ url: server.url, auth: { type: 'bearer', token: WRONG } }).listTools(), 'unauthorized');
        await expectFailure(createMcpClient({ url: server.url, auth: { type: 'none' } }).callTool('echo', { text: 'x' }), 'unauthorized');
      });

      it('a tool error comes back as a result with isError, not a failure', async () => {
        const result = await createMcpClient({ url: server.url, auth }).callTool('add', { a: 'x', b: 2 });
        expect(result.isError).toBe(true);
        expect(Array.isArray(result.content)).toBe(true);
      });

      if (variant.stateful) {
        it('starts a new session when the server lost ours', async () => {
          const client = createMcpClient({ url: server.url, auth });
          await client.listTools();
          await server.dropSessions();
          expect(server.sessionCount()).toBe(0);
          expect(await client.callTool('add', { a: 5, b: 5 })).toEqual({ content: [{ type: 'text', text: '10' }] });
          expect(server.sessionCount()).toBe(1);
          await client.close();
          expect(server.sessionCount()).toBe(0);
        });
      }
    });
  }
});

describe('misbehaving servers', () => {
  const servers = new Map<BadServerKind, BadServer>();
  const kinds: BadServerKind[] = [
    'invalid_schema',
    'wrong_id',
    'html',
    'redirect',
    'slow',
    'huge',
    'huge_sse',
    'status_401',
    'status_424',
    'status_500',
  ];
  beforeAll(async () => {
    for (const kind of kinds) servers.set(kind, await startBadServer(kind));
  });
  afterAll(async () => {
    await Promise.all([...servers.values()].map((s) => s.close()));
  });

  const auth: McpAuth = { type: 'header', name: 'x-api-key', value: API_KEY };
  const clientFor = (kind: BadServerKind, timeoutMs?: number) =>
    createMcpClient({ url: servers.get(kind)!.url, auth, ...(timeoutMs === undefined ? {} : { timeoutMs }) });

  it('invalid_schema: listTools works, checkToolServer names the bad tool', async () => {
    expect((await clientFor('invalid_schema').listTools()).map((t) => t.name)).toEqual(['echo', 'broken']);
    const check = await checkToolServer(clientFor('invalid_schema'));
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.error.kind).toBe('invalid_schema');
    expect(check.error.tool).toBe('broken');
    expect(check.error.message).toMatch(/^Invalid tool schema: tool broken: /);
    ERROR_MESSAGES.push(check.error.message);
  });

  it('wrong_id → bad_id', async () => {
    await expectFailure(clientFor('wrong_id').listTools(), 'bad_id');
  });

  it('html → bad_response', async () => {
    const error = await expectFailure(clientFor('html').listTools(), 'bad_response');
    expect(error.message).toMatch(/HTML/);
  });

  it('redirect → redirect, and the target never receives a request', async () => {
    const server = servers.get('redirect')!;
    const error = await expectFailure(clientFor('redirect').listTools(), 'redirect');
    expect(error.status).toBe(302);
    await expectFailure(clientFor('redirect').callTool('echo', { text: 'x' }), 'redirect');
    expect(server.requests).toHaveLength(2);
    expect(server.target!.requests).toHaveLength(0);
  });

  it('slow → timeout within about timeoutMs', async () => {
    const started = Date.now();
    await expectFailure(clientFor('slow', 300).listTools(), 'timeout');
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(280);
    expect(elapsed).toBeLessThan(1500);
  });

  it('slow is fine with a long enough deadline', async () => {
    expect(await clientFor('slow', 6000).listTools()).toHaveLength(2);
  }, 10_000);

  it('huge (2 MiB JSON) → too_large', async () => {
    await expectFailure(clientFor('huge').listTools(), 'too_large');
  });

  it('huge (2 MiB of SSE) → too_large', async () => {
    await expectFailure(clientFor('huge_sse').listTools(), 'too_large');
  });

  it('huge passes with a cap above its size', async () => {
    const client = createMcpClient({ url: servers.get('huge')!.url, auth, maxResponseBytes: 3 * 1024 * 1024 });
    expect(await client.listTools()).toEqual([]);
  });

  it('status 401 → unauthorized, 424 → upstream_dependency, 500 → upstream_error (status kept)', async () => {
    expect((await expectFailure(clientFor('status_401').listTools(), 'unauthorized')).status).toBe(401);
    expect((await expectFailure(clientFor('status_424').callTool('echo', { text: 'x' }), 'upstream_dependency')).status).toBe(424);
    expect((await expectFailure(clientFor('status_500').listTools(), 'upstream_error')).status).toBe(500);
  });

  it('connection refused → unreachable', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const started = Date.now();
    const error = await expectFailure(
      createMcpClient({ url: `http://127.0.0.1:${port}/mcp`, auth: { type: 'bearer', token: BEARER } }).listTools(),
      'unreachable',
    );
    expect(Date.now() - started).toBeLessThan(5000);
    expect(error.message).toMatch(/ECONNREFUSED/);
  });

  it('a name that does not resolve → unreachable', async () => {
    await expectFailure(createMcpClient({ url: 'http://no-such-host.invalid/mcp', auth, timeoutMs: 5000 }).listTools(), 'unreachable');
  });
});

describe('in workerd (Miniflare): the same client, bundled as the worker is', () => {
  let miniflare: Miniflare;
  let plain: TestServer;
  let sdk: SdkTestServer;
  let slow: BadServer;

  beforeAll(async () => {
    [plain, sdk, slow] = await Promise.all([
      startPlainServer({ apiKey: API_KEY }),
      startSdkServer({ stateful: true, bearer: BEARER }),
      startBadServer('slow'),
    ]);
    const entry = `
      import { checkToolServer, createMcpClient, McpError } from './src/tool-servers/client';
      import { canonicalToolServerUrl } from './src/tool-servers/url';
      import { checkToolSchema, validateArguments } from './src/tool-servers/schema-check';
      export default {
        async fetch(request) {
          const { op, url, auth, timeoutMs, input } = await request.json();
          try {
            if (op === 'url') return Response.json(input.map((u) => canonicalToolServerUrl(u)));
            if (op === 'schema') return Response.json(input.map((s) => checkToolSchema(s)).concat([validateArguments({ type: 'object', properties: { a: { type: 'number' } } }, { a: 'x' })]));
            const client = createMcpClient({ url, auth, timeoutMs });
            if (op === 'check') return Response.json(await checkToolServer(client).then((r) => r.ok ? r : { ok: false, kind: r.error.kind, tool: r.error.tool }));
            const tools = await client.listTools();
            const echo = await client.callTool('echo', { text: 'from workerd' });
            await client.close();
            return Response.json({ tools: tools.map((t) => t.name), echo });
          } catch (err) {
            if (err instanceof McpError) return Response.json({ failure: err.kind, status: err.status ?? null, message: err.message });
            return Response.json({ crash: String(err) }, { status: 500 });
          }
        },
      };`;
    const bundle = await build({
      stdin: { contents: entry, resolveDir: path.resolve(__dirname, '../..'), sourcefile: 'mcp-worker.ts', loader: 'ts' },
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      target: 'es2022',
      mainFields: ['module', 'main'],
      conditions: ['workerd', 'worker', 'import'],
      write: false,
      logLevel: 'silent',
    });
    miniflare = new Miniflare({
      modules: true,
      script: bundle.outputFiles[0]!.text,
      compatibilityDate: '2026-07-30',
      compatibilityFlags: ['nodejs_compat'],
    });
    await miniflare.ready;
  }, 60_000);

  afterAll(async () => {
    await miniflare?.dispose();
    await Promise.all([plain?.close(), sdk?.close(), slow?.close()]);
  });

  async function run(body: Record<string, unknown>): Promise<Record<string, unknown> & unknown[]> {
    const res = await miniflare.dispatchFetch('http://worker.test/', { method: 'POST', body: JSON.stringify(body) });
    return (await res.json()) as Record<string, unknown> & unknown[];
  }

  it('talks to the plain server and the stateful SDK server', async () => {
    expect(await run({ op: 'call', url: plain.url, auth: { type: 'header', name: 'x-api-key', value: API_KEY } })).toEqual({
      tools: ['echo', 'add'],
      echo: { content: [{ type: 'text', text: 'from workerd' }] },
    });
    expect(await run({ op: 'call', url: sdk.url, auth: { type: 'bearer', token: BEARER } })).toEqual({
      tools: ['echo', 'add'],
      echo: { content: [{ type: 'text', text: 'from workerd' }] },
    });
    expect(sdk.sessionCount()).toBe(0); // closed with DELETE
    // workerd adds only Host, Content-Length and CF-Worker (Cloudflare sets it on every subrequest).
    expect(headerNames(plain)).toEqual(['accept', 'cf-worker', 'content-length', 'content-type', 'host', 'x-api-key']);
    expect(await run({ op: 'check', url: sdk.url, auth: { type: 'bearer', token: BEARER } })).toMatchObject({ ok: true });
  });

  it('maps failures the same way', async () => {
    const wrongKey = await run({ op: 'call', url: plain.url, auth: { type: 'header', name: 'x-api-key', value: WRONG } });
    expect(wrongKey).toMatchObject({ failure: 'unauthorized', status: 401 });
    const timedOut = await run({ op: 'call', url: slow.url, auth: { type: 'none' }, timeoutMs: 300 });
    expect(timedOut).toMatchObject({ failure: 'timeout' });
    for (const result of [wrongKey, timedOut]) ERROR_MESSAGES.push(String(result.message));
  });

  it('applies the URL rules with workerd URL parser', async () => {
    const results = (await run({
      op: 'url',
      input: [
        'https://Tools.Example.com:443/mcp',
        'https://bücher.example/mcp',
        'https://2130706433/mcp',
        'https://0x7f.1/mcp',
        'https://[::ffff:127.0.0.1]/mcp',
        'https://tools\u200b.example.com/mcp',
        'https://%6c%6f%63%61%6c%68%6f%73%74/mcp',
        'http://tools.example.com/mcp',
      ],
    })) as unknown[];
    expect(results).toEqual([
      { ok: true, url: 'https://tools.example.com/mcp' },
      { ok: true, url: 'https://xn--bcher-kva.example/mcp' },
      expect.objectContaining({ ok: false, reason: 'ip_literal' }),
      expect.objectContaining({ ok: false, reason: 'ip_literal' }),
      expect.objectContaining({ ok: false, reason: 'ip_literal' }),
      expect.objectContaining({ ok: false, reason: 'invisible_character' }),
      expect.objectContaining({ ok: false, reason: 'local_host' }),
      expect.objectContaining({ ok: false, reason: 'not_https' }),
    ]);
  });

  it('checks schemas with the embedded meta-schema', async () => {
    const results = (await run({
      op: 'schema',
      input: [{ type: 'object', properties: { q: { type: 'string' } } }, { type: 'strin' }, { type: 'object', properties: [] }],
    })) as { ok: boolean }[];
    expect(results.map((r) => r.ok)).toEqual([true, false, false, false]);
  });
});
