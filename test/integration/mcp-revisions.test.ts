/**
 * Our tool client at the current MCP revisions, against real servers on loopback over
 * HTTP: it offers 2025-11-25 to the MCP SDK's server (1.32.2) and goes on at what the server
 * negotiates (2025-11-25, or 2025-06-18 from a server that speaks only that), refuses a revision
 * it does not speak, and reaches a server of the stateless revision 2026-07-28 without a
 * handshake: no `initialize` is ever sent to it.
 */
import { InitializeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createMcpClient, McpError } from '../../src/tool-servers/client';
import { freshAgent } from '../support/agent';
import { call, deployment } from '../support/http';
import { agentPath } from '../support/login';
import { closePg, sql } from '../support/pg';
import { toolServerUrl, workerWithToolServers } from '../support/tool-routing';
import { buildSdkServer, startSdkServer, type SdkTestServer, type TestServer } from '../support/mcp-servers';
import { STATELESS, startStatelessServer } from '../support/stateless-server';

const auth = { type: 'none' } as const;
const methodsOf = (server: TestServer) => server.requests.map((r) => (r.body as { method?: string } | undefined)?.method);

/** The SDK's server, answering `initialize` with `version` whatever the client offered. */
const answering = (version: string) => () => {
  const mcp = buildSdkServer();
  mcp.server.setRequestHandler(InitializeRequestSchema, async () => ({
    protocolVersion: version,
    capabilities: { tools: { listChanged: true } },
    serverInfo: { name: `sdk-at-${version}`, version: '1.0.0' },
  }));
  return mcp;
};

describe('a server of the stateless revision 2026-07-28', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startStatelessServer();
  });
  afterAll(() => server.close());

  it('is reached without a handshake: refused once, server/discover, then every request carries the revision', async () => {
    server.requests.length = 0;
    const client = createMcpClient({ url: server.url, auth });
    expect((await client.listTools()).map((t) => t.name)).toEqual(['echo', 'add']);
    expect(await client.callTool('add', { a: 2, b: 3 })).toEqual({ content: [{ type: 'text', text: '5' }] });
    expect(await client.callTool('echo', { text: 'hi' })).toEqual({ content: [{ type: 'text', text: 'hi' }] });
    expect(methodsOf(server)).toEqual(['tools/list', 'server/discover', 'tools/list', 'tools/list', 'tools/call', 'tools/call']);
    expect(methodsOf(server)).not.toContain('initialize');
    for (const r of server.requests.slice(1)) {
      const body = r.body as { method: string; params: { name?: string; _meta: Record<string, unknown> } };
      expect(r.headers['mcp-protocol-version']).toBe(STATELESS);
      expect(r.headers['mcp-method']).toBe(body.method);
      expect(r.headers['mcp-session-id']).toBeUndefined();
      expect(body.params._meta).toMatchObject({
        'io.modelcontextprotocol/protocolVersion': STATELESS,
        'io.modelcontextprotocol/clientInfo': { name: 'agent-gateway' },
        'io.modelcontextprotocol/clientCapabilities': {},
      });
      if (body.method === 'tools/call') {
        expect(r.headers['mcp-name']).toBe(body.params.name);
        expect(typeof body.params._meta.progressToken).toBe('string'); // kept beside the revision's keys
      }
    }
    expect(client.session()).toEqual({ protocolVersion: STATELESS });
    await client.close();
    expect(methodsOf(server)).toHaveLength(6); // no DELETE: there is no session to end
  });

  it('a client given the kept revision (a later request) asks nothing first', async () => {
    server.requests.length = 0;
    const client = createMcpClient({ url: server.url, auth, session: { protocolVersion: STATELESS } });
    expect(await client.callTool('echo', { text: 'again' })).toEqual({ content: [{ type: 'text', text: 'again' }] });
    expect(methodsOf(server)).toEqual(['tools/call']);
  });

  it('parallel first calls ask server/discover once', async () => {
    server.requests.length = 0;
    const client = createMcpClient({ url: server.url, auth });
    await Promise.all([client.callTool('echo', { text: 'a' }), client.callTool('echo', { text: 'b' }), client.listTools()]);
    expect(methodsOf(server).filter((m) => m === 'server/discover')).toHaveLength(1);
  });
});

describe("the MCP SDK's server (1.32.2), stateful", () => {
  const servers: SdkTestServer[] = [];
  afterAll(() => Promise.all(servers.map((s) => s.close())));
  const start = async (build?: () => ReturnType<typeof buildSdkServer>) => {
    const server = await startSdkServer({ stateful: true, json: true, ...(build ? { build } : {}) });
    servers.push(server);
    return server;
  };

  it('at 2025-11-25: the offer is taken, and sent on every later request', async () => {
    const server = await start();
    const client = createMcpClient({ url: server.url, auth });
    expect(await client.callTool('echo', { text: 'hi' })).toEqual({ content: [{ type: 'text', text: 'hi' }] });
    expect(methodsOf(server)).toEqual(['tools/call', 'initialize', 'notifications/initialized', 'tools/call']);
    expect(server.requests[1]!.body).toMatchObject({ params: { protocolVersion: '2025-11-25' } });
    for (const r of server.requests.slice(2)) expect(r.headers['mcp-protocol-version']).toBe('2025-11-25');
    expect(client.session()?.protocolVersion).toBe('2025-11-25');
    await client.close();
  });

  it('at 2025-06-18 only: negotiated down, and that revision sent from then on', async () => {
    const server = await start(answering('2025-06-18'));
    const client = createMcpClient({ url: server.url, auth });
    expect((await client.listTools()).map((t) => t.name)).toEqual(['echo', 'add']);
    expect(await client.callTool('add', { a: 1, b: 2 })).toEqual({ content: [{ type: 'text', text: '3' }] });
    expect(server.requests[1]!.body).toMatchObject({ method: 'initialize', params: { protocolVersion: '2025-11-25' } });
    for (const r of server.requests.slice(2)) expect(r.headers['mcp-protocol-version']).toBe('2025-06-18');
    expect(client.session()?.protocolVersion).toBe('2025-06-18');
    await client.close();
  });

  it('at a revision the client does not speak (2024-11-05): bad_response naming it, and nothing called', async () => {
    const server = await start(answering('2024-11-05'));
    const client = createMcpClient({ url: server.url, auth });
    const failure = await client.callTool('echo', { text: 'hi' }).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(McpError);
    expect((failure as McpError).kind).toBe('bad_response');
    expect((failure as McpError).message).toMatch(/revision 2024-11-05; this client speaks 2025-11-25, 2025-06-18 and 2025-03-26/);
    expect(methodsOf(server)).toEqual(['tools/call', 'initialize']);
    // A legacy server never gets server/discover: it asked for a session, not a revision.
    expect(methodsOf(server)).not.toContain('server/discover');
  });
});

describe('through the gateway (workerd): a connection to a 2026-07-28 server', () => {
  const stack = inject('stack');
  let server: TestServer;
  let worker: Awaited<ReturnType<typeof workerWithToolServers>>;
  beforeAll(async () => {
    server = await startStatelessServer();
    worker = await workerWithToolServers(stack, { modern: server.url });
  });
  afterAll(async () => {
    await worker?.dispose();
    await server?.close();
    await closePg();
  });

  it('registers, keeps the revision with the connection, and later calls ask nothing first', async () => {
    const agent = await freshAgent(deployment('testnet'));
    const at = (rest: string, init: Parameters<typeof call>[2] = {}) =>
      call(worker.url, agentPath(agent.collection, agent.tokenId, rest), { token: agent.token, ...init });
    const added = await at('/mcp/connection', {
      method: 'POST',
      json: { url: toolServerUrl('modern', server.url), auth: { type: 'none' } },
    });
    expect(added.status, added.text).toBe(200);
    const id = added.body.id as string;
    const rows = await sql(stack.databaseUrl, 'select session_id, protocol_version from "gateway"."mcp_connections" where id = $1', [id]);
    expect(rows[0]).toEqual({ session_id: null, protocol_version: STATELESS });

    server.requests.length = 0;
    for (const text of ['one', 'two']) {
      const res = await at(`/mcp/connection/${id}/tools/call`, { method: 'POST', json: { name: 'echo', arguments: { text } } });
      expect(res.status, res.text).toBe(200);
      expect(res.body.content).toEqual([{ type: 'text', text }]);
    }
    expect(methodsOf(server)).toEqual(['tools/call', 'tools/call']);
    for (const r of server.requests) expect(r.headers['mcp-protocol-version']).toBe(STATELESS);
  });
});
