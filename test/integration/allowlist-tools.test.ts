/**
 * An agent key's tool allowlist, matched by each tool's source and own name on every surface: a
 * tool server whose tools are called `ask`, `memory_append` and `echo` (offered as
 * `<connection>_ask` and `<connection>_memory_append`, the built-ins keeping their names
 * everywhere). A key allowlisting `ask` gets the built-in only: never the tool server's `ask`, on
 * the MCP server, in POST …/reply or in chat completions (the stand-in model's requests show what
 * it was offered); `<connectionId>/ask` is the tool server's; an offered name matches nothing.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type StandinLlm, startStandinLlm } from '../../scripts/lib/standin-llm';
import { seg, type TestAgent } from '../support/agent';
import { createKey, withKey } from '../support/agent-keys';
import { mcpRpc, mcpUrl } from '../support/agent-mcp';
import { expectError } from '../support/http';
import { replyAgent, replyWorker } from '../support/replies';
import { toolServerUrl } from '../support/tool-routing';

const stack = inject('stack');
const API_KEY = `sk-standin-${crypto.randomUUID()}`;
const TOOL_SECRET = `tool-secret-${crypto.randomUUID()}`;
const TEXT_ARG = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };
const TOOLS = ['ask', 'memory_append', 'echo'].map((name) => ({ name, description: `The server's ${name}`, inputSchema: TEXT_ARG }));

/** A tool server whose tools take built-in names, counting the calls of each. */
async function startNamesakeTools() {
  const calls: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { id?: unknown; method?: string; params?: any };
      const send = (value: unknown) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: body.id ?? null, ...(value as object) }));
      };
      if (body.method === 'tools/list') return send({ result: { tools: TOOLS } });
      if (body.method === 'tools/call') {
        calls.push(String(body.params?.name));
        return send({ result: { content: [{ type: 'text', text: `server ${body.params?.name}: ${body.params?.arguments?.text}` }] } });
      }
      return send({ error: { code: -32601, message: 'Method not found' } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let llm: StandinLlm;
let tools: Awaited<ReturnType<typeof startNamesakeTools>>;
let worker: Awaited<ReturnType<typeof replyWorker>>;

beforeAll(async () => {
  [llm, tools] = await Promise.all([startStandinLlm({ apiKey: API_KEY }), startNamesakeTools()]);
  worker = await replyWorker(stack, llm, { tools: tools.url });
});

afterAll(async () => {
  await worker?.dispose();
  await Promise.all([llm?.close(), tools?.close()]);
});

const rpc = (agent: TestAgent, credential: string, id: number, method: string, params: unknown = {}) =>
  mcpRpc(mcpUrl(worker.url, agent), credential, { jsonrpc: '2.0', id, method, params });
const listed = async (agent: TestAgent, credential: string): Promise<string[]> =>
  (await rpc(agent, credential, 1, 'tools/list')).body.result.tools.map((t: { name: string }) => t.name);

/** The tool names the model was offered in the requests made since `before`. */
const offeredSince = (before: number) => [
  ...new Set(
    llm
      .completions()
      .slice(before)
      .flatMap((r) => (r.body.tools ?? []).map((t) => t.function.name)),
  ),
];

/** An agent on the stand-in with the namesake tool server; its connection's id and the name its `ask` is offered under. */
async function namesakeAgent() {
  const agent = await replyAgent(worker.deployment, API_KEY);
  const reg = await agent.call('/mcp/connection', {
    method: 'POST',
    json: { url: toolServerUrl('tools', tools.url), auth: { type: 'bearer', value: TOOL_SECRET } },
  });
  expect(reg.status, reg.text).toBe(200);
  const names = await listed(agent, agent.token);
  const serverAsk = names.find((n) => n.endsWith('_ask'));
  const serverAppend = names.find((n) => n.endsWith('_memory_append'));
  expect(names).toEqual([serverAsk, serverAppend, 'echo', 'memory_search', 'memory_read', 'memory_append', 'ask']);
  return { agent, connectionId: reg.body.id as string, serverAsk: serverAsk!, serverAppend: serverAppend! };
}

/** POST …/reply with `key`, and chat completions with it: what the model was offered in each, and the steps of the reply. */
async function replyAndChat(agent: TestAgent, key: string, message: string) {
  const before = llm.completions().length;
  const replied = await withKey(agent, key, `/context/${seg('chat')}/reply`, { method: 'POST', json: { message } });
  expect(replied.status, replied.text).toBe(200);
  const reply = offeredSince(before);
  const middle = llm.completions().length;
  const chat = await withKey(agent, key, '/v1/chat/completions', {
    method: 'POST',
    json: { model: 'x', messages: [{ role: 'user', content: message }] },
  });
  expect(chat.status, chat.text).toBe(200);
  const steps = replied.body.steps.map((s: { tool: string; connectionId: string | null }) => [s.tool, s.connectionId]);
  return { reply, chat: offeredSince(middle), steps, chatText: chat.body.choices[0].message.content as string };
}

describe("an agent key's tool allowlist, by source and own name", () => {
  it('the owner is offered the renamed namesakes in a reply too, never a tool server tool as `ask` or `memory_append`', async () => {
    const { agent, serverAsk, serverAppend } = await namesakeAgent();
    const { reply, chat } = await replyAndChat(agent, agent.token, `please use tool ${serverAsk} hi`);
    expect(reply).toEqual([serverAsk, serverAppend, 'echo', 'memory_search', 'memory_read']);
    expect(chat).toEqual(reply);
  });

  it("`ask` is the built-in only: the tool server's ask is neither listed, called, nor offered to the reply's model", async () => {
    const { agent, serverAsk } = await namesakeAgent();
    const key = await createKey(agent, ['mcp', 'reply'], { name: 'ask only', tools: ['ask'] });
    expect(await listed(agent, key.key)).toEqual(['ask']);
    const calls = tools.calls.length;
    const refused = await rpc(agent, key.key, 2, 'tools/call', { name: serverAsk, arguments: { text: 'x' } });
    expect(refused.status).toBe(200);
    expect(refused.body.error.code).toBe(-32602);
    // The built-in ask's reply, and POST …/reply and chat completions with the key: no tool offered.
    const before = llm.completions().length;
    const asked = await rpc(agent, key.key, 3, 'tools/call', { name: 'ask', arguments: { message: `please use tool ${serverAsk} hi` } });
    expect(asked.body.result.isError, asked.text).toBeFalsy();
    expect(offeredSince(before)).toEqual([]);
    const { reply, chat, steps } = await replyAndChat(agent, key.key, `please use tool ${serverAsk} hi`);
    expect([reply, chat, steps]).toEqual([[], [], []]);
    expect(tools.calls.length).toBe(calls);

    // The name a tool is offered under is not its own name: it matches nothing.
    const byOffered = await createKey(agent, ['mcp', 'reply'], { name: 'offered name', tools: [serverAsk] });
    expect(await listed(agent, byOffered.key)).toEqual([]);
    expect((await rpc(agent, byOffered.key, 4, 'tools/call', { name: serverAsk, arguments: { text: 'x' } })).body.error.code).toBe(-32602);
    expect((await replyAndChat(agent, byOffered.key, `please use tool ${serverAsk} hi`)).reply).toEqual([]);
    expect(tools.calls.length).toBe(calls);
  });

  it("`<connectionId>/ask` is the tool server's ask: listed, called on MCP, in a reply and in chat completions", async () => {
    const { agent, connectionId, serverAsk } = await namesakeAgent();
    const key = await createKey(agent, ['mcp', 'reply'], { name: 'server ask', tools: [`${connectionId.toUpperCase()}/ask`, 'echo'] });
    expect(await listed(agent, key.key)).toEqual([serverAsk, 'echo']);
    const called = await rpc(agent, key.key, 2, 'tools/call', { name: serverAsk, arguments: { text: 'on mcp' } });
    expect(called.body.result.content[0].text, called.text).toBe('server ask: on mcp');
    expect((await rpc(agent, key.key, 3, 'tools/call', { name: 'ask', arguments: { message: 'hi' } })).body.error.code).toBe(-32602);
    const calls = tools.calls.length;
    const { reply, chat, steps, chatText } = await replyAndChat(agent, key.key, `please use tool ${serverAsk} in reply`);
    expect(reply).toEqual([serverAsk, 'echo']);
    expect(chat).toEqual([serverAsk, 'echo']);
    expect(steps).toEqual([[serverAsk, connectionId]]);
    expect(chatText).toContain('server ask: in reply');
    expect(tools.calls.slice(calls)).toEqual(['ask', 'ask']);
  });

  it('refuses a malformed entry at key creation with 400 validation_failed', async () => {
    const { agent, connectionId } = await namesakeAgent();
    for (const tools of [['notes/ask'], [`${connectionId}/`], ['ask\n'], [' ask'], ['x'.repeat(238)], []]) {
      const res = await agent.call('/keys', { method: 'POST', json: { name: 'bad', scopes: ['mcp'], tools } });
      expectError(res, 400, 'validation_failed');
    }
    const good = await createKey(agent, ['mcp'], { tools: ['ask', `${connectionId}/memory_append`, 'search.v2'] });
    expect(good.tools).toEqual(['ask', `${connectionId}/memory_append`, 'search.v2']);
  });
});
