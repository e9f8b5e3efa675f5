/**
 * One handshake per connection in the isolate, for re-handshakes too (issue 33, item 9): after a
 * real SDK v1 stateful tool server (loopback, behind an https host) drops its sessions, 10
 * parallel calls through the gateway, each its own request, make one `initialize` between them
 * and all run in the one new session.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freshAgent } from '../support/agent';
import { call, deployment } from '../support/http';
import { agentPath } from '../support/login';
import { type SdkTestServer, startSdkServer } from '../support/mcp-servers';
import { toolServerUrl, workerWithToolServers } from '../support/tool-routing';

const stack = inject('stack');
let worker: Awaited<ReturnType<typeof workerWithToolServers>>;
let server: SdkTestServer;

beforeAll(async () => {
  server = await startSdkServer({ stateful: true, json: true });
  worker = await workerWithToolServers(stack, { stateful: server.url });
}, 60_000);

afterAll(async () => {
  await worker?.dispose();
  await server?.close();
});

const postMethods = (from: number) =>
  server.requests.slice(from).flatMap((r) => (r.method === 'POST' ? [(r.body as { method?: string })?.method ?? 'POST'] : [r.method]));
const sessionsOfCalls = (from: number) =>
  new Set(
    server.requests
      .slice(from)
      .filter((r) => (r.body as { method?: string })?.method === 'tools/call')
      .map((r) => r.headers['mcp-session-id']),
  );

describe('re-handshakes after a dropped session', () => {
  it('10 parallel calls after the server dropped its sessions make one initialize, and all run in the new session', async () => {
    const agent = await freshAgent({ ...deployment('testnet'), baseUrl: worker.url });
    const api = (rest: string, init: Parameters<typeof call>[2] = {}) =>
      call(worker.url, agentPath(agent.collection, agent.tokenId, rest), { token: agent.token, ...init });
    const added = await api('/mcp/connection', {
      method: 'POST',
      json: { url: toolServerUrl('stateful', server.url), auth: { type: 'none' } },
    });
    expect(added.status, added.text).toBe(200);
    const id = added.body.id as string;
    const burst = async (label: string) => {
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          api(`/mcp/connection/${id}/tools/call`, { method: 'POST', json: { name: 'echo', arguments: { text: `${label} ${i}` } } }),
        ),
      );
      for (const [i, res] of answers.entries()) {
        expect(res.status, res.text).toBe(200);
        expect(res.body.content).toEqual([{ type: 'text', text: `${label} ${i}` }]);
      }
    };

    const first = server.requests.length;
    await burst('first');
    expect(postMethods(first).filter((m) => m === 'initialize')).toHaveLength(0); // registration's session is kept

    for (const round of ['second', 'third']) {
      await server.dropSessions();
      const from = server.requests.length;
      await burst(round);
      expect(
        postMethods(from).filter((m) => m === 'initialize'),
        round,
      ).toHaveLength(1);
      expect(
        postMethods(from).filter((m) => m === 'notifications/initialized'),
        round,
      ).toHaveLength(1);
      // One session opened; the calls went out in the dropped one, then in that one.
      expect(server.sessionCount(), round).toBe(1);
      expect(sessionsOfCalls(from).size, round).toBe(2);
    }
  });
});
