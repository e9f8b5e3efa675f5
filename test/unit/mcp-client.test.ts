/**
 * The MCP client against scripted fetch functions: request shape, SSE parsing details, session
 * handling and every failure kind that needs no real server. Real servers: test/integration/mcp-client.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  checkCredentialHeader,
  checkToolServer,
  createMcpClient,
  McpError,
  type McpAuth,
  type McpFailure,
} from '../../src/tool-servers/client';

const URL_ = 'https://tools.example.com/mcp';
const SECRET = 'sk-live-very-secret-credential-42';

interface Seen {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  redirect: string | undefined;
  hasSignal: boolean;
}

type Reply = (body: Record<string, unknown>, seen: Seen, index: number) => Response | Promise<Response>;

/** A fetch that records requests and answers with `reply`. */
function scripted(reply: Reply) {
  const seen: Seen[] = [];
  const fetchFn = async (input: RequestInfo | URL, init?: RequestInit) => {
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as Record<string, unknown>) : {};
    const entry: Seen = {
      url: String(input),
      method: init?.method ?? 'GET',
      headers,
      body,
      redirect: init?.redirect,
      hasSignal: init?.signal instanceof AbortSignal,
    };
    seen.push(entry);
    return reply(body, entry, seen.length - 1);
  };
  return { seen, fetch: fetchFn as unknown as typeof fetch };
}

function json(value: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(value), { status, headers: { 'content-type': 'application/json', ...headers } });
}

function result(id: unknown, value: unknown) {
  return { jsonrpc: '2.0', id, result: value };
}

/** An SSE response whose text arrives in chunks of `chunkSize` bytes. */
function sse(text: string, chunkSize = 1_000_000, headers: Record<string, string> = {}): Response {
  const bytes = new TextEncoder().encode(text);
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += chunkSize) controller.enqueue(bytes.slice(i, i + chunkSize));
      controller.close();
    },
  });
  return new Response(stream, { status: 200, headers: { 'content-type': 'text/event-stream', ...headers } });
}

const TOOL = { name: 'echo', description: 'Echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } };

async function failure(promise: Promise<unknown>, kind: McpFailure): Promise<McpError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(McpError);
    const error = err as McpError;
    expect(error.kind, error.message).toBe(kind);
    expect(error.message).not.toContain(SECRET);
    return error;
  }
  throw new Error(`expected failure ${kind}`);
}

function client(fetchFn: typeof fetch, auth: McpAuth = { type: 'none' }, extra: { timeoutMs?: number; maxResponseBytes?: number } = {}) {
  return createMcpClient({ url: URL_, auth, fetch: fetchFn, ...extra });
}

describe('requests', () => {
  it('sends one POST with our headers, the credential, a JSON-RPC envelope and increasing ids', async () => {
    const { seen, fetch } = scripted((body) =>
      json(result(body.id, body.method === 'tools/list' ? { tools: [TOOL] } : { content: [{ type: 'text', text: 'hi' }] })),
    );
    const c = client(fetch, { type: 'header', name: 'X-Api-Key', value: SECRET });
    expect(await c.listTools()).toEqual([TOOL]);
    expect(await c.callTool('echo', { text: 'hi' })).toEqual({ content: [{ type: 'text', text: 'hi' }] });
    expect(seen).toHaveLength(2);
    for (const s of seen) {
      expect(s.url).toBe(URL_);
      expect(s.method).toBe('POST');
      expect(s.redirect).toBe('manual');
      expect(s.hasSignal).toBe(true);
      expect(s.headers).toEqual({
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-api-key': SECRET,
      });
    }
    expect(seen[0]!.body).toEqual({ jsonrpc: '2.0', method: 'tools/list', params: {}, id: 1 });
    // Every tools/call carries a progress token.
    expect(seen[1]!.body).toEqual({
      jsonrpc: '2.0',
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'hi' }, _meta: { progressToken: expect.stringMatching(/^[0-9a-f-]{36}$/) } },
      id: 2,
    });
  });

  it('sends a bearer token as Authorization and nothing for none', async () => {
    const bearer = scripted((body) => json(result(body.id, { tools: [] })));
    await client(bearer.fetch, { type: 'bearer', token: SECRET }).listTools();
    expect(bearer.seen[0]!.headers.authorization).toBe(`Bearer ${SECRET}`);
    const none = scripted((body) => json(result(body.id, { tools: [] })));
    await client(none.fetch).listTools();
    expect(Object.keys(none.seen[0]!.headers).sort()).toEqual(['accept', 'content-type']);
  });

  it('refuses credential headers it cannot send safely, without echoing the value', () => {
    for (const name of ['Cookie', 'Host', 'Content-Type', 'Mcp-Session-Id', 'bad name', '', 'x\r\ny']) {
      expect(checkCredentialHeader(name, 'v').ok, name).toBe(false);
    }
    expect(checkCredentialHeader('x-api-key', SECRET)).toEqual({ ok: true });
    expect(checkCredentialHeader('Authorization', `Basic ${SECRET}`)).toEqual({ ok: true });
    for (const value of ['', ` ${SECRET}`, `${SECRET}\r\nX-Evil: 1`, `${SECRET}\u00e9`]) {
      const check = checkCredentialHeader('x-api-key', value);
      expect(check.ok).toBe(false);
      if (!check.ok) expect(check.problem).not.toContain(SECRET);
    }
    const { fetch } = scripted(() => json({}));
    expect(() => client(fetch, { type: 'header', name: 'x-api-key', value: `${SECRET}\n` })).toThrow(TypeError);
    try {
      client(fetch, { type: 'bearer', token: `${SECRET}\n` });
    } catch (err) {
      expect(String(err)).not.toContain(SECRET);
    }
  });

  it('rejects a URL that is not http(s)', () => {
    const { fetch } = scripted(() => json({}));
    expect(() => createMcpClient({ url: 'ftp://x.example/', auth: { type: 'none' }, fetch })).toThrow(TypeError);
    expect(() => createMcpClient({ url: 'not a url', auth: { type: 'none' }, fetch })).toThrow(TypeError);
  });
});

describe('SSE replies', () => {
  const stream = (id: number) =>
    [
      ': a comment\r\n',
      'event: message\r\n',
      `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } })}\r\n`,
      '\r\n',
      `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'sampling/createMessage', id: 77, params: {} })}\n\n`,
      'event: message\n',
      'id: ev-1\n',
      // one JSON message split over two data lines: joined with \n, still valid JSON
      `data: {"jsonrpc":"2.0","id":${id},\n`,
      `data: "result":{"tools":[${JSON.stringify(TOOL)}]}}\n`,
      '\n',
    ].join('');

  it('finds our response after notifications and server requests, CRLF and LF alike', async () => {
    const { fetch } = scripted((body) => sse(stream(body.id as number)));
    expect(await client(fetch).listTools()).toEqual([TOOL]);
  });

  it('parses the stream whatever the chunk boundaries (one byte at a time)', async () => {
    const { fetch } = scripted((body) => sse(stream(body.id as number), 1));
    expect(await client(fetch).listTools()).toEqual([TOOL]);
  });

  it('accepts a last event without the final blank line', async () => {
    const { fetch } = scripted((body) => sse(`data: ${JSON.stringify(result(body.id, { tools: [] }))}`));
    expect(await client(fetch).listTools()).toEqual([]);
  });

  it('stops reading once our response arrived (the stream may stay open)', async () => {
    let cancelled = false;
    const { fetch } = scripted((body) => {
      const enc = new TextEncoder();
      const streamBody = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(enc.encode(`data: ${JSON.stringify(result(body.id, { tools: [] }))}\n\n`));
          // never closed
        },
        cancel() {
          cancelled = true;
        },
      });
      return new Response(streamBody, { headers: { 'content-type': 'text/event-stream' } });
    });
    expect(await client(fetch, { type: 'none' }, { timeoutMs: 2000 }).listTools()).toEqual([]);
    expect(cancelled).toBe(true);
  });

  it('only other ids → bad_id; no response at all → bad_response; error with null id → rpc_error', async () => {
    const other = scripted((body) => sse(`data: ${JSON.stringify(result((body.id as number) + 1, { tools: [] }))}\n\n`));
    await failure(client(other.fetch).listTools(), 'bad_id');
    const none = scripted(() => sse(`data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message' })}\n\n`));
    await failure(client(none.fetch).listTools(), 'bad_response');
    const err = scripted(() => sse(`data: ${JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: 'boom' } })}\n\n`));
    const e = await failure(client(err.fetch).listTools(), 'rpc_error');
    expect(e.rpcCode).toBe(-32603);
  });

  it('caps the bytes read from an event stream', async () => {
    const note = `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { d: 'x'.repeat(1000) } })}\n\n`;
    const { fetch } = scripted(() => sse(note.repeat(100), 4096));
    await failure(client(fetch, { type: 'none' }, { maxResponseBytes: 10_000 }).listTools(), 'too_large');
  });
});

describe('an endless SSE line (issue 18)', () => {
  /** A stream of `total` bytes of `x` in chunks of `chunk`, with no line end, made lazily. */
  function endless(total: number, chunk: number): Response {
    const piece = new TextEncoder().encode('x'.repeat(chunk));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= total) return controller.close();
        sent += chunk;
        controller.enqueue(piece);
      },
    });
    return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
  }

  it('8 MB in 1 KB chunks without a newline, under a 16 MB cap: answered within a second', async () => {
    const { fetch } = scripted(() => endless(8 * 1024 * 1024, 1024));
    const started = performance.now();
    await failure(client(fetch, { type: 'none' }, { maxResponseBytes: 16 * 1024 * 1024, timeoutMs: 30_000 }).listTools(), 'bad_response');
    expect(performance.now() - started).toBeLessThan(1_000);
  }, 60_000);

  it('an endless line stops at the byte cap, within a second', async () => {
    const { fetch } = scripted(() => endless(64 * 1024 * 1024, 1024));
    const started = performance.now();
    await failure(client(fetch, { type: 'none' }, { maxResponseBytes: 8 * 1024 * 1024, timeoutMs: 30_000 }).listTools(), 'too_large');
    expect(performance.now() - started).toBeLessThan(1_000);
  }, 60_000);

  it('a long data line split over many chunks (and a CR LF split between two) is still parsed', async () => {
    const { fetch } = scripted((body) => {
      const text = `data: ${JSON.stringify(result(body.id, { tools: [{ ...TOOL, description: 'd'.repeat(300_000) }] }))}\r\n\r\n`;
      return sse(text, 1024);
    });
    const tools = await client(fetch, { type: 'none' }, { maxResponseBytes: 1024 * 1024 }).listTools();
    expect(tools[0]?.description).toHaveLength(300_000);
  });
});

describe('JSON replies', () => {
  it('checks jsonrpc, the id and the result', async () => {
    await failure(client(scripted((b) => json({ jsonrpc: '1.0', id: b.id, result: { tools: [] } })).fetch).listTools(), 'bad_response');
    await failure(client(scripted((b) => json({ jsonrpc: '2.0', id: String(b.id), result: { tools: [] } })).fetch).listTools(), 'bad_id');
    await failure(client(scripted((b) => json({ jsonrpc: '2.0', id: b.id })).fetch).listTools(), 'bad_response');
    await failure(client(scripted((b) => json({ jsonrpc: '2.0', id: b.id, result: 'x' })).fetch).listTools(), 'bad_response');
    await failure(client(scripted((b) => json(result(b.id, { tools: {} }))).fetch).listTools(), 'bad_response');
    await failure(client(scripted(() => new Response('not json', { status: 200 })).fetch).listTools(), 'bad_response');
    await failure(client(scripted(() => new Response(null, { status: 202 })).fetch).listTools(), 'bad_response');
  });

  it('accepts a batch reply holding our response', async () => {
    const { fetch } = scripted((b) => json([result(999, {}), result(b.id, { tools: [] })]));
    expect(await client(fetch).listTools()).toEqual([]);
  });

  it('turns a JSON-RPC error into rpc_error, scrubbing the credential if the server echoes it', async () => {
    const { fetch } = scripted((b) => json({ jsonrpc: '2.0', id: b.id, error: { code: -32602, message: `bad key ${SECRET}` } }));
    const e = await failure(client(fetch, { type: 'bearer', token: SECRET }).callTool('echo', {}), 'rpc_error');
    expect(e.rpcCode).toBe(-32602);
    expect(e.message).toContain('bad key ***');
  });

  it('refuses a declared Content-Length over the cap without reading the body', async () => {
    const { fetch } = scripted(() => new Response('{}', { headers: { 'content-type': 'application/json', 'content-length': '5000000' } }));
    await failure(client(fetch).listTools(), 'too_large');
  });

  it('checks tools/call content', async () => {
    await failure(client(scripted((b) => json(result(b.id, { content: 'text' }))).fetch).callTool('echo', {}), 'bad_response');
    await failure(client(scripted((b) => json(result(b.id, { content: [{ text: 'x' }] }))).fetch).callTool('echo', {}), 'bad_response');
    const ok = await client(scripted((b) => json(result(b.id, { content: [{ type: 'text', text: 'x' }], isError: true }))).fetch).callTool(
      'echo',
      {},
    );
    expect(ok).toEqual({ content: [{ type: 'text', text: 'x' }], isError: true });
  });
});

describe('HTTP statuses', () => {
  const cases: [number, McpFailure][] = [
    [301, 'redirect'],
    [307, 'redirect'],
    [401, 'unauthorized'],
    [403, 'unauthorized'],
    [424, 'upstream_dependency'],
    [500, 'upstream_error'],
    [502, 'upstream_error'],
    [503, 'upstream_error'],
    [404, 'bad_status'],
    [405, 'bad_status'],
    [429, 'bad_status'],
  ];
  for (const [status, kind] of cases) {
    it(`${status} → ${kind} (status kept)`, async () => {
      const { fetch } = scripted(() => new Response('nope', { status, headers: status < 400 ? { location: 'https://x.example/' } : {} }));
      const e = await failure(client(fetch, { type: 'bearer', token: SECRET }).listTools(), kind);
      expect(e.status).toBe(status);
    });
  }

  it('400 with a JSON-RPC error that is not about sessions → rpc_error', async () => {
    const { seen, fetch } = scripted((b) => json({ jsonrpc: '2.0', id: b.id, error: { code: -32602, message: 'Invalid params' } }, 400));
    const e = await failure(client(fetch).callTool('echo', {}), 'rpc_error');
    expect(e.status).toBe(400);
    // One server/discover (might it be a server of the stateless revision?); its refusal changes nothing.
    expect(seen.map((s) => s.body.method)).toEqual(['tools/call', 'server/discover']);
  });

  it('network failure → unreachable; no answer in time → timeout', async () => {
    const refused = (async () => {
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
    }) as unknown as typeof fetch;
    const e = await failure(client(refused).listTools(), 'unreachable');
    expect(e.message).toContain('ECONNREFUSED');

    const hanging = ((_: unknown, init?: RequestInit) =>
      new Promise((_resolve, reject) => {
        init?.signal?.addEventListener('abort', () => reject(init.signal?.reason));
      })) as unknown as typeof fetch;
    const started = Date.now();
    await failure(client(hanging, { type: 'none' }, { timeoutMs: 200 }).listTools(), 'timeout');
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('a caller that stops waiting', () => {
  it('ends the tool call at once (its request aborted) as a timeout, whatever time the call had left', async () => {
    let aborted = false;
    const hanging = ((_: unknown, init?: RequestInit) =>
      new Promise((_resolve, reject) => {
        init?.signal?.addEventListener('abort', () => {
          aborted = true;
          reject(init.signal?.reason);
        });
      })) as unknown as typeof fetch;
    const caller = new AbortController();
    const started = Date.now();
    const call = client(hanging, { type: 'none' }, { timeoutMs: 10_000 }).callTool('echo', {}, { signal: caller.signal });
    setTimeout(() => caller.abort(), 50);
    const e = await failure(call, 'timeout');
    expect(e.message).toContain('abandoned');
    expect(aborted).toBe(true);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('sessions', () => {
  /** A fake streamable-HTTP server: wants initialize first, gives session `s-<n>`. */
  function sessionServer(options: { sessionHeader?: boolean } = {}) {
    let sessions = 0;
    let live: string | undefined;
    const state = {
      expire() {
        live = undefined;
      },
    };
    const fake = scripted((body, seen) => {
      if (body.method === 'initialize') {
        sessions++;
        live = `s-${sessions}`;
        const headers: Record<string, string> = options.sessionHeader === false ? {} : { 'mcp-session-id': live };
        return sse(
          `event: message\ndata: ${JSON.stringify(result(body.id, { protocolVersion: '2025-03-26', capabilities: {}, serverInfo: { name: 'x', version: '1' } }))}\n\n`,
          1000,
          headers,
        );
      }
      if (body.method === 'notifications/initialized') return new Response(null, { status: 202 });
      const sid = seen.headers['mcp-session-id'];
      if (options.sessionHeader !== false && sid === undefined) {
        return json({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: Mcp-Session-Id header is required' } }, 400);
      }
      if (options.sessionHeader !== false && sid !== live) {
        return json({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }, 404);
      }
      if (options.sessionHeader === false && live === undefined) {
        return json({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: Server not initialized' } }, 400);
      }
      return json(result(body.id, { tools: [TOOL] }));
    });
    return { ...fake, state };
  }

  it('initializes once on a session error, then sends the session id and negotiated version', async () => {
    const server = sessionServer();
    const c = client(server.fetch, { type: 'bearer', token: SECRET });
    expect(await c.listTools()).toEqual([TOOL]);
    expect(await c.listTools()).toEqual([TOOL]);
    const methods = server.seen.map((s) => s.body.method ?? s.method);
    expect(methods).toEqual(['tools/list', 'initialize', 'notifications/initialized', 'tools/list', 'tools/list']);
    const init = server.seen[1]!;
    expect(init.body).toMatchObject({
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'agent-gateway' } },
    });
    expect(init.headers['mcp-session-id']).toBeUndefined();
    const note = server.seen[2]!;
    expect(note.body).toEqual({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(note.headers['mcp-session-id']).toBe('s-1');
    expect(note.headers['mcp-protocol-version']).toBe('2025-03-26');
    for (const s of server.seen.slice(3)) {
      expect(s.headers['mcp-session-id']).toBe('s-1');
      expect(s.headers['mcp-protocol-version']).toBe('2025-03-26');
      expect(s.headers.authorization).toBe(`Bearer ${SECRET}`);
    }
  });

  it('starts a new session when the server forgot ours (404 Session not found)', async () => {
    const server = sessionServer();
    const c = client(server.fetch);
    await c.listTools();
    server.state.expire();
    expect(await c.listTools()).toEqual([TOOL]);
    expect(server.seen.at(-1)!.headers['mcp-session-id']).toBe('s-2');
  });

  it('works with a server that wants initialize but gives no session id', async () => {
    const server = sessionServer({ sessionHeader: false });
    expect(await client(server.fetch).listTools()).toEqual([TOOL]);
    expect(server.seen.at(-1)!.headers['mcp-session-id']).toBeUndefined();
    expect(server.seen.at(-1)!.headers['mcp-protocol-version']).toBe('2025-03-26');
  });

  it('gives up after one handshake when the session is still refused', async () => {
    const { seen, fetch } = scripted((body) => {
      if (body.method === 'initialize') return json(result(body.id, { protocolVersion: '2025-06-18' }), 200, { 'mcp-session-id': 'abc' });
      if (body.method === 'notifications/initialized') return new Response(null, { status: 202 });
      return json({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: No valid session ID provided' } }, 400);
    });
    const e = await failure(client(fetch).listTools(), 'bad_status');
    expect(e.status).toBe(400);
    expect(seen).toHaveLength(4);
  });

  it('parallel calls whose session expired open one new session between them, however late their refusals arrive', async () => {
    const server = sessionServer();
    const c = client(server.fetch);
    await c.listTools();
    server.state.expire();
    let late = 0;
    // The refusals of the old session arrive spread out: most of them after the new session is open.
    const spread = (async (input: RequestInfo | URL, init?: RequestInit) => {
      if (new Headers(init?.headers).get('mcp-session-id') === 's-1') await new Promise((r) => setTimeout(r, 15 * late++));
      return server.fetch(input, init);
    }) as typeof fetch;
    const shared = createMcpClient({ url: URL_, auth: { type: 'none' }, fetch: spread, session: c.session()! });
    const results = await Promise.all(Array.from({ length: 10 }, () => shared.listTools()));
    expect(results).toEqual(Array.from({ length: 10 }, () => [TOOL]));
    expect(server.seen.filter((s) => s.body.method === 'initialize')).toHaveLength(2); // registration's, then one
    expect(shared.session()).toEqual({ id: 's-2', protocolVersion: '2025-03-26' });
  });

  it('close() ends the session with DELETE', async () => {
    const server = sessionServer();
    const c = client(server.fetch);
    await c.listTools();
    await c.close();
    const last = server.seen.at(-1)!;
    expect(last.method).toBe('DELETE');
    expect(last.headers['mcp-session-id']).toBe('s-1');
  });
});

describe('tools/list paging and checkToolServer', () => {
  it('follows nextCursor', async () => {
    const { seen, fetch } = scripted((b) => {
      const cursor = (b.params as { cursor?: string }).cursor;
      const n = cursor === undefined ? 0 : Number(cursor);
      return json(result(b.id, { tools: [{ ...TOOL, name: `t${n}` }], ...(n < 4 ? { nextCursor: String(n + 1) } : {}) }));
    });
    const tools = await client(fetch).listTools();
    expect(tools.map((t) => t.name)).toEqual(['t0', 't1', 't2', 't3', 't4']);
    expect(seen.map((s) => s.body.params)).toEqual([{}, { cursor: '1' }, { cursor: '2' }, { cursor: '3' }, { cursor: '4' }]);
  });

  it('stops a cursor loop and an endless listing', async () => {
    const loop = scripted((b) => json(result(b.id, { tools: [], nextCursor: 'same' })));
    await failure(client(loop.fetch).listTools(), 'bad_response');
    const endless = scripted((b) => json(result(b.id, { tools: [], nextCursor: `c${b.id as number}` })));
    await failure(client(endless.fetch).listTools(), 'too_large');
    expect(endless.seen).toHaveLength(20);
    const many = scripted((b) => json(result(b.id, { tools: Array.from({ length: 1001 }, (_, i) => ({ ...TOOL, name: `t${i}` })) })));
    await failure(client(many.fetch).listTools(), 'too_large');
  });

  it('leaves a missing description out (optional, as in MCP)', async () => {
    const { fetch } = scripted((b) => json(result(b.id, { tools: [{ name: 'x', inputSchema: { type: 'object' } }] })));
    expect(await client(fetch).listTools()).toEqual([{ name: 'x', inputSchema: { type: 'object' } }]);
  });

  it("keeps every field of MCP's tool shape and drops the rest", async () => {
    const tool = {
      name: 'weather',
      title: 'Weather',
      description: 'Current weather',
      inputSchema: { type: 'object' },
      outputSchema: { type: 'object', properties: { celsius: { type: 'number' } } },
      annotations: { readOnlyHint: true, openWorldHint: true },
      execution: { taskSupport: 'optional' },
      icons: [{ src: 'https://example.com/w.png', mimeType: 'image/png' }],
      _meta: { 'example.com/owner': 'team' },
    };
    const { fetch } = scripted((b) => json(result(b.id, { tools: [{ ...tool, somethingElse: 1 }] })));
    expect(await client(fetch).listTools()).toEqual([tool]);
  });

  it('names the first tool with an invalid schema', async () => {
    const { fetch } = scripted((b) =>
      json(
        result(b.id, {
          tools: [TOOL, { name: 'bad', description: '', inputSchema: { type: 'strin' } }, { name: 'worse', inputSchema: 5 }],
        }),
      ),
    );
    const check = await checkToolServer(client(fetch));
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.error.kind).toBe('invalid_schema');
    expect(check.error.tool).toBe('worse'); // a non-object schema is caught while listing
    const onlyTypo = scripted((b) =>
      json(result(b.id, { tools: [TOOL, { name: 'bad', description: '', inputSchema: { type: 'strin' } }] })),
    );
    const second = await checkToolServer(client(onlyTypo.fetch));
    expect(second).toMatchObject({ ok: false, error: { kind: 'invalid_schema', tool: 'bad' } });
    if (!second.ok) expect(second.error.message).toMatch(/^Invalid tool schema/);
  });

  it('rejects duplicate tool names and passes transport failures through', async () => {
    const dup = scripted((b) => json(result(b.id, { tools: [TOOL, TOOL] })));
    expect(await checkToolServer(client(dup.fetch))).toMatchObject({ ok: false, error: { kind: 'invalid_schema', tool: 'echo' } });
    const down = scripted(() => new Response('x', { status: 503 }));
    expect(await checkToolServer(client(down.fetch))).toMatchObject({ ok: false, error: { kind: 'upstream_error', status: 503 } });
    const good = scripted((b) => json(result(b.id, { tools: [TOOL] })));
    expect(await checkToolServer(client(good.fetch))).toEqual({ ok: true, tools: [TOOL] });
  });
});
