/**
 * The example tool server on the official MCP SDK (`@modelcontextprotocol/server` 2.x), stateless:
 * the same tools and credential as ./server.ts, served by the SDK's `createMcpHandler`, which
 * answers both eras of MCP: the stateless 2026-07-28 revision (no `initialize`, every request
 * names its revision) and the 2025 revisions (`initialize` answered, no session kept). Copy it as
 * the start of your own server.
 *
 *   TOOL_SERVER_API_KEY=change-me PORT=8790 npm run example:tool-server
 *   TOOL_KEY=change-me npx agent-gateway mcp check http://127.0.0.1:8790/mcp --header-env x-api-key=TOOL_KEY
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

// Never run without a credential: the gateway sends it as the `x-api-key` header.
const API_KEY = process.env.TOOL_SERVER_API_KEY ?? '';
if (API_KEY.trim() === '') {
  console.error('TOOL_SERVER_API_KEY is not set: refusing to start a tool server without a credential');
  process.exit(1);
}
const PORT = Number(process.env.PORT ?? 8790);
const MAX_BODY_BYTES = 64 * 1024; // requests are small: refuse bigger bodies with 413

// Both tools only read their arguments: read-only, idempotent, no outside world.
const PURE = { readOnlyHint: true, idempotentHint: true, openWorldHint: false };
const Text = z.object({ text: z.string().max(10000) });

/** A fresh server per request (the SDK's stateless serving): define the tools here. */
function buildServer(): McpServer {
  const server = new McpServer({ name: 'example-tool-server', version: '2.0.0' });
  server.registerTool(
    'echo',
    { description: 'Returns the given text unchanged.', inputSchema: Text, annotations: PURE },
    async ({ text }) => ({
      content: [{ type: 'text', text }],
    }),
  );
  server.registerTool(
    'word_count',
    {
      description: 'Counts the words (runs of non-space characters) in the given text.',
      inputSchema: Text,
      outputSchema: z.object({ words: z.number().int() }),
      annotations: PURE,
    },
    async ({ text }) => {
      const words = text.split(/\s+/).filter(Boolean).length;
      return { content: [{ type: 'text', text: String(words) }], structuredContent: { words } };
    },
  );
  return server;
}

const handler = createMcpHandler(buildServer, { maxRequestBodySize: MAX_BODY_BYTES });

/** Constant-time key comparison (hashing first makes the lengths equal). */
function keyMatches(given: string | string[] | undefined): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return typeof given === 'string' && timingSafeEqual(digest(given), digest(API_KEY));
}

/** The body, or undefined when it is larger than MAX_BODY_BYTES. */
async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function send(res: ServerResponse, status: number, error: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ error }));
}

/** node:http to the SDK's web-standard handler and back; a streamed (SSE) answer is passed on as it comes. */
async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  // One path, answered directly: the gateway never follows a redirect.
  if (req.url !== '/mcp') return send(res, 404, 'Not found');
  // 401 when the credential is wrong or missing.
  if (!keyMatches(req.headers['x-api-key'])) return send(res, 401, 'Unauthorized');
  const body = req.method === 'POST' ? await readBody(req) : undefined;
  if (req.method === 'POST' && body === undefined) return send(res, 413, 'Request body too large', { connection: 'close' });
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
  const response = await handler.fetch(
    new Request(`http://127.0.0.1:${PORT}/mcp`, { method: req.method ?? 'GET', headers, ...(body === undefined ? {} : { body }) }),
  );
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body === null) return void res.end();
  const reader = response.body.getReader();
  res.on('close', () => void reader.cancel().catch(() => undefined));
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) res.write(chunk.value);
  res.end();
}

const server = createServer((req, res) =>
  handle(req, res).catch((err: unknown) => {
    console.error(err); // a crash is a 500, without details for the caller
    if (!res.headersSent) send(res, 500, 'Internal error');
    else res.destroy();
  }),
);
server.listen(PORT, () => console.log(`example tool server (MCP SDK 2.x, stateless) listening on http://127.0.0.1:${PORT}/mcp`));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => server.close(() => process.exit(0)).closeAllConnections());
