/**
 * What a hostile owner, caller or model can make a reply's prompt and remembered answer do
 * (docs/replies.md): the rendered system prompt is capped at 256 KiB, counted
 * before it is built, and a refused request stores nothing; a stranger's variables are never
 * rendered; a tool call whose arguments hold NUL or a lone surrogate still gives an answer that
 * is remembered, so an idempotent retry replays it instead of calling (and billing) the model again.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type StandinLlm, startStandinLlm } from '../../scripts/lib/standin-llm';
import { storableJson } from '../../src/encoding/storable-json';
import { seg } from '../support/agent';
import { newWallet } from '../support/chain';
import { call, expectError } from '../support/http';
import { agentPath, login } from '../support/login';
import { parseSse, replyAgent, replyWorker, scriptedCases, startSwitchableTools } from '../support/replies';
import { toolServerUrl } from '../support/tool-routing';

const stack = inject('stack');
const API_KEY = `sk-standin-${crypto.randomUUID()}`;
const cases = scriptedCases();
const { scripted } = cases;
let llm: StandinLlm;
let tools: Awaited<ReturnType<typeof startSwitchableTools>>;
let worker: Awaited<ReturnType<typeof replyWorker>>;

const requestsWith = (marker: string) => llm.completions().filter((r) => JSON.stringify(r.body.messages).includes(marker));

beforeAll(async () => {
  [llm, tools] = await Promise.all([
    startStandinLlm({
      apiKey: API_KEY,
      script: cases.script,
    }),
    startSwitchableTools(),
  ]);
  worker = await replyWorker(stack, llm, { tools: tools.url });
});

afterAll(async () => {
  await worker?.dispose();
  await Promise.all([llm?.close(), tools?.close()]);
});

const agent = () => replyAgent(worker.deployment, API_KEY);
type ReplyAgent = Awaited<ReturnType<typeof agent>>;
const messagesOf = async (who: ReplyAgent) =>
  (await who.call(`/context/${seg('chat')}/messages`)).body.messages as { role: string; message: string }[];

const KIB = 1024;
/** The review's template: 64 KiB of `{{a}}` (13,000 placeholders, 65,000 bytes). */
const REPEATING = '{{a}}'.repeat(13_000);
const BIG = 'x'.repeat(64 * KIB);

describe('the rendered system prompt', () => {
  it('13,000 placeholders of a 64 KiB variable: 400 prompt_too_large, nothing stored, the model not called', async () => {
    const who = await agent();
    const saved = await who.call('/prompt-template/repeating', { method: 'POST', json: { template: REPEATING } });
    expect(saved.status, saved.text).toBe(200);
    const marker = `too large ${crypto.randomUUID()}`;
    const headers = { 'idempotency-key': crypto.randomUUID() };
    const res = await who.reply({ message: marker, promptTemplateKey: 'repeating', variables: { a: BIG } }, { headers });
    expectError(res, 400, 'prompt_too_large');
    expect(res.body.error.details).toEqual({ bytes: 13_000 * 64 * KIB, maxBytes: 256 * KIB });
    expect(requestsWith(marker)).toHaveLength(0);
    expect(await messagesOf(who)).toEqual([]);
    // Nothing was remembered under the key either: the same key with variables that fit runs afresh.
    const fits = await who.reply({ message: marker, promptTemplateKey: 'repeating', variables: { a: 'y' } }, { headers });
    expect(fits.status, fits.text).toBe(200);
    expect(fits.headers.get('idempotent-replayed')).toBeNull();
    expect((await messagesOf(who)).map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  it('a prompt one byte under 256 KiB is rendered and sent whole', async () => {
    const who = await agent();
    const template = 'Know this: {{a}}{{a}}{{a}}{{a}}';
    await who.call('/prompt-template/default', { method: 'POST', json: { template } });
    const value = 'z'.repeat(65_533); // 11 + 4 x 65,533 = 262,143 bytes
    const marker = `just under ${crypto.randomUUID()}`;
    const res = await who.reply({ message: marker, variables: { a: value } });
    expect(res.status, res.text).toBe(200);
    const system = requestsWith(marker)[0]?.body.messages?.[0];
    expect(system?.role).toBe('system');
    expect(system?.content).toBe(`Know this: ${value.repeat(4)}`);
    expect(String(system?.content).length).toBe(256 * KIB - 1);
  });

  it("a stranger's request with the same variables: 403 not_owner, nothing stored, the model not called", async () => {
    const who = await agent();
    await who.call('/prompt-template/repeating', { method: 'POST', json: { template: REPEATING } });
    const stranger = await login(worker.deployment, newWallet());
    const marker = `stranger ${crypto.randomUUID()}`;
    const res = await call(worker.url, agentPath(who.collection, who.tokenId, `/context/${seg('chat')}/reply`), {
      method: 'POST',
      token: stranger,
      json: { message: marker, promptTemplateKey: 'repeating', variables: { a: BIG } },
      headers: { 'idempotency-key': crypto.randomUUID() },
    });
    expectError(res, 403, 'not_owner');
    expect(requestsWith(marker)).toHaveLength(0);
    expect(await messagesOf(who)).toEqual([]);
  });
});

describe('a tool call whose arguments hold NUL and a lone surrogate', () => {
  const ARGS = { text: 'nul \u0000 lone \ud800 end', 'key\u0000': 'low \udc00' };
  const STORED = { text: 'nul \uFFFD lone \uFFFD end', 'key\uFFFD': 'low \uFFFD' };

  async function withTools(): Promise<{ who: ReplyAgent; connectionId: string }> {
    tools.state.mode = 'good';
    const who = await agent();
    const reg = await who.call('/mcp/connection', {
      method: 'POST',
      json: { url: toolServerUrl('tools', tools.url), auth: { type: 'none' } },
    });
    expect(reg.status, reg.text).toBe(200);
    return { who, connectionId: reg.body.id };
  }

  /** The model calls echo with ARGS, then answers the tool's result (the stand-in's default). */
  const callsEchoOnce = () =>
    scripted((req) => (req.body.messages?.at(-1)?.role === 'tool' ? undefined : { toolCalls: [{ name: 'echo', arguments: ARGS }] }));

  it('answers 200 and remembers it: a retry with the same key is replayed, the model called once in all', async () => {
    const { who, connectionId } = await withTools();
    const marker = callsEchoOnce();
    const headers = { 'idempotency-key': crypto.randomUUID() };
    const first = await who.reply({ message: `go ${marker}` }, { headers });
    expect(first.status, first.text).toBe(200);
    expect(first.body.steps).toEqual([expect.objectContaining({ tool: 'echo', connectionId, arguments: STORED })]);
    const modelCalls = requestsWith(marker).length;
    expect(modelCalls).toBe(2); // the tool call, then the answer: one reply
    const retry = await who.reply({ message: `go ${marker}` }, { headers });
    expect(retry.status, retry.text).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect(requestsWith(marker)).toHaveLength(modelCalls);
    const stored = await messagesOf(who);
    expect(stored.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(stored[1]?.message).toBe(first.body.reply.message);
  });

  it('streams: tool_call shows the arguments as the model sent them, done the answer as remembered, and a retry replays it', async () => {
    const { who } = await withTools();
    const marker = callsEchoOnce();
    const headers = { 'idempotency-key': crypto.randomUUID(), accept: 'text/event-stream' };
    const res = await who.reply({ message: `go ${marker}` }, { headers });
    expect(res.status).toBe(200);
    const events = parseSse(res.text);
    expect(events.map((e) => e.event).filter((e) => e !== 'delta')).toEqual(['tool_call', 'tool_result', 'done']);
    const toolCall = events.find((e) => e.event === 'tool_call')?.data;
    expect(toolCall.arguments).toEqual(ARGS);
    const done = events.at(-1)?.data;
    expect(done.steps[0].arguments).toEqual(storableJson(toolCall.arguments));
    const retry = await who.reply({ message: `go ${marker}` }, { headers });
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(parseSse(retry.text)).toEqual([{ event: 'done', data: done }]);
    expect(requestsWith(marker)).toHaveLength(2);
    expect((await messagesOf(who)).map((m) => m.role)).toEqual(['user', 'assistant']);
  });
});
