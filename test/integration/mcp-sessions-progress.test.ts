/**
 * The tool path keeps MCP's meaning, through the gateway in workerd:
 * - one MCP session per connection, kept across calls (the registration's handshake is reused, no
 *   DELETE per call), re-initialised when the server drops it;
 * - every tools/call carries a progress token; each progress notification restarts the call's
 *   timeout (the connection's `timeoutMs`), up to MCP_CALL_CEILING_MS;
 * - removing a connection ends its session with a short DELETE of its own: a server that hangs on
 *   DELETE does not hold the request for another full timeout.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freshAgent, type TestAgent } from '../support/agent';
import { call, deployment, expectError, type JsonResponse } from '../support/http';
import { agentPath } from '../support/login';
import { buildProgressServer, startSdkServer, type SdkTestServer } from '../support/mcp-servers';
import { toolServerUrl, workerWithToolServers } from '../support/tool-routing';

const stack = inject('stack');
const testnet = deployment('testnet');
/** The tool-routing worker's MCP_TIMEOUT_MS. */
const TIMEOUT_MS = 1500;
const CEILING_MS = 4000;

let worker: Awaited<ReturnType<typeof workerWithToolServers>>;
let lowCeiling: Awaited<ReturnType<typeof workerWithToolServers>>;
let progress: SdkTestServer;
let hangs: SdkTestServer;

beforeAll(async () => {
  [progress, hangs] = await Promise.all([
    startSdkServer({ stateful: true, build: buildProgressServer }),
    startSdkServer({ stateful: true, hangOnDelete: true }),
  ]);
  const servers = { progress: progress.url, hangs: hangs.url };
  [worker, lowCeiling] = await Promise.all([
    workerWithToolServers(stack, servers),
    workerWithToolServers(stack, servers, { MCP_CALL_CEILING_MS: String(CEILING_MS) }),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([worker?.dispose(), lowCeiling?.dispose()]);
  await Promise.all([progress?.close(), hangs?.close()]);
});

type Worker = typeof worker;

function mcp<T = any>(on: Worker, who: TestAgent, rest: string, init: Parameters<typeof call>[2] = {}): Promise<JsonResponse<T>> {
  return call<T>(on.url, agentPath(who.collection, who.tokenId, rest), { token: who.token, ...init });
}

async function connect(on: Worker, host: string, server: SdkTestServer, extra: Record<string, unknown> = {}) {
  const who = await freshAgent(testnet);
  const res = await mcp(on, who, '/mcp/connection', {
    method: 'POST',
    json: { url: toolServerUrl(host, server.url), auth: { type: 'none' }, ...extra },
  });
  expect(res.status, res.text).toBe(200);
  return { who, id: res.body.id as string, body: res.body };
}

async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await run();
  return { value, ms: performance.now() - started };
}

const callTool = (on: Worker, who: TestAgent, id: string, name: string, args: Record<string, unknown> = {}) =>
  mcp(on, who, `/mcp/connection/${id}/tools/call`, { method: 'POST', json: { name, arguments: args } });

const methods = (server: SdkTestServer, from: number) =>
  server.requests.slice(from).map((r) => (r.method === 'POST' ? ((r.body as { method?: string })?.method ?? 'POST') : r.method));

describe('one session per connection', () => {
  it('reuses the session of registration across calls: one initialize, no DELETE, progress tokens on every call', async () => {
    const from = progress.requests.length;
    const { who, id } = await connect(worker, 'progress', progress);
    for (const expected of ['1', '2', '3']) {
      const res = await callTool(worker, who, id, 'count');
      expect(res.status, res.text).toBe(200);
      expect(res.body.content).toEqual([{ type: 'text', text: expected }]);
    }
    const seen = methods(progress, from);
    expect(seen.filter((m) => m === 'initialize')).toHaveLength(1);
    expect(seen).not.toContain('DELETE');
    const calls = progress.requests.slice(from).filter((r) => (r.body as { method?: string })?.method === 'tools/call');
    const sessions = new Set(calls.map((r) => r.headers['mcp-session-id']));
    expect(sessions.size).toBe(1);
    for (const r of calls) {
      expect((r.body as { params: { _meta?: { progressToken?: unknown } } }).params._meta?.progressToken).toEqual(expect.any(String));
    }
  });

  it('re-initialises when the server has dropped the session, and keeps the new one', async () => {
    const { who, id } = await connect(worker, 'progress', progress);
    expect((await callTool(worker, who, id, 'count')).body.content).toEqual([{ type: 'text', text: '1' }]);
    await progress.dropSessions();
    const from = progress.requests.length;
    const again = await callTool(worker, who, id, 'count');
    expect(again.status, again.text).toBe(200);
    expect(again.body.content).toEqual([{ type: 'text', text: '1' }]); // a new session counts afresh
    const next = await callTool(worker, who, id, 'count');
    expect(next.body.content).toEqual([{ type: 'text', text: '2' }]); // ...and is kept
    expect(methods(progress, from).filter((m) => m === 'initialize')).toHaveLength(1);
  });
});

describe('progress keeps a long call alive', () => {
  it('a tool reporting progress every second for 12 s answers 200 (timeout 1.5 s)', async () => {
    const { who, id } = await connect(worker, 'progress', progress);
    const { value: res, ms } = await timed(() => callTool(worker, who, id, 'long', { seconds: 12 }));
    expect(res.status, res.text).toBe(200);
    expect(res.body.content).toEqual([{ type: 'text', text: 'done after 12 s' }]);
    expect(ms).toBeGreaterThan(11_000);
  }, 30_000);

  it('a tool that stops reporting progress is 504 tool_server_timeout one timeout after its last progress', async () => {
    const { who, id } = await connect(worker, 'progress', progress);
    const { value: res, ms } = await timed(() => callTool(worker, who, id, 'stalls'));
    expectError(res, 504, 'tool_server_timeout');
    expect(ms).toBeGreaterThan(800 + TIMEOUT_MS - 200);
    expect(ms).toBeLessThan(800 + TIMEOUT_MS + 2000);
  }, 20_000);

  it('a tool reporting progress forever is 504 at the ceiling (MCP_CALL_CEILING_MS=4000)', async () => {
    const { who, id } = await connect(lowCeiling, 'progress', progress);
    const { value: res, ms } = await timed(() => callTool(lowCeiling, who, id, 'endless'));
    expectError(res, 504, 'tool_server_timeout');
    expect(res.body.error.message).toBe('The tool server did not answer in time');
    expect(ms).toBeGreaterThan(CEILING_MS - 200);
    expect(ms).toBeLessThan(CEILING_MS + 2500);
  }, 20_000);

  it('the per-call timeout is a connection setting: shown in the list, bounded at registration', async () => {
    const { who, id, body } = await connect(worker, 'progress', progress, { timeoutMs: 5000 });
    expect(body.timeoutMs).toBe(5000);
    const list = await mcp(worker, who, '/mcp/connections');
    expect(list.body.connections.find((c: { id: string }) => c.id === id)?.timeoutMs).toBe(5000);
    const changed = await mcp(worker, who, `/mcp/connection/${id}/auth`, {
      method: 'PUT',
      json: { auth: { type: 'none' }, timeoutMs: 20_000 },
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.timeoutMs).toBe(20_000);
    const other = await connect(worker, 'progress', progress);
    expect(other.body.timeoutMs).toBe(TIMEOUT_MS); // the deployment's MCP_TIMEOUT_MS
    for (const timeoutMs of [999, 60_001, 1.5, '5000']) {
      const res = await mcp(worker, who, '/mcp/connection', {
        method: 'POST',
        json: { url: toolServerUrl('progress', progress.url), auth: { type: 'none' }, timeoutMs },
      });
      expectError(res, 400, 'validation_failed');
    }
  });
});

describe('closing a session', () => {
  it('removing a connection sends one short DELETE: a server hanging on it does not hold the request another timeout', async () => {
    // The connection's own timeout is 5 s: a DELETE under it would hold the removal 5 s.
    const { who, id } = await connect(worker, 'hangs', hangs, { timeoutMs: 5000 });
    expect((await callTool(worker, who, id, 'echo', { text: 'hi' })).status).toBe(200);
    const from = hangs.requests.length;
    const { value: res, ms } = await timed(() => mcp(worker, who, `/mcp/connection/${id}`, { method: 'DELETE' }));
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ id, deleted: true });
    expect(hangs.requests.slice(from).map((r) => r.method)).toEqual(['DELETE']);
    expect(ms).toBeLessThan(2500);
    expectError(await mcp(worker, who, `/mcp/connection/${id}`, { method: 'DELETE' }), 404, 'mcp_connection_not_found');
  });
});
