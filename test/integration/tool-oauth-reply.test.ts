/**
 * An OAuth tool server in a reply: authorized, its tool runs like any other; once its
 * authorization is refused (a refresh answered `invalid_grant`), the reply does not hang or fail:
 * the model reads an error result naming `tool_authorization_required` (no URL), and answers.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type StandinLlm, startStandinLlm } from '../../scripts/lib/standin-llm';
import { connectAuthorized } from '../support/oauth-flow';
import { startOAuthToolServer, type OAuthToolServer } from '../support/oauth-tool-server';
import { parseSse, replyAgent, replyWorker } from '../support/replies';

const stack = inject('stack');
const API_KEY = `sk-standin-${crypto.randomUUID()}`;
let llm: StandinLlm;
let server: OAuthToolServer;
let worker: Awaited<ReturnType<typeof replyWorker>>;

beforeAll(async () => {
  [llm, server] = await Promise.all([startStandinLlm({ apiKey: API_KEY }), startOAuthToolServer('oauth-reply')]);
  worker = await replyWorker(stack, llm, { 'oauth-reply': server.url });
});

afterAll(async () => {
  await worker?.dispose();
  await Promise.all([llm?.close(), server?.close()]);
});

describe('an OAuth tool server in a reply', () => {
  it('runs its tool; once authorization is refused, the model reads that the tool is unavailable', async () => {
    const agent = await replyAgent(worker.deployment, API_KEY);
    server.config.accessTtl = 10; // every call refreshes first
    await connectAuthorized(worker, agent, server);

    const ok = await agent.reply({ message: 'please use tool echo hello' });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.steps.map((s: { tool: string; isError: boolean }) => [s.tool, s.isError])).toEqual([['echo', false]]);

    // Streamed: the tool runs after the answer started (and the request's pool ended), the token refreshed on the way.
    const refreshes = server.counts.refresh;
    const streamed = await agent.reply({ message: 'please use tool echo streamed' }, { headers: { accept: 'text/event-stream' } });
    expect(streamed.status, streamed.text).toBe(200);
    const events = parseSse(streamed.text);
    const result = events.find((e) => e.event === 'tool_result');
    expect(result?.data.isError, streamed.text).toBe(false);
    expect(server.counts.refresh).toBe(refreshes + 1);

    server.config.refuseRefresh = true;
    try {
      const started = Date.now();
      const refused = await agent.reply({ message: 'please use tool echo again' });
      expect(refused.status, refused.text).toBe(200);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(refused.body.steps.map((s: { tool: string; isError: boolean }) => [s.tool, s.isError])).toEqual([['echo', true]]);
      const toolMessage = JSON.stringify(
        llm
          .completions()
          .at(-1)
          ?.body.messages?.filter((m: { role: string }) => m.role === 'tool'),
      );
      expect(toolMessage).toContain('tool_authorization_required');
      expect(toolMessage).not.toContain(server.base);
      const list = await agent.call('/mcp/connections');
      expect(list.body.connections[0].status).toBe('authorization_required');
    } finally {
      server.config.refuseRefresh = false;
      server.config.accessTtl = 3600;
    }
  });
});
