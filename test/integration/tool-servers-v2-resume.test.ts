/**
 * A server of 2025-11-25 may close a call's SSE stream before the response (after a priming event
 * with an id and a `retry` wait) and deliver it on a GET the client resumes with `Last-Event-ID`.
 * Our client waits the server's `retry`, resumes within the call's deadline, and says so when the
 * server will not resume; a stream without event ids is not resumed. Directly, and through the
 * gateway in workerd.
 */
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createMcpClient, McpError } from '../../src/tool-servers/client';
import { freshAgent } from '../support/agent';
import { call, deployment } from '../support/http';
import { agentPath } from '../support/login';
import { listen, type RpcRequest, rpcResult, sendJson, type TestServer } from '../support/mcp-servers';
import { closePg } from '../support/pg';
import { toolServerUrl, workerWithToolServers } from '../support/tool-routing';

const SESSION = 'resume-session';
const RETRY_MS = 300;
const TOOL = { name: 'later', description: 'Answers on the resumed stream', inputSchema: { type: 'object', properties: {} } };

/** `resumable`: GET answers the pending call; `refuses`: GET is 405; `no-ids`: the stream has no event ids. */
type Mode = 'resumable' | 'refuses' | 'no-ids';

function startClosingServer(mode: Mode): Promise<TestServer & { closedAt: number[]; resumedAt: number[] }> {
  let pending: unknown;
  const closedAt: number[] = [];
  const resumedAt: number[] = [];
  const sse = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': SESSION });
  return listen((req, res, body) => {
    if (req.method === 'GET') {
      resumedAt.push(performance.now());
      if (mode === 'refuses' || req.headers['last-event-id'] !== 'e1' || req.headers['mcp-session-id'] !== SESSION) {
        return sendJson(res, 405, { error: 'no resumption' });
      }
      sse(res);
      res.end(`id: e2\nevent: message\ndata: ${JSON.stringify(rpcResult(pending, { content: [{ type: 'text', text: 'resumed' }] }))}\n\n`);
      return;
    }
    const request = body as RpcRequest;
    if (request.method === 'initialize') {
      return sendJson(
        res,
        200,
        rpcResult(request.id, {
          protocolVersion: '2025-11-25',
          capabilities: { tools: {} },
          serverInfo: { name: 'closing', version: '1' },
        }),
        { 'mcp-session-id': SESSION },
      );
    }
    if (request.id === undefined) return void res.writeHead(202).end();
    if (request.method === 'tools/list') return sendJson(res, 200, rpcResult(request.id, { tools: [TOOL] }));
    pending = request.id;
    sse(res);
    res.write(mode === 'no-ids' ? ': priming\n\n' : `id: e1\nretry: ${RETRY_MS}\ndata: \n\n`);
    setTimeout(() => {
      closedAt.push(performance.now());
      res.end();
    }, 20);
  }).then((server) => Object.assign(server, { closedAt, resumedAt }));
}

const servers = {} as Record<Mode, Awaited<ReturnType<typeof startClosingServer>>>;
beforeAll(async () => {
  [servers.resumable, servers.refuses, servers['no-ids']] = await Promise.all([
    startClosingServer('resumable'),
    startClosingServer('refuses'),
    startClosingServer('no-ids'),
  ]);
});
afterAll(async () => {
  await Promise.all(Object.values(servers).map((s) => s?.close()));
});

const client = (mode: Mode) => createMcpClient({ url: servers[mode].url, auth: { type: 'none' }, timeoutMs: 3000, handshakeFirst: true });

describe('our client, directly', () => {
  it("resumes a closed stream with a GET and Last-Event-ID after the server's retry wait", async () => {
    const c = client('resumable');
    expect((await c.listTools()).map((t) => t.name)).toEqual(['later']);
    const result = await c.callTool('later', {});
    expect(result.content).toEqual([{ type: 'text', text: 'resumed' }]);
    const s = servers.resumable;
    const waited = (s.resumedAt.at(-1) ?? 0) - (s.closedAt.at(-1) ?? 0);
    expect(waited).toBeGreaterThanOrEqual(RETRY_MS - 50);
    expect(waited).toBeLessThan(RETRY_MS + 1000);
  });

  it('a server that will not resume: bad_response saying so', async () => {
    const c = client('refuses');
    await c.listTools();
    const failure = await c.callTool('later', {}).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(McpError);
    expect((failure as McpError).kind).toBe('bad_response');
    expect((failure as McpError).message).toContain('refused to resume it (HTTP 405)');
  });

  it('a stream without event ids is not resumed', async () => {
    const c = client('no-ids');
    await c.listTools();
    const failure = await c.callTool('later', {}).catch((err: unknown) => err);
    expect((failure as McpError).message).toBe('tool server event stream carried no JSON-RPC response');
    expect(servers['no-ids'].resumedAt).toEqual([]);
  });
});

describe('through the gateway (workerd)', () => {
  const stack = inject('stack');
  let worker: Awaited<ReturnType<typeof workerWithToolServers>>;
  beforeAll(async () => {
    worker = await workerWithToolServers(stack, { resumable: servers.resumable.url });
  }, 60_000);
  afterAll(async () => {
    await worker?.dispose();
    await closePg();
  });

  it('a tool call whose stream the server closes is answered from the resumed stream', async () => {
    const agent = await freshAgent(deployment('testnet'));
    const at = (rest: string, init: Parameters<typeof call>[2] = {}) =>
      call(worker.url, agentPath(agent.collection, agent.tokenId, rest), { token: agent.token, ...init });
    const added = await at('/mcp/connection', {
      method: 'POST',
      json: { url: toolServerUrl('resumable', servers.resumable.url), auth: { type: 'none' } },
    });
    expect(added.status, added.text).toBe(200);
    const res = await at(`/mcp/connection/${added.body.id}/tools/call`, { method: 'POST', json: { name: 'later', arguments: {} } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.content).toEqual([{ type: 'text', text: 'resumed' }]);
  });
});
