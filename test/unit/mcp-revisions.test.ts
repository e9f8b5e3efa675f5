/**
 * How the tool client finds a server's MCP revision (src/tool-servers/revisions.ts), against scripted
 * fetch functions: the refusals that lead it to `server/discover` (HTTP 400, or
 * `UnsupportedProtocolVersionError` in a 200, or an `initialize` the server does not know), and the
 * answers that leave it where it was. Real servers: test/integration/mcp-revisions.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { createMcpClient, McpError } from '../../src/tool-servers/client';
import { headerValue, statelessHeaders } from '../../src/tool-servers/revisions';

type Body = { method?: string; id?: unknown; params?: Record<string, unknown> };
interface Seen {
  body: Body;
  headers: Record<string, string>;
}

function scripted(reply: (body: Body, headers: Record<string, string>) => Response) {
  const seen: Seen[] = [];
  const fetchFn = async (_: unknown, init?: RequestInit) => {
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const body = (typeof init?.body === 'string' ? JSON.parse(init.body) : {}) as Body;
    seen.push({ body, headers });
    return reply(body, headers);
  };
  return { seen, fetch: fetchFn as unknown as typeof fetch };
}

const json = (value: unknown, status = 200) =>
  new Response(JSON.stringify(value), { status, headers: { 'content-type': 'application/json' } });
const ok = (id: unknown, value: unknown) => json({ jsonrpc: '2.0', id, result: value });
const err = (id: unknown, code: number, message: string, status = 200) => json({ jsonrpc: '2.0', id, error: { code, message } }, status);
const TOOLS = { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] };
const DISCOVERED = { supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } };
const modern = (headers: Record<string, string>) => headers['mcp-protocol-version'] === '2026-07-28';
const methods = (seen: Seen[]) => seen.map((s) => s.body.method);
const client = (fetchFn: typeof globalThis.fetch, session?: { protocolVersion: string }) =>
  createMcpClient({ url: 'https://tools.example.com/mcp', auth: { type: 'none' }, fetch: fetchFn, ...(session ? { session } : {}) });

describe('finding the stateless revision', () => {
  it('UnsupportedProtocolVersionError in a 200 reply leads to server/discover, then the revision on every request', async () => {
    const server = scripted((b, h) => {
      if (!modern(h)) return err(b.id, -32022, 'Unsupported protocol version');
      return b.method === 'server/discover' ? ok(b.id, DISCOVERED) : ok(b.id, TOOLS);
    });
    const c = client(server.fetch);
    expect((await c.listTools()).map((t) => t.name)).toEqual(['echo']);
    expect(methods(server.seen)).toEqual(['tools/list', 'server/discover', 'tools/list']);
    expect(c.session()).toEqual({ protocolVersion: '2026-07-28' });
  });

  it('an initialize the server does not know (method not found) leads there too, and no initialized notification follows', async () => {
    const server = scripted((b, h) => {
      if (modern(h)) return b.method === 'server/discover' ? ok(b.id, DISCOVERED) : ok(b.id, TOOLS);
      if (b.method === 'initialize') return err(b.id, -32601, 'Method not found: initialize');
      return err(null, -32000, 'Bad Request: Server not initialized', 400);
    });
    await client(server.fetch).listTools();
    expect(methods(server.seen)).toEqual(['tools/list', 'initialize', 'server/discover', 'tools/list']);
  });

  it('a server that does not list 2026-07-28 leaves the original error standing, and is asked once', async () => {
    const server = scripted((b) =>
      b.method === 'server/discover' ? ok(b.id, { supportedVersions: ['2099-01-01'] }) : err(b.id, -32602, 'Invalid params', 400),
    );
    const c = client(server.fetch);
    for (let i = 0; i < 2; i++) {
      const failure = await c.callTool('echo', {}).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(McpError);
      expect((failure as McpError).rpcCode).toBe(-32602);
    }
    expect(methods(server.seen)).toEqual(['tools/call', 'server/discover', 'tools/call']);
    expect(c.session()).toBeUndefined();
  });

  it('a negotiated session is never second-guessed: its 400 is the answer', async () => {
    const server = scripted((b) => err(b.id, -32602, 'Invalid params', 400));
    const failure = await client(server.fetch, { protocolVersion: '2025-11-25' })
      .callTool('echo', {})
      .catch((e: unknown) => e);
    expect((failure as McpError).kind).toBe('rpc_error');
    expect(methods(server.seen)).toEqual(['tools/call']);
  });

  it('Mcp-Name on every tool call: as it is when a header can carry it, else Base64-wrapped', () => {
    expect(statelessHeaders('tools/call', { name: 'echo' })).toEqual({
      'MCP-Protocol-Version': '2026-07-28',
      'Mcp-Method': 'tools/call',
      'Mcp-Name': 'echo',
    });
    expect(statelessHeaders('tools/call', { name: 'é\n' })['Mcp-Name']).toBe('=?base64?w6kK?=');
    expect(statelessHeaders('tools/list', {})).not.toHaveProperty('Mcp-Name');
  });

  it('headerValue wraps non-ASCII, spaces at the ends, the empty string and the wrapping itself', () => {
    expect(headerValue('get_weather v2')).toBe('get_weather v2');
    expect(headerValue('häufig')).toBe('=?base64?aMOkdWZpZw==?=');
    expect(headerValue(' x')).toBe('=?base64?IHg=?=');
    expect(headerValue('')).toBe('=?base64??=');
    expect(headerValue('=?base64?eA==?=')).toBe('=?base64?PT9iYXNlNjQ/ZUE9PT89?=');
  });
});
