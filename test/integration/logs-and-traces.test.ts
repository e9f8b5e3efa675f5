/**
 * Logs and traces (issue 24): one JSON line per request in the worker's log (read
 * from the log file its output goes to, as `.dev/<name>.log` holds it), and the reply's spans as
 * the runtime itself reports them (a streaming tail worker beside the gateway, the same events
 * Workers traces and their OTLP export are built from): `invoke_agent`, `chat {model}`,
 * `execute_tool {tool}` with the GenAI attributes, message text only with TRACE_MESSAGE_TEXT=1.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type StandinLlm, startStandinLlm } from '../../scripts/lib/standin-llm';
import { seg } from '../support/agent';
import { createKey, withKey } from '../support/agent-keys';
import { call } from '../support/http';
import { agentPath } from '../support/login';
import { parseSse, replyAgent, replyWorker, scriptedCases, startSwitchableTools } from '../support/replies';
import { type Invocation, startTelemetryCollector, type TracedSpan } from '../support/telemetry';
import { toolServerUrl } from '../support/tool-routing';
import { requestLineOf, requestLines } from '../support/worker-log';

const stack = inject('stack');
const API_KEY = `sk-standin-${crypto.randomUUID()}`;
const AGENT = '/agent/:agentCollectionAddress/:agentTokenId';
const cases = scriptedCases();

let dir: string;
let llm: StandinLlm;
let tools: Awaited<ReturnType<typeof startSwitchableTools>>;
let collector: Awaited<ReturnType<typeof startTelemetryCollector>>;
let worker: Awaited<ReturnType<typeof replyWorker>>;
/** The same, with TRACE_MESSAGE_TEXT=1. */
let textWorker: Awaited<ReturnType<typeof replyWorker>>;
const logOf = (name: string) => path.join(dir, `${name}.log`);

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'logs-and-traces-'));
  [llm, tools, collector] = await Promise.all([
    startStandinLlm({ apiKey: API_KEY, script: cases.script }),
    startSwitchableTools(),
    startTelemetryCollector(),
  ]);
  [worker, textWorker] = await Promise.all([
    replyWorker(stack, llm, { tools: tools.url }, {}, { logFile: logOf('worker'), telemetry: collector.url }),
    replyWorker(stack, llm, { tools: tools.url }, { TRACE_MESSAGE_TEXT: '1' }, { logFile: logOf('text'), telemetry: collector.url }),
  ]);
});

afterAll(async () => {
  await Promise.all([worker?.dispose(), textWorker?.dispose()]);
  await Promise.all([llm?.close(), tools?.close(), collector?.close()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A request id of our own (`X-Request-Id` is echoed when safe), to find the request's line. */
const rid = (label: string) => `${label}-${crypto.randomUUID()}`;

describe('the request log line', () => {
  it('is one JSON line per request: request id, method, route pattern, status, duration, chain, agent, credential; never a token, key, query value, context key or body', async () => {
    const who = await replyAgent(worker.deployment, API_KEY);
    const agent = `${who.collection.toLowerCase()}/${who.tokenId}`;
    const key = await createKey(who, ['contexts:read']);
    const contextKey = `private-${crypto.randomUUID()}`;
    const searched = `looked-for-${crypto.randomUUID()}`;
    const body = `a body ${crypto.randomUUID()}`;
    const ids = {
      health: rid('health'),
      list: rid('list'),
      append: rid('append'),
      keyed: rid('keyed'),
      badToken: rid('bad-token'),
      unknown: rid('unknown'),
      login: rid('login'),
    };
    const base = worker.deployment.baseUrl;
    const header = (id: string) => ({ 'x-request-id': id });
    expect((await call(base, '/health', { headers: header(ids.health) })).status).toBe(200);
    expect((await who.call(`/contexts/keys?search=${searched}`, { headers: header(ids.list) })).status).toBe(200);
    expect((await who.call('/context', { method: 'POST', json: { key: contextKey } })).status).toBe(200);
    const append = await who.call(`/context/${seg(contextKey)}/messages`, {
      method: 'POST',
      json: { messages: [{ role: 'user', message: body }] },
      headers: header(ids.append),
    });
    expect(append.status, append.text).toBe(200);
    expect((await withKey(who, key.key, '/contexts/keys', { headers: header(ids.keyed) })).status).toBe(200);
    const forged = `${who.token.slice(0, -4)}AAAA`;
    const refused = await call(base, agentPath(who.collection, who.tokenId, '/contexts/keys'), {
      token: forged,
      headers: header(ids.badToken),
    });
    expect(refused.status).toBe(401);
    expect((await call(base, `/no/such/path?token=${searched}`, { headers: header(ids.unknown) })).status).toBe(404);
    const init = await call(base, '/auth/jwt/init', {
      method: 'POST',
      json: { wallet: 'not-a-wallet', chainId: 80002 },
      headers: header(ids.login),
    });
    expect(init.status).toBe(400);

    const line = (id: string) => requestLineOf(logOf('worker'), id);
    expect(await line(ids.health)).toEqual({
      level: 'info',
      event: 'request',
      requestId: ids.health,
      method: 'GET',
      route: '/health',
      status: 200,
      durationMs: expect.any(Number),
      chainId: 80002,
      agent: null,
      credential: 'none',
    });
    expect(await line(ids.list)).toMatchObject({ method: 'GET', route: `${AGENT}/contexts/keys`, status: 200, agent, credential: 'jwt' });
    expect(await line(ids.append)).toMatchObject({
      method: 'POST',
      route: `${AGENT}/context/:contextKey/messages`,
      status: 200,
      agent,
      credential: 'jwt',
    });
    expect(await line(ids.keyed)).toMatchObject({ route: `${AGENT}/contexts/keys`, status: 200, agent, credential: 'agent_key' });
    expect(await line(ids.badToken)).toMatchObject({ route: `${AGENT}/contexts/keys`, status: 401, agent, credential: 'jwt' });
    expect(await line(ids.unknown)).toMatchObject({ route: null, status: 404, agent: null, credential: 'none' });
    expect(await line(ids.login)).toMatchObject({ method: 'POST', route: '/auth/jwt/init', status: 400, credential: 'none' });

    const text = await readFile(logOf('worker'), 'utf8');
    for (const secret of [who.token, forged, key.key, API_KEY, contextKey, searched, body]) expect(text).not.toContain(secret);
    // One line per request: each of ours exactly once.
    const lines = requestLines(text);
    for (const id of Object.values(ids)) expect(lines.filter((l) => l.requestId === id)).toHaveLength(1);
  });

  it('a 5xx is an error line beside the error line of its cause, which keeps its shape', async () => {
    const who = await replyAgent(worker.deployment, API_KEY);
    const id = rid('llm-down');
    const marker = cases.scripted(() => ({ status: 500 }));
    const res = await who.reply({ message: `hello ${marker}` }, { headers: { 'x-request-id': id } });
    expect(res.status).toBe(502);
    expect(await requestLineOf(logOf('worker'), id)).toMatchObject({
      level: 'error',
      status: 502,
      route: `${AGENT}/context/:contextKey/reply`,
    });
    const causes = (await readFile(logOf('worker'), 'utf8'))
      .split('\n')
      .filter((l) => l.includes(`"requestId":"${id}"`) && !l.includes('"event":"request"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(causes).toEqual([{ level: 'error', requestId: id, code: 'llm_unavailable', reason: expect.any(String) }]);
  });

  it('a streamed reply is logged when its stream ends, with the time up to then', async () => {
    const who = await replyAgent(worker.deployment, API_KEY);
    const id = rid('streamed');
    // Ten words 100 ms apart: the headers go out at once, the stream ends about a second later.
    const marker = cases.scripted(() => ({ text: Array.from({ length: 10 }, (_, i) => `word${i}`).join(' '), chunkDelayMs: 100 }));
    const started = Date.now();
    const res = await who.reply({ message: `hello there ${marker}` }, { headers: { accept: 'text/event-stream', 'x-request-id': id } });
    const elapsed = Date.now() - started;
    expect(res.status).toBe(200);
    expect(parseSse(res.text).at(-1)?.event).toBe('done');
    const line = await requestLineOf(logOf('worker'), id);
    expect(line).toMatchObject({ status: 200, route: `${AGENT}/context/:contextKey/reply`, streamed: true, credential: 'jwt' });
    expect(line.durationMs).toBeGreaterThanOrEqual(900);
    expect(line.durationMs).toBeLessThanOrEqual(elapsed);
  });

  it('a streamed reply whose client hangs up is logged when the stream is cancelled', async () => {
    const who = await replyAgent(worker.deployment, API_KEY);
    const id = rid('hung-up');
    const marker = cases.scripted(() => ({ text: Array.from({ length: 100 }, (_, i) => `word${i}`).join(' '), chunkDelayMs: 200 }));
    const hangUp = new AbortController();
    const res = await fetch(`${worker.deployment.baseUrl}${agentPath(who.collection, who.tokenId, `/context/${seg('chat')}/reply`)}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        authorization: `Bearer ${who.token}`,
        'x-request-id': id,
      },
      body: JSON.stringify({ message: `a long story ${marker}` }),
      signal: hangUp.signal,
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('event: delta')) text += new TextDecoder().decode((await reader.read()).value);
    hangUp.abort();
    expect(await requestLineOf(logOf('worker'), id, 10_000)).toMatchObject({ status: 200, streamed: true });
  });
});

/** The spans of the reply request `id`, by name. */
async function replySpans(id: string): Promise<{ invocation: Invocation; byName: (name: string) => TracedSpan[] }> {
  const invocation = await collector.invocationWith(id);
  return { invocation, byName: (name) => invocation.spans.filter((s) => s.name === name) };
}

/** A reply that calls the `echo` tool once (the stand-in's default for "use tool echo ..."), then answers. */
async function replyWithToolCall(deployment: typeof worker.deployment, words: string) {
  const who = await replyAgent(deployment, API_KEY);
  const reg = await who.call('/mcp/connection', {
    method: 'POST',
    json: { url: toolServerUrl('tools', tools.url), auth: { type: 'none' } },
  });
  expect(reg.status, reg.text).toBe(200);
  const id = rid('reply');
  const res = await who.reply({ message: `please use tool echo ${words}` }, { headers: { 'x-request-id': id } });
  expect(res.status, res.text).toBe(200);
  expect(res.body.steps).toEqual([expect.objectContaining({ tool: 'echo', isError: false })]);
  return { id, answer: res.body as { reply: { message: string }; usage: { inputTokens: number; outputTokens: number } } };
}

describe('the reply spans', () => {
  it('invoke_agent holds a chat span per model call and an execute_tool span per tool call, with the GenAI attributes and no message text', async () => {
    const words = `words-${crypto.randomUUID()}`;
    const { id, answer } = await replyWithToolCall(worker.deployment, words);
    const { invocation, byName } = await replySpans(id);
    const [agentSpan] = byName('invoke_agent');
    expect(agentSpan, JSON.stringify(invocation.spans.map((s) => s.name))).toBeDefined();
    expect(agentSpan!.closed).toBe(true);
    expect(agentSpan!.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': 'openai-compatible',
      'gen_ai.request.model': 'stand-in',
      'gen_ai.conversation.id': 'chat',
      'gen_ai.usage.input_tokens': answer.usage.inputTokens,
      'gen_ai.usage.output_tokens': answer.usage.outputTokens,
      'gen_ai.response.finish_reasons': 'stop',
    });

    const chats = byName('chat stand-in');
    expect(chats).toHaveLength(2);
    for (const chat of chats) {
      expect(chat.parentId).toBe(agentSpan!.id);
      expect(chat.closed).toBe(true);
      expect(chat.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai-compatible',
        'gen_ai.request.model': 'stand-in',
        'gen_ai.conversation.id': 'chat',
        'gen_ai.response.model': 'stand-in',
      });
    }
    expect(chats.map((c) => c.attributes['gen_ai.response.finish_reasons'])).toEqual(['tool-calls', 'stop']);
    // Each call's own usage, as the provider reported it: together, the reply's.
    const sum = (name: string) => chats.reduce((n, c) => n + Number(c.attributes[name]), 0);
    expect(sum('gen_ai.usage.input_tokens')).toBe(answer.usage.inputTokens);
    expect(sum('gen_ai.usage.output_tokens')).toBe(answer.usage.outputTokens);

    const [toolSpan] = byName('execute_tool echo');
    expect(toolSpan?.parentId).toBe(agentSpan!.id);
    expect(toolSpan?.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'echo',
      'gen_ai.tool.call.id': expect.any(String),
      'gen_ai.conversation.id': 'chat',
    });

    // The runtime's own span of each model call's fetch nests under its chat span.
    for (const chat of chats) expect(invocation.spans.filter((s) => s.parentId === chat.id).map((s) => s.name)).toEqual(['fetch']);

    const everything = JSON.stringify(invocation.spans);
    for (const text of [words, answer.reply.message]) expect(everything).not.toContain(text);
    for (const name of ['gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.tool.call.arguments', 'gen_ai.tool.call.result']) {
      expect(everything).not.toContain(name);
    }
  });

  it('carries message text only with TRACE_MESSAGE_TEXT=1: the call messages, the answers, the tool arguments and result', async () => {
    const words = `words-${crypto.randomUUID()}`;
    const { id, answer } = await replyWithToolCall(textWorker.deployment, words);
    const { byName } = await replySpans(id);
    const [first, second] = byName('chat stand-in');
    expect(String(first?.attributes['gen_ai.input.messages'])).toContain(`please use tool echo ${words}`);
    expect(JSON.parse(String(first?.attributes['gen_ai.output.messages']))).toEqual([
      {
        role: 'assistant',
        parts: [{ type: 'tool_call', id: expect.any(String), name: 'echo', arguments: JSON.stringify({ text: words }) }],
        finish_reason: 'tool-calls',
      },
    ]);
    expect(String(second?.attributes['gen_ai.input.messages'])).toContain(`echo: ${words}`);
    expect(String(second?.attributes['gen_ai.output.messages'])).toContain(JSON.stringify(answer.reply.message).slice(1, -1));
    const [toolSpan] = byName('execute_tool echo');
    expect(JSON.parse(String(toolSpan?.attributes['gen_ai.tool.call.arguments']))).toEqual({ text: words });
    expect(toolSpan?.attributes['gen_ai.tool.call.result']).toBe(`echo: ${words}`);
    expect(String(byName('invoke_agent')[0]?.attributes['gen_ai.output.messages'])).toContain(
      JSON.stringify(answer.reply.message).slice(1, -1),
    );
  });
});
