/**
 * The `reply` scope on the agent's reply route, against the stand-in
 * model behind `https://llm.tools.example`: a chat bridge holding a `reply` key makes the agent
 * answer; a key without the scope is refused before the model hears anything; a revoked key stops
 * the very next reply.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type StandinLlm, startStandinLlm } from '../../scripts/lib/standin-llm';
import { seg } from '../support/agent';
import { createKey, withKey } from '../support/agent-keys';
import { expectError } from '../support/http';
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
});

describe('agent keys on the reply route', () => {
  it('a reply key makes the agent answer; contexts keys are 403 key_scope_missing and the model hears nothing; a revoke stops the next reply', async () => {
    const agent = await replyAgent(worker.deployment, API_KEY);
    const bridge = await createKey(agent, ['reply']);
    const pipeline = await createKey(agent, ['contexts:read', 'contexts:write']);
    const path = `/context/${seg('chat')}/reply`;

    const before = llm.completions().length;
    const refused = await withKey(agent, pipeline.key, path, { method: 'POST', json: { message: 'hello from a pipeline' } });
    expectError(refused, 403, 'key_scope_missing');
    expect(llm.completions().length).toBe(before);

    // With a tool connection: the key's reply reads the tools while the owner check runs, and
    // calls the owner's tool once the check passed.
    const reg = await agent.call('/mcp/connection', {
      method: 'POST',
      json: { url: toolServerUrl('tools', tools.url), auth: { type: 'none' } },
    });
    expect(reg.status, reg.text).toBe(200);
    const answered = await withKey(agent, bridge.key, path, { method: 'POST', json: { message: 'please use tool echo hello' } });
    expect(answered.status, answered.text).toBe(200);
    expect(answered.body.reply.role).toBe('assistant');
    expect(answered.body.reply.message).toContain('stand-in model');
    expect(answered.body.steps.map((s: { tool: string; isError: boolean }) => [s.tool, s.isError])).toEqual([['echo', false]]);

    // The reply key reads nothing else: the messages it caused are the owner's to read.
    expectError(await withKey(agent, bridge.key, `/context/${seg('chat')}/messages`), 403, 'key_scope_missing');
    const stored = await agent.call(`/context/${seg('chat')}/messages`);
    expect(stored.body.messages.map((m: { role: string; message: string }) => m.message)).toEqual([
      'please use tool echo hello',
      answered.body.reply.message,
    ]);

    expect((await agent.call(`/keys/${bridge.id}`, { method: 'DELETE' })).status).toBe(200);
    const afterRevoke = llm.completions().length;
    expectError(await withKey(agent, bridge.key, path, { method: 'POST', json: { message: 'again' } }), 401, 'key_revoked');
    expect(llm.completions().length).toBe(afterRevoke);
  });
});
