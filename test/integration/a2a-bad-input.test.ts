/**
 * Bad input on the agent's A2A route (POST /agent/{c}/{t}/a2a), against the real worker, Postgres
 * and the stand-in model: each is the error A2A names (HTTP 200 with a JSON-RPC error), or the
 * gateway's own HTTP error where the reply route would refuse too; never a 500, no task, no
 * message stored, the model not called.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type StandinLlm, startStandinLlm } from '../../scripts/lib/standin-llm';
import { a2aClient, PROFILE, rpc, sendParams, storedTasks, userMessage } from '../support/a2a-server';
import type { TestAgent } from '../support/agent';
import { createKey } from '../support/agent-keys';
import { expectError } from '../support/http';
import { closePg } from '../support/pg';
import { replyAgent, replyWorker } from '../support/replies';

const stack = inject('stack');
const API_KEY = `sk-standin-${crypto.randomUUID()}`;
let llm: StandinLlm;
let worker: Awaited<ReturnType<typeof replyWorker>>;
let agent: TestAgent;

beforeAll(async () => {
  llm = await startStandinLlm({ apiKey: API_KEY });
  worker = await replyWorker(stack, llm, {});
  agent = await replyAgent(worker.deployment, API_KEY);
  await agent.call('/profile', { method: 'PUT', json: PROFILE });
});

afterAll(async () => {
  await worker?.dispose();
  await llm?.close();
  await closePg();
});

const message = (parts: unknown[], extra: Record<string, unknown> = {}) => ({
  messageId: crypto.randomUUID(),
  role: 'ROLE_USER',
  parts,
  ...extra,
});
const send = (params: unknown, method = 'SendMessage') => ({ jsonrpc: '2.0', id: 'r1', method, params });

/** The A2A contexts of the agent (none may appear for a refused message). */
async function a2aContexts(): Promise<string[]> {
  const res = await agent.call('/contexts/keys?elementsPerPage=100');
  expect(res.status, res.text).toBe(200);
  return (res.body.contextKeys as string[]).filter((k) => k.startsWith('a2a/'));
}

/** Runs `work`; asserts no model call, no new task and no new A2A context came of it. */
async function refusedCleanly<T>(work: () => Promise<T>): Promise<T> {
  const [calls, tasks, contexts] = [llm.completions().length, (await storedTasks(stack.databaseUrl, agent)).length, await a2aContexts()];
  const out = await work();
  expect(llm.completions().length).toBe(calls);
  expect((await storedTasks(stack.databaseUrl, agent)).length).toBe(tasks);
  expect(await a2aContexts()).toEqual(contexts);
  return out;
}

async function expectRpcError(body: unknown, code: number, raw = false): Promise<void> {
  await refusedCleanly(async () => {
    const res = await rpc(agent, agent.token, raw ? String(body) : body);
    expect(res.status, res.text).toBe(200);
    expect(res.body.jsonrpc).toBe('2.0');
    expect(res.body.error?.code, res.text).toBe(code);
    expect(typeof res.body.error?.message).toBe('string');
  });
}

describe('refused messages', () => {
  it('a non-text part refuses the whole message: -32005, for SendMessage and SendStreamingMessage', async () => {
    const text = { text: 'look at this' };
    for (const other of [
      { url: 'https://example.com/a.png', mediaType: 'image/png' },
      { data: { a: 1 } },
      { raw: 'aGVsbG8=', mediaType: 'text/plain' },
    ]) {
      for (const method of ['SendMessage', 'SendStreamingMessage']) {
        await expectRpcError(send({ message: message([text, other]) }, method), -32005);
      }
    }
  });

  it('with the SDK client too: the typed error, nothing stored', async () => {
    const client = await a2aClient(agent, agent.token);
    const file = {
      content: { $case: 'url' as const, value: 'https://example.com/a.pdf' },
      mediaType: 'application/pdf',
      filename: 'a.pdf',
      metadata: undefined,
    };
    const err = await refusedCleanly(() =>
      client.sendMessage(sendParams(userMessage([file]))).then(
        () => null,
        (e: unknown) => e,
      ),
    );
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/text parts/i);
  });

  it('bad params: -32602 (no message, no messageId, no parts, a contextId that forms no context key, a text too short or over 256 KiB)', async () => {
    await expectRpcError(send({}), -32602);
    await expectRpcError(send({ message: { role: 'ROLE_USER', parts: [{ text: 'hello' }] } }), -32602);
    await expectRpcError(send({ message: message([]) }), -32602);
    for (const contextId of ['has space', 'x'.repeat(260), 'what?', 'é']) {
      await expectRpcError(send({ message: message([{ text: 'hello' }], { contextId }) }), -32602);
    }
    await expectRpcError(send({ message: message([{ text: 'h' }]) }), -32602);
    await expectRpcError(send({ message: message([{ text: 'a'.repeat(200 * 1024) }, { text: 'b'.repeat(60 * 1024) }]) }), -32602);
  });

  it('a body over the gateway limit is 413 payload_too_large', async () => {
    await refusedCleanly(async () => {
      const res = await rpc(agent, agent.token, send({ message: message([{ text: 'a'.repeat(2 * 1024 * 1024) }]) }));
      expectError(res, 413, 'payload_too_large');
    });
  });

  it('a message to a task: unknown -32001, an existing one -32004 (a task takes one message)', async () => {
    await expectRpcError(send({ message: message([{ text: 'hello' }], { taskId: crypto.randomUUID() }) }), -32001);
    const done = await rpc(agent, agent.token, send({ message: message([{ text: 'first' }]) }));
    const task = done.body.result.task;
    await expectRpcError(send({ message: message([{ text: 'again' }], { taskId: task.id, contextId: task.contextId }) }), -32004);
  });
});

describe('malformed requests and methods not served', () => {
  it('not JSON: -32700; JSON but not a JSON-RPC request: -32600', async () => {
    await expectRpcError('{"jsonrpc": "2.0", "method": ', -32700, true);
    await expectRpcError('[1, 2', -32700, true);
    for (const body of [
      [send({})],
      42,
      'text',
      null,
      { method: 'SendMessage' },
      { jsonrpc: '1.0', method: 'GetTask' },
      { jsonrpc: '2.0', method: 7 },
      { jsonrpc: '2.0', method: 'GetTask', id: {} },
    ]) {
      await expectRpcError(JSON.stringify(body), -32600, true);
    }
  });

  it('an unknown method: -32601; ListTasks and SubscribeToTask: -32004; push notifications: -32003', async () => {
    await expectRpcError({ jsonrpc: '2.0', id: 1, method: 'tasks/send', params: {} }, -32601);
    await expectRpcError({ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} }, -32004);
    await expectRpcError({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id: crypto.randomUUID() } }, -32004);
    await expectRpcError(
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'CreateTaskPushNotificationConfig',
        params: { taskId: crypto.randomUUID(), url: 'https://example.com/hook' },
      },
      -32003,
    );
  });

  it('an A2A-Version other than 1.0: -32009 version not supported (1.0 and no header are served)', async () => {
    await refusedCleanly(async () => {
      const res = await rpc(agent, agent.token, send({ message: message([{ text: 'hello' }]) }), { 'A2A-Version': '0.3' });
      expect(res.status, res.text).toBe(200);
      expect(res.body.error?.code).toBe(-32009);
    });
    const ok = await rpc(
      agent,
      agent.token,
      { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'none' } },
      { 'A2A-Version': '1.0' },
    );
    expect(ok.body.error?.code).toBe(-32001);
  });

  it('GetTask and CancelTask of an unknown id: -32001', async () => {
    await expectRpcError({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: crypto.randomUUID() } }, -32001);
    await expectRpcError({ jsonrpc: '2.0', id: 1, method: 'CancelTask', params: { id: 'no-such-task' } }, -32001);
  });
});

describe('limits', () => {
  it("a key's reached daily limit: HTTP 429 usage_limit_reached before any task is made", async () => {
    const key = await createKey(agent, ['reply'], { limits: { tokensPerDay: 1 } });
    const first = await rpc(agent, key.key, send({ message: message([{ text: 'spend the budget' }]) }));
    expect(first.body.result.task.status.state, first.text).toBe('TASK_STATE_COMPLETED');
    await refusedCleanly(async () => {
      for (const method of ['SendMessage', 'SendStreamingMessage']) {
        const res = await rpc(
          agent,
          key.key,
          send({ message: message([{ text: 'one more' }], { contextId: first.body.result.task.contextId }) }, method),
        );
        expectError(res, 429, 'usage_limit_reached');
        expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      }
    });
  });
});
