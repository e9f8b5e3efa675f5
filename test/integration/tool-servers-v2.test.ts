/**
 * Our tool client against the MCP SDK's v2 server (`@modelcontextprotocol/server` 2.4.0, stateless
 * `createMcpHandler`), through the gateway's public API in workerd, in both eras the SDK serves:
 * - `both` (its default): registration opens with `initialize`, 2025-11-25 is taken (no session
 *   id: the SDK's stateless serving), and every later request names it;
 * - `modern` (2026-07-28 only): `initialize` is refused, one `server/discover`, then every request
 *   carries the revision in `_meta` and in `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`
 *   (Base64-wrapped for a name that is not ASCII).
 * Each: tools listed with their shape, calls with content, structuredContent checked against the
 * outputSchema, a tool error (`isError`), progress restarting a 1 s timeout, removal.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freshAgent, type TestAgent } from '../support/agent';
import { call, deployment, expectError } from '../support/http';
import { agentPath } from '../support/login';
import type { TestServer } from '../support/mcp-servers';
import { closePg, sql } from '../support/pg';
import { toolServerUrl, workerWithToolServers } from '../support/tool-routing';
import { startV2Server, type V2Era } from '../support/v2-servers';

const stack = inject('stack');
const testnet = deployment('testnet');
let worker: Awaited<ReturnType<typeof workerWithToolServers>>;
const servers = {} as Record<V2Era, TestServer>;

beforeAll(async () => {
  [servers.both, servers.modern] = await Promise.all([startV2Server('both'), startV2Server('modern')]);
  worker = await workerWithToolServers(stack, { both: servers.both.url, modern: servers.modern.url });
}, 60_000);

afterAll(async () => {
  await worker?.dispose();
  await Promise.all([servers.both?.close(), servers.modern?.close()]);
  await closePg();
});

const mcp = (who: TestAgent, rest: string, init: Parameters<typeof call>[2] = {}) =>
  call(worker.url, agentPath(who.collection, who.tokenId, rest), { token: who.token, ...init });
const callTool = (who: TestAgent, id: string, name: string, args: Record<string, unknown> = {}) =>
  mcp(who, `/mcp/connection/${id}/tools/call`, { method: 'POST', json: { name, arguments: args } });
const methodsOf = (server: TestServer, from: number) =>
  server.requests.slice(from).map((r) => (r.method === 'POST' ? ((r.body as { method?: string })?.method ?? 'POST') : r.method));

const expected: Record<V2Era, { revision: string; opening: string[] }> = {
  both: { revision: '2025-11-25', opening: ['initialize', 'notifications/initialized', 'tools/list'] },
  modern: { revision: '2026-07-28', opening: ['initialize', 'server/discover', 'tools/list'] },
};

describe.each(['both', 'modern'] as const)('the SDK v2 server, %s', (era) => {
  const server = () => servers[era];
  let who: TestAgent;
  let id: string;

  it(`registers at ${expected[era].revision}, no session id kept, the tools with their whole shape`, async () => {
    who = await freshAgent(testnet);
    const from = server().requests.length;
    const added = await mcp(who, '/mcp/connection', {
      method: 'POST',
      json: { url: toolServerUrl(era, server().url), auth: { type: 'none' }, timeoutMs: 1000 },
    });
    expect(added.status, added.text).toBe(200);
    id = added.body.id as string;
    expect(methodsOf(server(), from)).toEqual(expected[era].opening);
    const rows = await sql(stack.databaseUrl, 'select session_id, protocol_version from "gateway"."mcp_connections" where id = $1', [id]);
    expect(rows[0]).toEqual({ session_id: null, protocol_version: expected[era].revision });

    const tools = await mcp(who, `/mcp/connection/${id}/tools`);
    expect(tools.status, tools.text).toBe(200);
    const listed = tools.body.tools as Array<Record<string, unknown>>;
    expect(listed.map((t) => t.name)).toEqual(['echo', 'add', 'count', 'weather', 'broken', 'häufig']);
    const weather = listed.find((t) => t.name === 'weather');
    expect(weather).toMatchObject({ title: 'Weather', outputSchema: { type: 'object', required: ['city', 'celsius'] } });
  });

  it('calls tools in the negotiated revision: content, structuredContent, a tool error, a name that is not ASCII', async () => {
    const from = server().requests.length;
    const echo = await callTool(who, id, 'echo', { text: 'hi' });
    expect(echo.status, echo.text).toBe(200);
    expect(echo.body.content).toEqual([{ type: 'text', text: 'hi' }]);

    const weather = await callTool(who, id, 'weather', { city: 'Bonn' });
    expect(weather.status, weather.text).toBe(200);
    expect(weather.body.structuredContent).toEqual({ city: 'Bonn', celsius: 21.5 });

    const broken = await callTool(who, id, 'broken');
    expect(broken.status, broken.text).toBe(200);
    expect(broken.body).toMatchObject({ isError: true, content: [{ type: 'text', text: 'the backend is down' }] });

    const umlaut = await callTool(who, id, 'häufig');
    expect(umlaut.status, umlaut.text).toBe(200);
    expect(umlaut.body.content).toEqual([{ type: 'text', text: 'oft' }]);

    const calls = server().requests.slice(from);
    expect(calls.map((r) => (r.body as { method?: string }).method)).toEqual(['tools/call', 'tools/call', 'tools/call', 'tools/call']);
    for (const r of calls) expect(r.headers['mcp-protocol-version']).toBe(expected[era].revision);
    if (era === 'modern') {
      expect(calls.map((r) => r.headers['mcp-name'])).toEqual(['echo', 'weather', 'broken', '=?base64?aMOkdWZpZw==?=']);
      for (const r of calls) {
        expect(r.headers['mcp-method']).toBe('tools/call');
        expect((r.body as { params: { _meta: Record<string, unknown> } }).params._meta).toMatchObject({
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'agent-gateway' },
          'io.modelcontextprotocol/clientCapabilities': {},
        });
      }
    }
  });

  it('progress restarts the 1 s timeout: 4 steps 600 ms apart answer 200', async () => {
    const started = performance.now();
    const res = await callTool(who, id, 'count', { steps: 4, delayMs: 600 });
    expect(res.status, res.text).toBe(200);
    expect(res.body.content).toEqual([{ type: 'text', text: 'counted to 4' }]);
    expect(performance.now() - started).toBeGreaterThan(2000);
  });

  it('without progress, a step longer than the timeout is 504 tool_server_timeout', async () => {
    expectError(await callTool(who, id, 'count', { steps: 1, delayMs: 1600 }), 504, 'tool_server_timeout');
  });

  it('a name the connection does not list is 404 tool_not_found, and nothing goes upstream', async () => {
    const from = server().requests.length;
    expectError(await callTool(who, id, 'nope'), 404, 'tool_not_found');
    expect(server().requests.length).toBe(from);
  });

  it('removal sends no DELETE (there is no session to end)', async () => {
    const from = server().requests.length;
    const removed = await mcp(who, `/mcp/connection/${id}`, { method: 'DELETE' });
    expect(removed.body).toEqual({ id, deleted: true });
    expect(methodsOf(server(), from)).toEqual([]);
  });
});
