/**
 * The agent's A2A server (POST /agent/{c}/{t}/a2a) in workerd against real Postgres, anvil and the
 * stand-in model, driven by @a2a-js/sdk's own client resolved from the agent's card: send (a
 * completed task, the reply as its artifact, the conversation kept in `a2a/{contextId}`), stream
 * (chunks before the reply ends), get (the caller's own tasks only), cancel (the reply stopped,
 * the user message kept), and the credentials (none, a key without `reply`, a transfer).
 */
import { TaskState } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { STANDIN_PREFIX, type StandinLlm, startStandinLlm } from '../../scripts/lib/standin-llm';
import { seg, type TestAgent } from '../support/agent';
import { a2aClient, PROFILE, rpc, sendParams, storedTasks, userMessage } from '../support/a2a-server';
import { createKey, eventually } from '../support/agent-keys';
import { newWallet, transferFreshAgent } from '../support/chain';
import { expectError } from '../support/http';
import { getAddress } from 'viem';
import { agentSchemaName } from '../../src/storage/agent-storage';
import { closePg, sql } from '../support/pg';
import { replyAgent, replyWorker, scriptedCases } from '../support/replies';

const stack = inject('stack');
const API_KEY = `sk-standin-${crypto.randomUUID()}`;
const cases = scriptedCases({ lastMessageOnly: true });
let llm: StandinLlm;
let worker: Awaited<ReturnType<typeof replyWorker>>;

beforeAll(async () => {
  llm = await startStandinLlm({ apiKey: API_KEY, script: cases.script });
  worker = await replyWorker(stack, llm, {});
});

afterAll(async () => {
  await worker?.dispose();
  await llm?.close();
  await closePg();
});

/** An agent with LLM settings on the stand-in and a profile (so its card resolves). */
async function a2aAgent(): Promise<TestAgent> {
  const agent = await replyAgent(worker.deployment, API_KEY);
  const res = await agent.call('/profile', { method: 'PUT', json: PROFILE });
  expect(res.status, res.text).toBe(200);
  return agent;
}

async function stored(agent: TestAgent, key: string): Promise<{ role: string; message: string }[]> {
  const res = await agent.call(`/context/${seg(key)}/messages`);
  if (res.status === 404) return [];
  expect(res.status, res.text).toBe(200);
  return res.body.messages.map((m: { role: string; message: string }) => ({ role: m.role, message: m.message }));
}

const artifactText = (task: { artifacts: { parts: { content?: { $case: string; value: unknown } }[] }[] }) =>
  task.artifacts.flatMap((a) => a.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : ''))).join('');

describe('SendMessage', () => {
  it('answers a completed task with the reply as its artifact, in a2a/{contextId}, and the next message continues it', async () => {
    const agent = await a2aAgent();
    const key = await createKey(agent, ['reply']);
    const client = await a2aClient(agent, key.key);
    const first = await client.sendMessage(sendParams(userMessage('my name is Ada')));
    if (!('status' in first)) throw new Error('expected a task');
    expect(first.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(first.contextId).toMatch(/^[0-9a-f-]{36}$/);
    expect(artifactText(first)).toBe(`${STANDIN_PREFIX} you said: my name is Ada`);
    const before = llm.completions().length;
    const second = await client.sendMessage(sendParams(userMessage('what is my name?', first.contextId)));
    if (!('status' in second)) throw new Error('expected a task');
    expect(second.contextId).toBe(first.contextId);
    expect(second.id).not.toBe(first.id);
    // The agent's memory of the context was sent: the first exchange too.
    expect(JSON.stringify(llm.completions().slice(before)[0]?.body.messages)).toContain('my name is Ada');
    expect((await stored(agent, `a2a/${first.contextId}`)).map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    // Both tasks stored for the key, final, their text joined into one part.
    const tasks = await storedTasks(stack.databaseUrl, agent);
    expect(tasks.map((t) => [t.caller, t.state])).toEqual([
      [`key:${key.id}`, TaskState.TASK_STATE_COMPLETED],
      [`key:${key.id}`, TaskState.TASK_STATE_COMPLETED],
    ]);
    // Usage is counted for the key in the A2A context.
    const report = await agent.call('/usage?groupBy=context');
    expect(report.body.groups).toEqual([expect.objectContaining({ contextKey: `a2a/${first.contextId}` })]);
  });

  it('with the owner token: a failed reply is a failed task naming the error code', async () => {
    const agent = await a2aAgent();
    const client = await a2aClient(agent, agent.token);
    const broken = cases.scripted(() => ({ status: 500, body: { error: { message: 'down' } } }));
    const task = await client.sendMessage(sendParams(userMessage(`break ${broken}`)));
    if (!('status' in task)) throw new Error('expected a task');
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    const said = task.status?.message?.parts[0]?.content;
    expect(said?.$case === 'text' ? said.value : '').toMatch(/^llm_unavailable: /);
    expect((await storedTasks(stack.databaseUrl, agent))[0]?.caller).toBe(`wallet:${agent.owner.address.toLowerCase()}`);
  });
});

describe('SendStreamingMessage', () => {
  it('streams the task, working, the text as artifact chunks as the model writes them, then completed', async () => {
    const agent = await a2aAgent();
    const client = await a2aClient(agent, agent.token);
    const words = 'one two three four five six seven eight';
    const slow = cases.scripted(() => ({ text: words, chunkDelayMs: 150 }));
    const seen: { kind: string; at: number; text?: string; state?: number; append?: boolean }[] = [];
    for await (const event of client.sendMessageStream(sendParams(userMessage(`stream ${slow}`)))) {
      const p = event.payload;
      if (p?.$case === 'task') seen.push({ kind: 'task', at: Date.now(), state: p.value.status?.state });
      if (p?.$case === 'statusUpdate') seen.push({ kind: 'status', at: Date.now(), state: p.value.status?.state });
      if (p?.$case === 'artifactUpdate') {
        const c = p.value.artifact?.parts[0]?.content;
        seen.push({ kind: 'chunk', at: Date.now(), text: c?.$case === 'text' ? c.value : '', append: p.value.append });
      }
    }
    expect(seen[0]).toMatchObject({ kind: 'task', state: TaskState.TASK_STATE_WORKING });
    expect(seen[1]).toMatchObject({ kind: 'status', state: TaskState.TASK_STATE_WORKING });
    expect(seen.at(-1)).toMatchObject({ kind: 'status', state: TaskState.TASK_STATE_COMPLETED });
    const chunks = seen.filter((e) => e.kind === 'chunk');
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.map((c) => c.text).join('')).toBe(words);
    expect(chunks.slice(1).every((c) => c.append)).toBe(true);
    // Forwarded as written, not buffered: the first chunk came long before the end.
    expect(seen.at(-1)!.at - chunks[0]!.at).toBeGreaterThan(500);
    const [task] = await storedTasks(stack.databaseUrl, agent);
    expect(task?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task?.task.artifacts[0].parts).toHaveLength(1);
  });
});

describe('GetTask and CancelTask', () => {
  it("GetTask reads the caller's own task; another caller's or agent's is task not found (-32001)", async () => {
    const agent = await a2aAgent();
    const other = await a2aAgent();
    const [mine, theirs] = await Promise.all([createKey(agent, ['reply']), createKey(agent, ['reply'])]);
    const task = await (await a2aClient(agent, mine.key)).sendMessage(sendParams(userMessage('remember this')));
    if (!('status' in task)) throw new Error('expected a task');
    const got = await (await a2aClient(agent, mine.key)).getTask({ tenant: '', id: task.id });
    expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactText(got)).toBe(`${STANDIN_PREFIX} you said: remember this`);
    const get = { jsonrpc: '2.0', id: 7, method: 'GetTask', params: { id: task.id } };
    for (const [who, credential] of [
      ['another key', theirs.key],
      ['the owner', agent.token],
      ['another agent', other.token],
    ] as const) {
      const target = who === 'another agent' ? other : agent;
      const res = await rpc(target, credential, get);
      expect(res.status, res.text).toBe(200);
      expect(res.body.error?.code, who).toBe(-32001);
    }
    expect((await rpc(agent, mine.key, { ...get, params: { id: crypto.randomUUID() } })).body.error.code).toBe(-32001);
  });

  it('CancelTask stops a running reply: canceled, the user message kept, nothing more stored; a finished task is -32002', async () => {
    const agent = await a2aAgent();
    const client = await a2aClient(agent, agent.token);
    const slow = cases.scripted(() => ({ text: Array.from({ length: 40 }, (_, i) => `w${i}`).join(' '), chunkDelayMs: 200 }));
    const stream = client.sendMessageStream(sendParams(userMessage(`long ${slow}`)));
    let taskId = '';
    let contextId = '';
    let last: number | undefined;
    let asked = false;
    let canceledAt = 0;
    for await (const event of stream) {
      const p = event.payload;
      if (p?.$case === 'task') [taskId, contextId] = [p.value.id, p.value.contextId];
      if (p?.$case === 'artifactUpdate' && !asked) {
        asked = true;
        const canceled = await client.cancelTask({ tenant: '', id: taskId, metadata: undefined });
        expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
        canceledAt = Date.now();
      }
      if (p?.$case === 'statusUpdate') last = p.value.status?.state;
    }
    // The stream ended at once, not when the model would have finished (8 s).
    expect(Date.now() - canceledAt).toBeLessThan(1_000);
    expect(last).toBe(TaskState.TASK_STATE_CANCELED);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await stored(agent, `a2a/${contextId}`)).toEqual([{ role: 'user', message: `long ${slow}` }]);
    const [task] = await storedTasks(stack.databaseUrl, agent);
    expect(task?.state).toBe(TaskState.TASK_STATE_CANCELED);
    // The context is free again, and a finished task cannot be canceled.
    const next = await client.sendMessage(sendParams(userMessage('after the cancel', contextId)));
    if (!('status' in next)) throw new Error('expected a task');
    expect(next.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const res = await rpc(agent, agent.token, { jsonrpc: '2.0', id: 1, method: 'CancelTask', params: { id: next.id } });
    expect(res.body.error?.code).toBe(-32002);
  });

  it('a cancel another isolate stored (the row canceled in the table) stops the running reply too', async () => {
    const agent = await a2aAgent();
    const client = await a2aClient(agent, agent.token);
    const slow = cases.scripted(() => ({ text: Array.from({ length: 40 }, (_, i) => `w${i}`).join(' '), chunkDelayMs: 200 }));
    let taskId = '';
    let contextId = '';
    let last: number | undefined;
    const started = Date.now();
    for await (const event of client.sendMessageStream(sendParams(userMessage(`elsewhere ${slow}`)))) {
      const p = event.payload;
      if (p?.$case === 'task') {
        [taskId, contextId] = [p.value.id, p.value.contextId];
        await eventually(async () => (await storedTasks(stack.databaseUrl, agent)).length === 1);
        const schema = await agentSchemaName({
          chainId: agent.deployment.chainId,
          collection: getAddress(agent.collection),
          tokenId: agent.tokenId,
        });
        await sql(stack.databaseUrl, `update ${schema.quoted}.a2a_tasks set state = 5 where id = $1`, [taskId]);
      }
      if (p?.$case === 'statusUpdate') last = p.value.status?.state;
    }
    expect(last).toBe(TaskState.TASK_STATE_CANCELED);
    expect(Date.now() - started).toBeLessThan(4_000);
    await new Promise((r) => setTimeout(r, 500));
    expect(await stored(agent, `a2a/${contextId}`)).toEqual([{ role: 'user', message: `elsewhere ${slow}` }]);
    expect((await storedTasks(stack.databaseUrl, agent))[0]?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it("a streaming client's hang-up ends the reply: the task failed, the message kept, the context free again", async () => {
    const agent = await a2aAgent();
    const slow = cases.scripted(() => ({ text: Array.from({ length: 40 }, (_, i) => `w${i}`).join(' '), chunkDelayMs: 200 }));
    const gone = new AbortController();
    const client = await a2aClient(agent, agent.token);
    let contextId = '';
    await expect(
      (async () => {
        for await (const event of client.sendMessageStream(sendParams(userMessage(`hang up ${slow}`)), { signal: gone.signal })) {
          if (event.payload?.$case === 'task') contextId = event.payload.value.contextId;
          if (event.payload?.$case === 'artifactUpdate') gone.abort();
        }
      })(),
    ).rejects.toThrow();
    await eventually(async () => (await storedTasks(stack.databaseUrl, agent))[0]?.state === TaskState.TASK_STATE_FAILED);
    expect(await stored(agent, `a2a/${contextId}`)).toEqual([{ role: 'user', message: `hang up ${slow}` }]);
    const next = await client.sendMessage(sendParams(userMessage('still there?', contextId)));
    expect('status' in next && next.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });
});

describe('a task whose worker ended mid-reply', () => {
  it('is read as failed once it is older than any reply and its lease; a fresh working task is still working', async () => {
    const agent = await a2aAgent();
    const key = await createKey(agent, ['reply']);
    const task = await (await a2aClient(agent, key.key)).sendMessage(sendParams(userMessage('then the worker died')));
    if (!('status' in task)) throw new Error('expected a task');
    const schema = await agentSchemaName({
      chainId: agent.deployment.chainId,
      collection: getAddress(agent.collection),
      tokenId: agent.tokenId,
    });
    // As a worker that ended mid-reply leaves it: working, its last write long ago (then: just now).
    const leave = (age: string) =>
      sql(
        stack.databaseUrl,
        `update ${schema.quoted}.a2a_tasks set state = 2, task = jsonb_set(task, '{status,state}', '2'::jsonb), updated_at = now() - $2::interval where id = $1`,
        [task.id, age],
      );
    const get = { jsonrpc: '2.0', id: 9, method: 'GetTask', params: { id: task.id } };
    await leave('1 day');
    const dead = await rpc(agent, key.key, get);
    expect(dead.body.result?.status?.state, dead.text).toBe('TASK_STATE_FAILED');
    expect(JSON.stringify(dead.body.result.status.message)).toContain('internal_error: the reply stopped without an answer');
    const cancel = await rpc(agent, key.key, { ...get, method: 'CancelTask' });
    expect(cancel.body.error?.code, cancel.text).toBe(-32002);
    await leave('0 seconds');
    const fresh = await rpc(agent, key.key, get);
    expect(fresh.body.result?.status?.state, fresh.text).toBe('TASK_STATE_WORKING');
  });
});

describe('credentials', () => {
  const send = {
    jsonrpc: '2.0',
    id: 1,
    method: 'SendMessage',
    params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hello' }] } },
  };

  it('none: 401 with WWW-Authenticate: Bearer; a key without reply: 403; a key with it works', async () => {
    const agent = await a2aAgent();
    const none = await rpc(agent, undefined, send);
    expectError(none, 401, 'unauthorized');
    expect(none.headers.get('www-authenticate')).toMatch(
      /^Bearer resource_metadata=".*\/\.well-known\/oauth-protected-resource\/agent\/.*\/a2a"$/,
    );
    const before = llm.completions().length;
    const readOnly = await createKey(agent, ['contexts:read', 'mcp']);
    expectError(await rpc(agent, readOnly.key, send), 403, 'key_scope_missing');
    expect(llm.completions().length).toBe(before);
    expect(await storedTasks(stack.databaseUrl, agent)).toEqual([]);
    const replying = await createKey(agent, ['reply']);
    const ok = await rpc(agent, replying.key, send);
    expect(ok.body.result.task.status.state, ok.text).toBe('TASK_STATE_COMPLETED');
  });

  it("a transfer of the agent locks out the seller's key", async () => {
    const agent = await a2aAgent();
    const key = await createKey(agent, ['reply']);
    expect((await rpc(agent, key.key, send)).status).toBe(200);
    await transferFreshAgent(agent.deployment, agent.owner, newWallet().address, agent.tokenId);
    const before = llm.completions().length;
    expectError(await rpc(agent, key.key, send), 403, 'not_owner');
    await eventually(async () => (await rpc(agent, key.key, send)).status === 401);
    expect(llm.completions().length).toBe(before);
    expect(await storedTasks(stack.databaseUrl, agent)).toHaveLength(1);
  });
});
