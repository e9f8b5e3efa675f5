/**
 * Tool calls inside a reply keep the tool path's meaning, through the gateway in
 * workerd against MCP SDK tool servers:
 * - progress restarts a call's timeout up to MCP_CALL_CEILING_MS inside a reply too;
 * - a call still running when the reply's deadline passes is abandoned then (its connection closed);
 * - parallel calls of one reply on one connection share one handshake and one session, which is
 *   the one kept;
 * - a streamed reply that calls a tool leaves no database pool open after it.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type StandinLlm, type StandinRequest, startStandinLlm } from '../../scripts/lib/standin-llm';
import { freePort } from '../../scripts/lib/processes';
import { startWsBridge, type RunningBridge } from '../../scripts/lib/ws-bridge';
import { buildProgressServer, startSdkServer, type SdkTestServer } from '../support/mcp-servers';
import { closePg, sql } from '../support/pg';
import { parseSse, replyAgent, replyWorker, scriptedCases } from '../support/replies';
import { toolServerUrl } from '../support/tool-routing';

const stack = inject('stack');
const API_KEY = `sk-standin-${crypto.randomUUID()}`;
const cases = scriptedCases();
const { scripted } = cases;
let llm: StandinLlm;
let progress: SdkTestServer;
let parallel: SdkTestServer;
let streamed: SdkTestServer;
let hang: Awaited<ReturnType<typeof startHangingServer>>;
let bridge: RunningBridge;
let worker: Awaited<ReturnType<typeof replyWorker>>;
let shortDeadline: Awaited<ReturnType<typeof replyWorker>>;

/** Tool calls first; once the tool results are in, the stand-in's default (it reads the last result). */
const callsThenDefault = (toolCalls: { name: string; arguments: Record<string, unknown> }[]) => (req: StandinRequest) =>
  req.body.messages?.some((m) => m.role === 'tool') ? undefined : { toolCalls };

/**
 * A plain JSON-RPC tool server whose one tool, `hang`, never answers: it records when the gateway
 * closes each call's connection.
 */
async function startHangingServer() {
  const calls: { started: number; closed?: number }[] = [];
  const open = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { id?: unknown; method?: string };
      if (body.method === 'tools/call') {
        const call: { started: number; closed?: number } = { started: Date.now() };
        calls.push(call);
        open.add(res);
        res.on('close', () => {
          call.closed = Date.now();
          open.delete(res);
        });
        return; // never answered
      }
      const result =
        body.method === 'tools/list' ? { tools: [{ name: 'hang', description: 'Never answers', inputSchema: { type: 'object' } }] } : {};
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: body.id ?? null, result }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

beforeAll(async () => {
  [llm, progress, parallel, streamed, hang, bridge] = await Promise.all([
    startStandinLlm({
      apiKey: API_KEY,
      script: cases.script,
    }),
    startSdkServer({ stateful: true, build: buildProgressServer }),
    startSdkServer({ stateful: true, build: buildProgressServer }),
    startSdkServer({ stateful: true, build: buildProgressServer }),
    startHangingServer(),
    freePort().then((port) => startWsBridge(port)),
  ]);
  const servers = { progress: progress.url, parallel: parallel.url, streamed: streamed.url, hang: hang.url };
  [worker, shortDeadline] = await Promise.all([
    // Production's per-call timeout (10 s); the database through a bridge of our own, to count its tunnels.
    replyWorker(stack, llm, servers, { MCP_TIMEOUT_MS: '10000', DB_WS_PROXY: bridge.proxy }),
    // A reply's deadline of 2 x (1.5 s + 1.5 s) = 6 s, far below the 60 s a call may last.
    replyWorker(stack, llm, servers, {
      INFERENCE_LOOP__MAX_ITERATIONS: '2',
      LLM_TIMEOUT_MS: '1500',
      MCP_TIMEOUT_MS: '1500',
      MCP_CALL_CEILING_MS: '60000',
    }),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([worker?.dispose(), shortDeadline?.dispose()]);
  await Promise.all([llm?.close(), progress?.close(), parallel?.close(), streamed?.close(), hang?.close(), bridge?.stop()]);
  await closePg();
});

type Agent = Awaited<ReturnType<typeof replyAgent>>;

async function connect(who: Agent, host: string, url: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await who.call('/mcp/connection', {
    method: 'POST',
    json: { url: toolServerUrl(host, url), auth: { type: 'none' }, ...extra },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.id as string;
}

const methodsSince = (server: SdkTestServer, from: number) =>
  server.requests.slice(from).map((r) => (r.method === 'POST' ? ((r.body as { method?: string })?.method ?? 'POST') : r.method));

/** The tool results the model read, from its requests that contain `marker`. */
const toolResultsRead = (marker: string) =>
  llm
    .completions()
    .filter((r) => JSON.stringify(r.body.messages).includes(marker))
    .flatMap((r) => (r.body.messages ?? []).filter((m) => m.role === 'tool').map((m) => String(m.content)));

async function until(check: () => boolean, withinMs: number): Promise<boolean> {
  const end = Date.now() + withinMs;
  while (!check()) {
    if (Date.now() > end) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

describe('a tool call inside a reply', () => {
  it('lives on progress up to MCP_CALL_CEILING_MS: a 12 s tool reporting every second answers (timeout 10 s)', async () => {
    const who = await replyAgent(worker.deployment, API_KEY);
    await connect(who, 'progress', progress.url);
    const marker = scripted(callsThenDefault([{ name: 'long', arguments: { seconds: 12 } }]));
    const res = await who.reply({ message: `take your time ${marker}` });
    expect(res.status, res.text).toBe(200);
    expect(res.body.steps).toEqual([expect.objectContaining({ tool: 'long', isError: false })]);
    expect(res.body.reply.message).toBe('stand-in model: long answered: done after 12 s');
  }, 60_000);

  it('is abandoned when the reply deadline passes: its connection is closed, the reply ends by the deadline', async () => {
    const who = await replyAgent(shortDeadline.deployment, API_KEY);
    // The connection's own timeout (60 s) and the ceiling (60 s) would let the call run a minute.
    await connect(who, 'hang', hang.url, { timeoutMs: 60_000 });
    const from = hang.calls.length;
    const marker = scripted(callsThenDefault([{ name: 'hang', arguments: {} }]));
    const started = Date.now();
    const res = await who.reply({ message: `wait forever ${marker}` });
    const ms = Date.now() - started;
    expect(res.status, res.text).toBe(504);
    expect(ms).toBeLessThan(30_000); // the deadline is 6 s; the call alone would last 60 s
    const [call] = hang.calls.slice(from);
    expect(call).toBeDefined();
    expect(await until(() => call!.closed !== undefined, 10_000)).toBe(true);
    expect(call!.closed! - call!.started).toBeLessThan(30_000);
  }, 60_000);
});

describe('parallel tool calls of one reply on one connection', () => {
  it('share one handshake and one session, and that session is the one kept', async () => {
    const who = await replyAgent(worker.deployment, API_KEY);
    const id = await connect(who, 'parallel', parallel.url);
    // The server forgets the registration's session: every call of the reply must re-initialise.
    await parallel.dropSessions();
    const from = parallel.requests.length;
    const marker = scripted(callsThenDefault(Array.from({ length: 10 }, () => ({ name: 'count', arguments: {} }))));
    const res = await who.reply({ message: `count ten times ${marker}` });
    expect(res.status, res.text).toBe(200);
    expect(res.body.steps).toHaveLength(10);
    expect(res.body.steps.every((s: { isError: boolean }) => !s.isError)).toBe(true);
    expect(methodsSince(parallel, from).filter((m) => m === 'initialize')).toHaveLength(1);
    expect(parallel.sessionCount()).toBe(1);
    // One session counted all ten calls (`count` counts per session).
    expect(toolResultsRead(marker).sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 10 }, (_, i) => String(i + 1)));

    // The session kept is the one the calls used: the next call goes on counting, without a handshake.
    const next = from + methodsSince(parallel, from).length;
    const after = await who.call(`/mcp/connection/${id}/tools/call`, { method: 'POST', json: { name: 'count', arguments: {} } });
    expect(after.status, after.text).toBe(200);
    expect(after.body.content).toEqual([{ type: 'text', text: '11' }]);
    expect(methodsSince(parallel, next)).toEqual(['tools/call']);
  }, 60_000);
});

describe('a streamed reply with a tool call', () => {
  it('keeps the new session and leaves no database pool open', async () => {
    const who = await replyAgent(worker.deployment, API_KEY);
    const id = await connect(who, 'streamed', streamed.url);
    await streamed.dropSessions(); // so the reply's call opens a new session, which it stores
    expect(await until(() => bridge.openTunnels() === 0, 15_000)).toBe(true); // the registration's pool has ended
    const marker = scripted(callsThenDefault([{ name: 'count', arguments: {} }]));
    const res = await who.reply({ message: `count once ${marker}` }, { headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(200);
    const events = parseSse(res.text);
    expect(events.at(-1)?.event, res.text).toBe('done');
    expect(events.at(-1)?.data.steps).toEqual([expect.objectContaining({ tool: 'count', isError: false })]);
    // Nothing the stream did holds a pool: every tunnel to Postgres closes once the response is over.
    expect(await until(() => bridge.openTunnels() === 0, 5_000)).toBe(true);

    // The session was stored: the next call uses it (the count goes on) without a handshake.
    const from = streamed.requests.length;
    const after = await who.call(`/mcp/connection/${id}/tools/call`, { method: 'POST', json: { name: 'count', arguments: {} } });
    expect(after.body.content).toEqual([{ type: 'text', text: '2' }]);
    expect(methodsSince(streamed, from)).toEqual(['tools/call']);
  }, 60_000);
});

describe('the session a call keeps', () => {
  it('never overwrites a newer session stored meanwhile by another request', async () => {
    const who = await replyAgent(worker.deployment, API_KEY);
    const id = await connect(who, 'progress', progress.url);
    await progress.dropSessions(); // the call re-initialises, then keeps its new session
    const from = progress.requests.length;
    const pending = who.call(`/mcp/connection/${id}/tools/call`, { method: 'POST', json: { name: 'long', arguments: { seconds: 3 } } });
    // Once the call runs in its new session, another request stores a newer one.
    const running = () => methodsSince(progress, from).filter((m) => m === 'tools/call').length === 2;
    expect(await until(running, 15_000)).toBe(true);
    await sql(stack.databaseUrl, `UPDATE gateway.mcp_connections SET session_id = 'newer-session' WHERE id = $1`, [id]);
    const res = await pending;
    expect(res.status, res.text).toBe(200);
    const [row] = await sql(stack.databaseUrl, 'SELECT session_id FROM gateway.mcp_connections WHERE id = $1', [id]);
    expect(row?.session_id).toBe('newer-session');
  }, 60_000);
});
