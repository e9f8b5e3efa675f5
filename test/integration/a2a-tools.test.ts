/**
 * The agent's tools over A2A (POST /agent/{c}/{t}/a2a) in workerd against real Postgres, anvil,
 * the stand-in model and a tool server: a reply run for an A2A message offers the model the
 * agent's tools narrowed by the key's allowlist, as every reply does, and its tool calls are
 * audited for the key that asked; the tool's text stays inside, the answer is the reply's.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { STANDIN_PREFIX, type StandinLlm, startStandinLlm } from '../../scripts/lib/standin-llm';
import { rpc } from '../support/a2a-server';
import { createKey } from '../support/agent-keys';
import { closePg } from '../support/pg';
import { replyAgent, replyWorker, startSwitchableTools } from '../support/replies';
import { toolServerUrl } from '../support/tool-routing';

const stack = inject('stack');
const API_KEY = `sk-standin-${crypto.randomUUID()}`;
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
  await closePg();
});

const send = (text: string) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'SendMessage',
  params: { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] } },
});

/** The tool names the model was offered in the requests made since `before`. */
const offeredSince = (before: number) => [
  ...new Set(
    llm
      .completions()
      .slice(before)
      .flatMap((r) => (r.body.tools ?? []).map((t) => t.function.name)),
  ),
];

describe('tools in an A2A reply', () => {
  it("offers the tools the key's allowlist names, calls them, audits the call for the key; a key allowing another gets none of it", async () => {
    const agent = await replyAgent(worker.deployment, API_KEY);
    const reg = await agent.call('/mcp/connection', {
      method: 'POST',
      json: { url: toolServerUrl('tools', tools.url), auth: { type: 'none' } },
    });
    expect(reg.status, reg.text).toBe(200);
    const echoOnly = await createKey(agent, ['reply', 'mcp'], { name: 'echo only', tools: ['echo'] });
    const calls = tools.state.calls;
    let before = llm.completions().length;
    const used = await rpc(agent, echoOnly.key, send('please use tool echo over a2a'));
    const task = used.body.result?.task;
    expect(task?.status.state, used.text).toBe('TASK_STATE_COMPLETED');
    expect(offeredSince(before)).toEqual(['echo']);
    expect(tools.state.calls).toBe(calls + 1);
    expect(task.artifacts[0].parts[0].text).toBe(`${STANDIN_PREFIX} echo answered: echo: over a2a`);
    const audit = await agent.call('/audit');
    expect(audit.status, audit.text).toBe(200);
    const toolCalls = audit.body.entries.filter((e: { action: string }) => e.action === 'tool.call');
    expect(toolCalls.map((e: { actor: unknown; target: unknown }) => [e.actor, e.target])).toEqual([
      [{ keyId: echoOnly.id }, { tool: 'echo', connectionId: reg.body.id }],
    ]);

    const noTools = await createKey(agent, ['reply', 'mcp'], { name: 'memory only', tools: ['memory_search'] });
    before = llm.completions().length;
    const plain = await rpc(agent, noTools.key, send('please use tool echo again'));
    expect(plain.body.result?.task.status.state, plain.text).toBe('TASK_STATE_COMPLETED');
    expect(offeredSince(before)).not.toContain('echo');
    expect(tools.state.calls).toBe(calls + 1);
  });
});
