/**
 * Tool servers for tests, on loopback, from Node (`node:http`):
 * - startPlainServer: the spec's plain JSON-RPC contract (no handshake), `x-api-key` required;
 * - startSdkServer: `@modelcontextprotocol/sdk` McpServer over streamable HTTP, stateful or stateless;
 * - startBadServer: one misbehaviour each.
 * Every server records the requests it received and must be closed (`close()`) by the test.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

export interface TestServer {
  /** `http://127.0.0.1:<port>/mcp` */
  url: string;
  port: number;
  /** Every request received, in order (bodies parsed as JSON when they are). */
  requests: RecordedRequest[];
  close(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: unknown) => void | Promise<void>;

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

/** Starts an HTTP server on 127.0.0.1 (random port) that records requests and hands them to `handler`. */
export async function listen(handler: Handler, onClose?: () => void | Promise<void>): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      await handler(req, res, body);
    })().catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: String(err) });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    requests,
    close() {
      closed ??= (async () => {
        await onClose?.();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      })();
      return closed;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Plain JSON-RPC server (the spec's contract)

export interface PlainTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export const PLAIN_TOOLS: PlainTool[] = [
  {
    name: 'echo',
    description: 'Echoes the text back',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  },
  {
    name: 'add',
    description: 'Adds two numbers',
    inputSchema: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    },
  },
];

export type RpcRequest = { jsonrpc?: unknown; method?: unknown; params?: unknown; id?: unknown };

export function rpcResult(id: unknown, result: unknown) {
  return { jsonrpc: '2.0', result, id };
}

export function rpcError(id: unknown, code: number, message: string) {
  return { jsonrpc: '2.0', error: { code, message }, id };
}

/** Answers tools/list (paginated, `pageSize` tools a page) and tools/call for `tools`. */
export function plainRpc(request: RpcRequest, tools: PlainTool[], pageSize: number): unknown {
  const { method, id } = request;
  const params = (typeof request.params === 'object' && request.params !== null ? request.params : {}) as Record<string, unknown>;
  if (request.jsonrpc !== '2.0' || typeof method !== 'string') return rpcError(id ?? null, -32600, 'Invalid Request');
  if (method === 'tools/list') {
    const start = typeof params.cursor === 'string' ? Number(params.cursor.replace(/^page-/, '')) : 0;
    if (!Number.isInteger(start) || start < 0 || start > tools.length) return rpcError(id, -32602, 'Invalid cursor');
    const page = tools.slice(start, start + pageSize);
    const next = start + pageSize;
    return rpcResult(id, { tools: page, ...(next < tools.length ? { nextCursor: `page-${next}` } : {}) });
  }
  if (method === 'tools/call') {
    const args = (params.arguments ?? {}) as Record<string, unknown>;
    if (params.name === 'echo') {
      if (typeof args.text !== 'string') return rpcError(id, -32602, 'Invalid params: text must be a string');
      return rpcResult(id, { content: [{ type: 'text', text: args.text }] });
    }
    if (params.name === 'add') {
      if (typeof args.a !== 'number' || typeof args.b !== 'number') {
        return rpcError(id, -32602, 'Invalid params: a and b must be numbers');
      }
      return rpcResult(id, { content: [{ type: 'text', text: String(args.a + args.b) }] });
    }
    return rpcError(id, -32602, `Unknown tool: ${String(params.name)}`);
  }
  return rpcError(id ?? null, -32601, `Method not found: ${method}`);
}

/**
 * The spec's plain server at `/mcp`: JSON-RPC over POST, no handshake, header `x-api-key`
 * required (401 when wrong or missing), tools `echo` and `add`, tools/list one tool a page.
 */
export function startPlainServer(options: { apiKey: string }): Promise<TestServer> {
  return listen((req, res, body) => {
    if (req.url !== '/mcp') return sendJson(res, 404, { error: 'not found' });
    if (req.method !== 'POST') return sendJson(res, 405, { error: 'method not allowed' });
    if (req.headers['x-api-key'] !== options.apiKey) return sendJson(res, 401, { error: 'Unauthorized' });
    if (typeof body !== 'object' || body === null) return sendJson(res, 200, rpcError(null, -32700, 'Parse error'));
    sendJson(res, 200, plainRpc(body as RpcRequest, PLAIN_TOOLS, 1));
  });
}

// ---------------------------------------------------------------------------------------------
// Servers built with the MCP SDK (streamable HTTP)

export function buildSdkServer(): McpServer {
  const server = new McpServer({ name: 'test-sdk-server', version: '1.0.0' });
  server.registerTool('echo', { description: 'Echoes the text back', inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  server.registerTool('add', { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
  }));
  return server;
}

/**
 * An SDK McpServer over StreamableHTTPServerTransport at `/mcp`, following the SDK's examples:
 * stateful (session ids, one transport per session, 400 "No valid session ID provided" for a
 * non-initialize request without a known session) or stateless (a new server and transport per
 * request). Replies are SSE unless `json: true` (the transport's `enableJsonResponse`).
 */
export interface SdkTestServer extends TestServer {
  /** Open sessions (stateful only). */
  sessionCount(): number;
  /** Forgets every session, as a restarted server would (stateful only). */
  dropSessions(): Promise<void>;
}

export interface SdkServerOptions {
  stateful: boolean;
  bearer?: string;
  json?: boolean;
  /** The McpServer to serve (default: `echo` and `add`). */
  build?: () => McpServer;
  /** A DELETE (ending a session) is never answered. */
  hangOnDelete?: boolean;
}

export async function startSdkServer(options: SdkServerOptions): Promise<SdkTestServer> {
  const build = options.build ?? buildSdkServer;
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const enableJsonResponse = options.json ?? false;

  const handler: Handler = async (req, res, body) => {
    if (req.url !== '/mcp') return sendJson(res, 404, { error: 'not found' });
    if (options.bearer !== undefined && req.headers.authorization !== `Bearer ${options.bearer}`) {
      return sendJson(res, 401, rpcError(null, -32001, 'Unauthorized'), { 'www-authenticate': 'Bearer' });
    }
    if (req.method === 'DELETE' && options.hangOnDelete) return; // never answered
    if (!options.stateful) {
      if (req.method !== 'POST') return sendJson(res, 405, rpcError(null, -32000, 'Method not allowed.'));
      const server = build();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
      return;
    }
    const sessionHeader = req.headers['mcp-session-id'];
    const sessionId = typeof sessionHeader === 'string' ? sessionHeader : undefined;
    let transport = sessionId !== undefined ? transports.get(sessionId) : undefined;
    if (transport === undefined) {
      if (req.method === 'POST' && sessionId === undefined && isInitializeRequest(body)) {
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          enableJsonResponse,
          onsessioninitialized: (id) => {
            transports.set(id, created);
          },
        });
        created.onclose = () => {
          if (created.sessionId !== undefined) transports.delete(created.sessionId);
        };
        await build().connect(created);
        transport = created;
      } else {
        return sendJson(res, 400, rpcError(null, -32000, 'Bad Request: No valid session ID provided'));
      }
    }
    await transport.handleRequest(req, res, body);
  };

  const dropSessions = async () => {
    const open = [...transports.values()];
    transports.clear();
    await Promise.all(open.map((transport) => transport.close()));
  };
  const server = await listen(handler, dropSessions);
  return { ...server, sessionCount: () => transports.size, dropSessions };
}

/**
 * An SDK server with long-running tools that report progress on the call's SSE reply (to the
 * `progressToken` in `_meta`): `long` every second for `seconds` (then `done`), `stalls` twice in
 * the first second then silent for 10 s, `endless` every 300 ms until the call is abandoned (at most
 * 2 minutes); and `count`, a per-session counter (1, 2, 3... within one session).
 */
export function buildProgressServer(): McpServer {
  const server = buildSdkServer();
  let calls = 0;
  const progress = async (extra: ProgressExtra, every: number, times: number) => {
    const token = extra._meta?.progressToken;
    for (let i = 1; i <= times && !extra.signal.aborted; i++) {
      await sleep(every);
      if (token !== undefined) {
        await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i } }).catch(() => {});
      }
    }
  };
  server.registerTool(
    'long',
    { description: 'Reports progress every second', inputSchema: { seconds: z.number() } },
    async ({ seconds }, extra) => {
      await progress(extra, 1000, seconds);
      return { content: [{ type: 'text', text: `done after ${seconds} s` }] };
    },
  );
  server.registerTool('stalls', { description: 'Reports progress, then goes silent', inputSchema: {} }, async (_args, extra) => {
    await progress(extra, 400, 2);
    await sleep(10_000);
    return { content: [{ type: 'text', text: 'too late' }] };
  });
  server.registerTool('endless', { description: 'Reports progress forever', inputSchema: {} }, async (_args, extra) => {
    await progress(extra, 300, 400);
    return { content: [{ type: 'text', text: 'never' }] };
  });
  server.registerTool('count', { description: 'Counts the calls in this session', inputSchema: {} }, async () => {
    calls += 1;
    return { content: [{ type: 'text', text: String(calls) }] };
  });
  return server;
}

type ProgressExtra = {
  _meta?: { progressToken?: string | number };
  signal: AbortSignal;
  sendNotification: (n: {
    method: 'notifications/progress';
    params: { progressToken: string | number; progress: number };
  }) => Promise<void>;
};

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// Misbehaving servers

export type BadServerKind =
  | 'invalid_schema'
  | 'wrong_id'
  | 'html'
  | 'redirect'
  | 'slow'
  | 'huge'
  | 'huge_sse'
  | 'status_401'
  | 'status_424'
  | 'status_500';

export interface BadServer extends TestServer {
  /** For `redirect`: the server the redirect points at (it must never receive a request). */
  target?: TestServer;
}

const SLOW_MS = 3000;
const HUGE_BYTES = 2 * 1024 * 1024;

/**
 * A tool server (no credential) with one fault:
 * `invalid_schema` lists a tool whose inputSchema is `{"type":"strin"}`; `wrong_id` answers with
 * another id; `html` answers 200 text/html; `redirect` answers 302 to another server (`target`);
 * `slow` answers correctly after 3 s; `huge` sends a 2 MiB JSON reply (chunked, no length);
 * `huge_sse` streams 2 MiB of SSE notifications; `status_<n>` answers HTTP n.
 */
export async function startBadServer(kind: BadServerKind): Promise<BadServer> {
  const timers = new Set<NodeJS.Timeout>();
  const target = kind === 'redirect' ? await startPlainServer({ apiKey: 'unused' }) : undefined;
  const tools: PlainTool[] =
    kind === 'invalid_schema'
      ? [PLAIN_TOOLS[0]!, { name: 'broken', description: 'Has a typo in its schema', inputSchema: { type: 'strin' } }]
      : PLAIN_TOOLS;

  const handler: Handler = (_req, res, body) => {
    const request = (typeof body === 'object' && body !== null ? body : {}) as RpcRequest;
    switch (kind) {
      case 'invalid_schema':
        return sendJson(res, 200, plainRpc(request, tools, 10));
      case 'wrong_id': {
        const reply = plainRpc(request, tools, 10) as { id: unknown };
        return sendJson(res, 200, { ...reply, id: typeof request.id === 'number' ? request.id + 1000 : 999 });
      }
      case 'html': {
        const html = '<!doctype html><html><body><h1>Welcome</h1></body></html>';
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        return void res.end(html);
      }
      case 'redirect':
        res.writeHead(302, { location: target!.url });
        return void res.end();
      case 'slow': {
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!res.destroyed) sendJson(res, 200, plainRpc(request, tools, 10));
        }, SLOW_MS);
        timers.add(timer);
        return;
      }
      case 'huge': {
        res.writeHead(200, { 'content-type': 'application/json' });
        const filler = 'x'.repeat(64 * 1024);
        res.write(`{"jsonrpc":"2.0","id":${JSON.stringify(request.id ?? null)},"result":{"tools":[],"padding":"`);
        for (let sent = 0; sent < HUGE_BYTES; sent += filler.length) res.write(filler);
        return void res.end('"}}');
      }
      case 'huge_sse': {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const note = `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { data: 'y'.repeat(60 * 1024) } })}\n\n`;
        for (let sent = 0; sent < HUGE_BYTES; sent += note.length) res.write(note);
        return void res.end(`data: ${JSON.stringify(plainRpc(request, tools, 10))}\n\n`);
      }
      case 'status_401':
        return sendJson(res, 401, { error: 'Unauthorized' });
      case 'status_424':
        return sendJson(res, 424, { error: 'Failed Dependency' });
      case 'status_500':
        return sendJson(res, 500, { error: 'Internal Server Error' });
    }
  };

  const server = await listen(handler, async () => {
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
    await target?.close();
  });
  return target === undefined ? server : { ...server, target };
}
