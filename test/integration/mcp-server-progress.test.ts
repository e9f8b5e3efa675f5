/**
 * The agent's MCP server in the 2026-07-28 era with a model and a tool server behind it: `ask`
 * with a progress token answers server-sent events (the reply's steps as
 * `notifications/progress`, then the result), without one a JSON result; the agent's own tool is
 * called with the owner's credential. The stand-in model behind `https://llm.tools.example`, a
 * real tool server behind `https://tools.tools.example`.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type StandinLlm, startStandinLlm } from '../../scripts/lib/standin-llm';
import { createKey } from '../support/agent-keys';
import { mcpRpc, mcpUrl } from '../support/agent-mcp';
import { replyAgent, replyWorker, startSwitchableTools } from '../support/replies';
import { toolServerUrl } from '../support/tool-routing';

const stack = inject('stack');
const API_KEY = `sk-standin-${crypto.randomUUID()}`;
const TOOL_SECRET = `tool-secret-${crypto.randomUUID()}`;
const MODERN = '2026-07-28';
let llm: StandinLlm;
let tools: Awaited<ReturnType<typeof startSwitchableTools>>;
let worker: Awaited<ReturnType<typeof replyWorker>>;

beforeAll(async () => {
  [llm, tools] = await Promise.all([startStandinLlm({ apiKey: API_KEY }), startSwitchableTools()]);
  worker = await replyWorker(stack, llm, { tools: tools.url });
});

afterAll(async () => {
  await worker?.dispose();
  await Promise.all([llm?.close(), tools?.close()]);
});

/** A 2026-07-28 `tools/call`: the envelope in `_meta` (with a progress token when asked), the headers restating the body. */
function modernCall(url: URL, key: string, id: number, name: string, args: Record<string, unknown>, progressToken?: string) {
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'progress-test', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
    ...(progressToken !== undefined ? { progressToken } : {}),
  };
  const message = { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, _meta } };
  return mcpRpc(url, key, message, { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': name });
}

/** The JSON-RPC messages of an event stream, in order. */
const events = (text: string) =>
  text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => JSON.parse(line.slice(5)) as { id?: number; method?: string; params?: { message?: string }; result?: unknown });

describe('2026-07-28 calls of ask and of the agent own tools', () => {
  it('ask with a progress token streams the reply steps, then the result; without one a JSON result', async () => {
    const agent = await replyAgent(worker.deployment, API_KEY);
    const reg = await agent.call('/mcp/connection', {
      method: 'POST',
      json: { url: toolServerUrl('tools', tools.url), auth: { type: 'bearer', value: TOOL_SECRET } },
    });
    expect(reg.status, reg.text).toBe(200);
    const key = (await createKey(agent, ['mcp'])).key;
    const url = mcpUrl(worker.url, agent);

    const streamed = await modernCall(url, key, 7, 'ask', { message: 'please use tool echo streamed' }, 'p7');
    expect(streamed.status, streamed.text).toBe(200);
    expect(streamed.headers.get('content-type')).toContain('text/event-stream');
    const messages = events(streamed.text);
    const progress = messages.filter((m) => m.method === 'notifications/progress').map((m) => m.params?.message);
    expect(progress[0]).toBe('calling echo');
    expect(progress).toContain('echo answered');
    const last = messages.at(-1);
    expect(last?.id).toBe(7);
    expect(JSON.stringify(last?.result)).toContain('stand-in model');

    const plain = await modernCall(url, key, 8, 'ask', { message: 'hello' });
    expect(plain.status, plain.text).toBe(200);
    expect(plain.headers.get('content-type')).toContain('application/json');
    expect(plain.body.result.content[0].text).toContain('stand-in model');

    tools.state.authorizations.length = 0;
    const echoed = await modernCall(url, key, 9, 'echo', { text: 'modern' });
    expect(echoed.status, echoed.text).toBe(200);
    expect(echoed.body.result.content[0].text).toBe('echo: modern');
    expect(tools.state.authorizations.every((a) => a === `Bearer ${TOOL_SECRET}`)).toBe(true);
  });
});
