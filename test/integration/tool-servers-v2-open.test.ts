/**
 * Registration's client (`handshakeFirst`) opens with `initialize`, as MCP asks of a client, and
 * still reaches a plain JSON-RPC server that refuses it: with a JSON-RPC error (no
 * `server/discover` then), with HTTP 404/405, or with a result naming no revision (`any`: a
 * server answering every method alike). Anything else stays a failure (a credential
 * refused, a server error). Directly, against loopback servers over real HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpClient, McpError } from '../../src/tool-servers/client';
import { listen, PLAIN_TOOLS, plainRpc, type RpcRequest, rpcResult, sendJson, type TestServer } from '../support/mcp-servers';

type Refusal = 'rpc' | 'any' | '404' | '405' | '500';

/** A plain server that answers `initialize` with `refusal` and everything else as the spec's contract says. */
function startRefusing(refusal: Refusal): Promise<TestServer> {
  return listen((_req, res, body) => {
    const request = body as RpcRequest;
    if (request.method === 'initialize' && refusal === 'any') return sendJson(res, 200, rpcResult(request.id, {}));
    if (request.method === 'initialize' && refusal !== 'rpc') return sendJson(res, Number(refusal), { error: 'no such method here' });
    sendJson(res, 200, plainRpc(request, PLAIN_TOOLS, 10));
  });
}

const servers = {} as Record<Refusal, TestServer>;
beforeAll(async () => {
  for (const refusal of ['rpc', 'any', '404', '405', '500'] as const) servers[refusal] = await startRefusing(refusal);
});
afterAll(async () => {
  await Promise.all(Object.values(servers).map((s) => s.close()));
});

const methodsOf = (server: TestServer) => server.requests.map((r) => (r.body as { method?: string } | undefined)?.method);
const open = (refusal: Refusal) =>
  createMcpClient({ url: servers[refusal].url, auth: { type: 'none' }, timeoutMs: 3000, handshakeFirst: true });

describe('registration opens with initialize', () => {
  it.each(['rpc', 'any', '404', '405'] as const)('a plain server refusing it (%s) is reached without a handshake', async (refusal) => {
    const client = open(refusal);
    expect((await client.listTools()).map((t) => t.name)).toEqual(['echo', 'add']);
    expect(client.session()).toBeUndefined();
    expect((await client.callTool('echo', { text: 'hi' })).content).toEqual([{ type: 'text', text: 'hi' }]);
    expect(methodsOf(servers[refusal])).toEqual(['initialize', 'tools/list', 'tools/call']);
    for (const r of servers[refusal].requests) expect(r.headers['mcp-method']).toBeUndefined();
  });

  it('a server failing it (HTTP 500) is a failure, and nothing else is asked', async () => {
    const failure = await open('500')
      .listTools()
      .catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(McpError);
    expect((failure as McpError).kind).toBe('upstream_error');
    expect(methodsOf(servers['500'])).toEqual(['initialize']);
  });
});
