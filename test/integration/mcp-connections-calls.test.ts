/**
 * MCP connections over HTTP, tool calls: arguments are checked against the registered schema
 * before any upstream call; unknown tools are 404; a tool server that fails after registration
 * (stopped, credential rejected, 424, 5xx, slow) maps to 424/502/504 and never to 401;
 * a tool reporting `isError: true` is still a 200.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freshAgent, type TestAgent } from '../support/agent';
import { call, deployment, type JsonResponse, expectError } from '../support/http';
import { agentPath } from '../support/login';
import { startPlainServer, startSdkServer, type RecordedRequest, type TestServer } from '../support/mcp-servers';
import { captureConsole, credentialProblems, type ConsoleCapture } from '../support/secrets';
import { toolServerUrl, workerWithToolServers } from '../support/tool-routing';

const stack = inject('stack');
const testnet = deployment('testnet');
const API_KEY = `plain-key-${crypto.randomUUID()}`;
const SDK_BEARER = `sdk-bearer-${crypto.randomUUID()}`;
const SWITCH_BEARER = `switch-bearer-${crypto.randomUUID()}`;

type Mode = 'good' | '401' | '403' | '424' | '500' | 'slow' | 'leak';

interface SwitchServer extends TestServer {
  mode: Mode;
}

/**
 * A plain JSON-RPC tool server (bearer `SWITCH_BEARER`) whose behaviour the test switches after
 * registration: `good`, answer 401 / 403 / 424 / 500 to everything, answer correctly after 3 s, or
 * `leak`: a JSON-RPC error whose message quotes the credential it received.
 * Tools: `echo`, and `flaky`, which reports `isError: true`.
 */
async function startSwitchServer(): Promise<SwitchServer> {
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const tools = [
    {
      name: 'echo',
      description: 'Echoes the text back',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    },
    { name: 'flaky', description: 'Always reports a tool error', inputSchema: { type: 'object', properties: {} } },
  ];
  const answer = (body: { id?: unknown; method?: unknown; params?: { name?: unknown; arguments?: { text?: unknown } } }) => {
    if (body.method === 'tools/list') return { jsonrpc: '2.0', id: body.id, result: { tools } };
    if (body.method === 'tools/call' && body.params?.name === 'echo') {
      return { jsonrpc: '2.0', id: body.id, result: { content: [{ type: 'text', text: String(body.params.arguments?.text) }] } };
    }
    if (body.method === 'tools/call' && body.params?.name === 'flaky') {
      return { jsonrpc: '2.0', id: body.id, result: { content: [{ type: 'text', text: 'the backend said no' }], isError: true } };
    }
    return { jsonrpc: '2.0', id: body.id ?? null, error: { code: -32601, message: 'Method not found' } };
  };
  const state: { mode: Mode } = { mode: 'good' };
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body = text ? (JSON.parse(text) as Parameters<typeof answer>[0]) : {};
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      const send = (status: number, value: unknown) => {
        if (res.destroyed) return;
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (state.mode === '401') return send(401, { error: 'Unauthorized' });
      if (state.mode === '403') return send(403, { error: 'Forbidden' });
      if (state.mode === '424') return send(424, { error: 'Failed Dependency' });
      if (state.mode === '500') return send(500, { error: 'Internal Server Error' });
      if (req.headers.authorization !== `Bearer ${SWITCH_BEARER}`) return send(401, { error: 'Unauthorized' });
      if (state.mode === 'leak') {
        return send(200, {
          jsonrpc: '2.0',
          id: body.id ?? null,
          error: { code: -32000, message: `bad token: ${req.headers.authorization}` },
        });
      }
      if (state.mode === 'slow') {
        const timer = setTimeout(() => {
          timers.delete(timer);
          send(200, answer(body));
        }, 3_000);
        timers.add(timer);
        return;
      }
      send(200, answer(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    requests,
    get mode() {
      return state.mode;
    },
    set mode(mode: Mode) {
      state.mode = mode;
    },
    close() {
      closed ??= new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}

let worker: Awaited<ReturnType<typeof workerWithToolServers>>;
let plain: TestServer;
let doomed: TestServer;
let switchable: SwitchServer;
const tokens: string[] = [];
let log: ConsoleCapture;

beforeAll(async () => {
  log = captureConsole();
  [plain, doomed, switchable] = await Promise.all([
    startPlainServer({ apiKey: API_KEY }),
    startSdkServer({ stateful: true, bearer: SDK_BEARER }),
    startSwitchServer(),
  ]);
  worker = await workerWithToolServers(stack, { plain: plain.url, doomed: doomed.url, switch: switchable.url });
});

afterAll(async () => {
  log?.restore();
  await worker?.dispose();
  await Promise.all([plain, doomed, switchable].map((s) => s?.close()));
});

async function agent(): Promise<TestAgent> {
  const fresh = await freshAgent(testnet);
  tokens.push(fresh.token);
  return fresh;
}

function mcp<T = any>(who: TestAgent, rest: string, init: Parameters<typeof call>[2] = {}): Promise<JsonResponse<T>> {
  return call<T>(worker.url, agentPath(who.collection, who.tokenId, rest), { token: who.token, ...init });
}

async function connect(who: TestAgent, host: string, server: TestServer, auth: Record<string, string>): Promise<string> {
  const res = await mcp(who, '/mcp/connection', { method: 'POST', json: { url: toolServerUrl(host, server.url), auth } });
  expect(res.status, res.text).toBe(200);
  return res.body.id as string;
}

const callTool = (who: TestAgent, id: string, name: string, args: unknown) =>
  mcp(who, `/mcp/connection/${id}/tools/call`, { method: 'POST', json: { name, arguments: args } });

const toolCalls = (server: TestServer) =>
  server.requests.filter((r) => (r.body as { method?: unknown } | undefined)?.method === 'tools/call').length;

describe('checking arguments before the call', () => {
  it.each([
    ['echo with a number for text', 'echo', { text: 5 }],
    ['echo without its required text', 'echo', {}],
    ['add with b missing', 'add', { a: 1 }],
    ['add with a string', 'add', { a: '1', b: 2 }],
  ])('refuses %s with 400 invalid_tool_arguments; the server receives no tools/call', async (_, name, args) => {
    const who = await agent();
    const id = await connect(who, 'plain', plain, { type: 'header', headerName: 'x-api-key', value: API_KEY });
    const before = toolCalls(plain);
    const res = await callTool(who, id, name, args);
    expectError(res, 400, 'invalid_tool_arguments');
    expect(res.body.error.details?.problems?.length).toBeGreaterThan(0);
    expect(toolCalls(plain)).toBe(before);
  });

  it('answers 404 tool_not_found for a tool the server does not list, without calling it', async () => {
    const who = await agent();
    const id = await connect(who, 'plain', plain, { type: 'header', headerName: 'x-api-key', value: API_KEY });
    const before = toolCalls(plain);
    expectError(await callTool(who, id, 'rm_rf', {}), 404, 'tool_not_found');
    expect(toolCalls(plain)).toBe(before);
  });

  it('refuses a body without a tool name with 400 validation_failed', async () => {
    const who = await agent();
    const id = await connect(who, 'plain', plain, { type: 'header', headerName: 'x-api-key', value: API_KEY });
    expectError(await mcp(who, `/mcp/connection/${id}/tools/call`, { method: 'POST', json: { arguments: {} } }), 400, 'validation_failed');
  });
});

describe('tool-server failures after registration', () => {
  it('a tool reporting isError: true is still a 200 carrying the result', async () => {
    switchable.mode = 'good';
    const who = await agent();
    const id = await connect(who, 'switch', switchable, { type: 'bearer', value: SWITCH_BEARER });
    const res = await callTool(who, id, 'flaky', {});
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ content: [{ type: 'text', text: 'the backend said no' }], isError: true });
  });

  it('switches the server: 401/403 -> 424 failed_dependency (never 401), 424 -> 424, 500 -> 502 with upstreamStatus, slow -> 504', async () => {
    switchable.mode = 'good';
    const who = await agent();
    const id = await connect(who, 'switch', switchable, { type: 'bearer', value: SWITCH_BEARER });
    expect((await callTool(who, id, 'echo', { text: 'ok' })).body.content).toEqual([{ type: 'text', text: 'ok' }]);
    try {
      for (const mode of ['401', '403'] as const) {
        switchable.mode = mode;
        for (const res of [await callTool(who, id, 'echo', { text: 'x' }), await mcp(who, `/mcp/connection/${id}/tools`)]) {
          expectError(res, 424, 'tool_server_failed_dependency');
          expect(res.body.error.details).toMatchObject({ upstreamStatus: Number(mode) });
          expect(res.headers.get('www-authenticate')).toBeNull();
        }
      }

      switchable.mode = '424';
      for (const res of [await callTool(who, id, 'echo', { text: 'x' }), await mcp(who, `/mcp/connection/${id}/tools`)]) {
        expectError(res, 424, 'tool_server_failed_dependency');
        expect(res.body.error.details).toMatchObject({ upstreamStatus: 424 });
      }

      switchable.mode = '500';
      for (const res of [await callTool(who, id, 'echo', { text: 'x' }), await mcp(who, `/mcp/connection/${id}/tools`)]) {
        expectError(res, 502, 'tool_server_error');
        expect(res.body.error.details).toMatchObject({ upstreamStatus: 500 });
      }

      switchable.mode = 'slow';
      for (const request of [() => callTool(who, id, 'echo', { text: 'x' }), () => mcp(who, `/mcp/connection/${id}/tools`)]) {
        const started = Date.now();
        const res = await request();
        expectError(res, 504, 'tool_server_timeout');
        expect(Date.now() - started).toBeLessThan(2_500);
      }
    } finally {
      switchable.mode = 'good';
    }
    // the connection is still there and works again
    expect((await callTool(who, id, 'echo', { text: 'back' })).body.content).toEqual([{ type: 'text', text: 'back' }]);
  });

  it('a JSON-RPC error quoting the credential: 502 tool_server_error, and the credential is not in the answer', async () => {
    switchable.mode = 'good';
    const who = await agent();
    const id = await connect(who, 'switch', switchable, { type: 'bearer', value: SWITCH_BEARER });
    try {
      switchable.mode = 'leak';
      for (const res of [await callTool(who, id, 'echo', { text: 'x' }), await mcp(who, `/mcp/connection/${id}/tools`)]) {
        expectError(res, 502, 'tool_server_error');
        expect(res.body.error.message).toContain('bad token');
        expect(res.text).not.toContain(SWITCH_BEARER);
      }
      // and at registration
      const other = await agent();
      const res = await mcp(other, '/mcp/connection', {
        method: 'POST',
        json: { url: toolServerUrl('switch', switchable.url), auth: { type: 'bearer', value: SWITCH_BEARER } },
      });
      expectError(res, 400, 'tool_server_invalid');
      expect(res.text).not.toContain(SWITCH_BEARER);
    } finally {
      switchable.mode = 'good';
    }
  });

  it('a server stopped after registration: 424 tool_server_unreachable, never 401', async () => {
    const who = await agent();
    const id = await connect(who, 'doomed', doomed, { type: 'bearer', value: SDK_BEARER });
    expect((await callTool(who, id, 'add', { a: 1, b: 2 })).body.content).toEqual([{ type: 'text', text: '3' }]);
    await doomed.close();
    for (const res of [await callTool(who, id, 'add', { a: 1, b: 2 }), await mcp(who, `/mcp/connection/${id}/tools`)]) {
      expectError(res, 424, 'tool_server_unreachable');
    }
    // it can still be removed
    expect((await mcp(who, `/mcp/connection/${id}`, { method: 'DELETE' })).body).toEqual({ id, deleted: true });
  });
});

describe('credentials sent to tool servers', () => {
  it('never forwards our JWT; each server sees only its configured credential', () => {
    const requests = [...plain.requests, ...doomed.requests, ...switchable.requests];
    expect(requests.length).toBeGreaterThan(10);
    const problems = credentialProblems(requests, {
      forbidden: tokens,
      configured: { 'x-api-key': [API_KEY], authorization: [`Bearer ${SDK_BEARER}`, `Bearer ${SWITCH_BEARER}`] },
    });
    expect(problems).toEqual([]);
    expect(plain.requests.every((r) => r.headers.authorization === undefined && r.headers['x-api-key'] === API_KEY)).toBe(true);
    expect(doomed.requests.every((r) => r.headers['x-api-key'] === undefined && r.headers.authorization === `Bearer ${SDK_BEARER}`)).toBe(
      true,
    );
    expect(
      switchable.requests.every((r) => r.headers['x-api-key'] === undefined && r.headers.authorization === `Bearer ${SWITCH_BEARER}`),
    ).toBe(true);
  });

  it("keeps credentials and our JWTs out of the gateway's log", () => {
    const text = log.lines.join('\n');
    expect(text).toContain('tool_server_error'); // control: the 5xx answers above were logged
    for (const secret of [API_KEY, SDK_BEARER, SWITCH_BEARER, ...tokens]) expect(text).not.toContain(secret);
  });
});
