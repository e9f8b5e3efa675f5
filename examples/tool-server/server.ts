/**
 * A minimal tool server for agent-gateway (the spec's "Contract of an external tool server"),
 * node:http only. Copy it as a template: replace TOOLS, keep what the CONTRACT comments require.
 *
 *   TOOL_SERVER_API_KEY=change-me PORT=8790 node --import tsx examples/tool-server/server.ts
 *   npx agent-gateway mcp check http://127.0.0.1:8790/mcp --header x-api-key:change-me
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

// CONTRACT: the server may require a credential header (here `x-api-key`). Never run without one.
const API_KEY = process.env.TOOL_SERVER_API_KEY ?? '';
if (API_KEY.trim() === '') {
  console.error('TOOL_SERVER_API_KEY is not set: refusing to start a tool server without a credential');
  process.exit(1);
}
const PORT = Number(process.env.PORT ?? 8790);
const MAX_BODY_BYTES = 64 * 1024; // JSON-RPC requests are small: refuse bigger bodies with 413

type Args = Record<string, unknown>;
type Result = { content: { type: 'text'; text: string }[] }; // CONTRACT: tools/call result
class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
} // prettier-ignore
const text = (value: string): Result => ({ content: [{ type: 'text', text: value }] });
/** Check arguments before running a tool; invalid ones are JSON-RPC error -32602. */
function needText(args: Args): string {
  if (typeof args.text !== 'string') throw new RpcError(-32602, 'Invalid params: arguments.text must be a string');
  return args.text;
}
// CONTRACT: every tool has a name, a description and an inputSchema that is valid JSON Schema
// describing an object. Otherwise registration fails with "Invalid tool schema".
// Optional: `annotations` are MCP's hints about a tool (the dashboard shows them beside each tool).
// Both tools here only read their arguments: read-only, idempotent, no outside world.
const PURE = { readOnlyHint: true, idempotentHint: true, openWorldHint: false };

const TOOLS: { name: string; description: string; inputSchema: Args; annotations: Args; run(args: Args): Result }[] = [
  {
    name: 'echo',
    description: 'Returns the given text unchanged.',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string', maxLength: 10000 } },
      required: ['text'],
      additionalProperties: false,
    },
    annotations: PURE,
    run: (args) => text(needText(args)),
  },
  {
    name: 'word_count',
    description: 'Counts the words (runs of non-space characters) in the given text.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
    annotations: PURE,
    run: (args) => text(String(needText(args).split(/\s+/).filter(Boolean).length)),
  },
];

/** One JSON-RPC method; throws RpcError for a JSON-RPC error reply. */
function dispatch(method: string, params: Args): unknown {
  if (method === 'tools/list') {
    // CONTRACT: { tools: [...] }. A long list may be paged with `nextCursor` (then read params.cursor).
    return { tools: TOOLS.map(({ name, description, inputSchema, annotations }) => ({ name, description, inputSchema, annotations })) };
  }
  if (method === 'tools/call') {
    const tool = TOOLS.find((t) => t.name === params.name);
    if (!tool) throw new RpcError(-32602, `Unknown tool: ${String(params.name)}`);
    const args = params.arguments ?? {};
    if (typeof args !== 'object' || args === null || Array.isArray(args))
      throw new RpcError(-32602, 'Invalid params: arguments must be an object');
    return tool.run(args as Args);
  }
  // Optional, not in the contract: lets standard MCP clients (they send `initialize` first) connect too.
  if (method === 'initialize')
    return { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'example-tool-server', version: '1.0.0' } };
  throw new RpcError(-32601, `Method not found: ${method}`);
}

function send(res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}): void {
  const json = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(json)), ...headers });
  res.end(json);
}
const rpcError = (id: unknown, code: number, message: string) => ({ jsonrpc: '2.0', error: { code, message }, id });

/** Constant-time key comparison (hashing first makes the lengths equal). */
function keyMatches(given: string | string[] | undefined): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return typeof given === 'string' && timingSafeEqual(digest(given), digest(API_KEY));
}
/** The body as text, or undefined when it is larger than MAX_BODY_BYTES. */
async function readBody(req: IncomingMessage): Promise<string | undefined> {
  if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  // CONTRACT: JSON-RPC 2.0 over POST on one path. Answer there directly: redirects are not followed.
  if (req.url !== '/mcp') return send(res, 404, { error: 'Not found' });
  if (req.method !== 'POST') return send(res, 405, { error: 'Method not allowed' }, { allow: 'POST' });
  // CONTRACT: 401 when the credential is wrong (or missing).
  if (!keyMatches(req.headers['x-api-key'])) return send(res, 401, { error: 'Unauthorized' });
  const raw = await readBody(req);
  if (raw === undefined) return send(res, 413, { error: 'Request body too large' }, { connection: 'close' });
  let request: { jsonrpc?: unknown; method?: unknown; params?: unknown; id?: unknown } | null;
  try {
    request = JSON.parse(raw);
  } catch {
    return send(res, 200, rpcError(null, -32700, 'Parse error'));
  }
  const id = request?.id ?? null;
  if (request?.jsonrpc !== '2.0' || typeof request.method !== 'string') return send(res, 200, rpcError(id, -32600, 'Invalid Request'));
  if (request.id === undefined) return send(res, 202); // a notification gets no reply
  const params = (typeof request.params === 'object' && request.params !== null ? request.params : {}) as Args;
  try {
    // CONTRACT: { jsonrpc: '2.0', result, id } with the request's id, or the same with `error` ...
    send(res, 200, { jsonrpc: '2.0', result: dispatch(request.method, params), id });
  } catch (err) {
    if (err instanceof RpcError) return send(res, 200, rpcError(id, err.code, err.message));
    console.error(err); // ... and a crash is a 500, without details for the caller.
    send(res, 500, rpcError(id, -32603, 'Internal error'));
  }
}

const server = createServer((req, res) => void handle(req, res).catch(() => res.destroy()));
server.listen(PORT, () => console.log(`example tool server listening on http://127.0.0.1:${PORT}/mcp`));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => server.close(() => process.exit(0)).closeAllConnections());
