/**
 * Tool servers on the MCP SDK's v2 (`@modelcontextprotocol/server` 2.4.0), on loopback over real
 * HTTP, served by the SDK's own stateless entry (`createMcpHandler`, one server instance per
 * request, no session ids):
 * - `both`: the SDK's default, 2026-07-28 to a request that names it in `_meta`, and the 2025
 *   revisions (`initialize` answered, no session) to one that does not;
 * - `modern`: 2026-07-28 only (`legacy: 'reject'`): no `initialize`, a request without the
 *   revision refused with HTTP 400 and -32022.
 * Tools: `echo`, `add`, `count` (a `notifications/progress` per step, `delayMs` apart), `weather`
 * (an `outputSchema` and `structuredContent`), `broken` (a result with `isError: true`) and
 * `häufig` (a name that is not ASCII: its `Mcp-Name` header is Base64-wrapped).
 */
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { listen, type TestServer } from './mcp-servers';

export type V2Era = 'both' | 'modern';

/** The tools every v2 test server has, in one factory (the SDK builds an instance per request). */
export function buildV2Server(): McpServer {
  const server = new McpServer({ name: 'v2-test-server', version: '2.4.0' });
  server.registerTool('echo', { description: 'Echoes the text back', inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  server.registerTool(
    'add',
    { description: 'Adds two numbers', inputSchema: z.object({ a: z.number(), b: z.number() }) },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  server.registerTool(
    'count',
    {
      description: 'Counts to steps, one progress notification per step',
      inputSchema: z.object({ steps: z.number().int().min(1).max(50), delayMs: z.number().int().min(0).max(5000) }),
    },
    async ({ steps, delayMs }, ctx) => {
      const progressToken = ctx.mcpReq._meta?.progressToken;
      for (let step = 1; step <= steps; step++) {
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        if (progressToken !== undefined) {
          await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress: step, total: steps } });
        }
      }
      return { content: [{ type: 'text', text: `counted to ${steps}` }] };
    },
  );
  server.registerTool(
    'weather',
    {
      title: 'Weather',
      description: 'The weather in a city, as structured content',
      inputSchema: z.object({ city: z.string() }),
      outputSchema: z.object({ city: z.string(), celsius: z.number() }),
    },
    async ({ city }) => {
      const structuredContent = { city, celsius: 21.5 };
      return { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent };
    },
  );
  server.registerTool('broken', { description: 'Always fails', inputSchema: z.object({}) }, async () => ({
    content: [{ type: 'text', text: 'the backend is down' }],
    isError: true,
  }));
  // The SDK warns (on the console, per instance) of a name outside its recommended characters.
  const warn = console.warn;
  console.warn = () => undefined;
  try {
    server.registerTool('häufig', { description: 'A name that is not ASCII', inputSchema: z.object({}) }, async () => ({
      content: [{ type: 'text', text: 'oft' }],
    }));
  } finally {
    console.warn = warn;
  }
  return server;
}

/**
 * Starts a v2 server of `era` on 127.0.0.1 (`/mcp`), bridging node:http to the SDK's web-standard
 * handler; streamed (SSE) answers are written as they come, so progress reaches the client live.
 */
export async function startV2Server(era: V2Era): Promise<TestServer> {
  const handler = createMcpHandler(() => buildV2Server(), { legacy: era === 'modern' ? 'reject' : 'stateless' });
  return listen(
    async (req, res, body) => {
      if (req.url !== '/mcp') {
        res.writeHead(404).end();
        return;
      }
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string') headers.set(name, value);
      }
      const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
      const request = new Request(`http://127.0.0.1${req.url}`, {
        method: req.method ?? 'GET',
        headers,
        ...(text === undefined || req.method === 'GET' || req.method === 'HEAD' ? {} : { body: text }),
      });
      const response = await handler.fetch(request);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body === null) {
        res.end();
        return;
      }
      const reader = response.body.getReader();
      res.on('close', () => void reader.cancel().catch(() => undefined));
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        res.write(value);
      }
      res.end();
    },
    () => handler.close(),
  );
}
