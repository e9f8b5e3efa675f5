/**
 * Agent replies against the stand-in model (scripts/lib/standin-llm.ts) behind
 * `https://llm.tools.example` and a tool server behind `https://tools.tools.example`, production's
 * outbound policy on: the JSON answer and the stream, idempotent retries, tools (success, failing
 * upstream, unknown), every model fault, and the refusals that must not reach the model.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type StandinLlm, type StandinReply, startStandinLlm } from '../../scripts/lib/standin-llm';
import { freshAgent, seg } from '../support/agent';
import { newWallet, transferFreshAgent } from '../support/chain';
import { call, expectError } from '../support/http';
import { agentPath, login } from '../support/login';
import { toolServerUrl } from '../support/tool-routing';
import { parseSse, replyAgent, replyWorker, scriptedCases, startSwitchableTools } from '../support/replies';

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

const agent = (settings?: Record<string, unknown>) => replyAgent(worker.deployment, API_KEY, settings);
const messagesOf = async (who: Awaited<ReturnType<typeof agent>>) =>
  (await who.call(`/context/${seg('chat')}/messages`)).body.messages as { role: string; message: string }[];

describe('a reply', () => {
  it('answers JSON: the template as system message, the key as Bearer, the reply stored as one assistant message', async () => {
    const who = await agent();
    const tpl = await who.call('/prompt-template/default', { method: 'POST', json: { template: 'You help {{customer}}.' } });
    expect(tpl.status).toBe(200);
    const marker = `hello ${crypto.randomUUID()}`;
    const res = await who.reply({ message: marker, variables: { customer: 'ACME' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.reply).toMatchObject({ role: 'assistant', message: `stand-in model: you said: ${marker}` });
    expect(res.body.finishReason).toBe('stop');
    expect(res.body.steps).toEqual([]);
    expect(res.body.usage.inputTokens).toBeGreaterThan(0);
    const [seen] = requestsWith(marker);
    expect(seen?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(seen?.body.messages?.[0]).toMatchObject({ role: 'system', content: 'You help ACME.' });
    expect(await messagesOf(who)).toEqual([
      expect.objectContaining({ role: 'user', message: marker }),
      expect.objectContaining({ role: 'assistant', message: res.body.reply.message }),
    ]);
  });

  it('streams delta events and ends with done, sent after the reply is stored', async () => {
    const who = await agent();
    const res = await who.reply({ message: 'tell me a story please' }, { headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const events = parseSse(res.text);
    expect(events.at(-1)?.event).toBe('done');
    const deltas = events.filter((e) => e.event === 'delta');
    expect(deltas.length).toBeGreaterThan(3);
    const done = events.at(-1)?.data;
    expect(deltas.map((e) => e.data.text).join('')).toBe(done.reply.message);
    expect((await messagesOf(who)).at(-1)).toMatchObject({ id: done.reply.id, role: 'assistant' });
  });

  it('a retry with the same Idempotency-Key returns the first answer and never calls the model again', async () => {
    const who = await agent();
    const marker = `once ${crypto.randomUUID()}`;
    const headers = { 'idempotency-key': crypto.randomUUID() };
    const first = await who.reply({ message: marker }, { headers });
    const second = await who.reply({ message: marker }, { headers });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(requestsWith(marker)).toHaveLength(1);
    expect(await messagesOf(who)).toHaveLength(2);
    expectError(await who.reply({ message: `${marker} changed` }, { headers }), 400, 'idempotency_key_reused');
  });

  it('a retry after a failed reply stores the message once, and the model reads it once', async () => {
    const who = await agent();
    let calls = 0;
    const marker = scripted(() => (++calls === 1 ? { status: 500 } : { text: 'stand-in model: second time lucky' }));
    const headers = { 'idempotency-key': crypto.randomUUID() };
    expectError(await who.reply({ message: marker }, { headers }), 502, 'llm_unavailable');
    const retry = await who.reply({ message: marker }, { headers });
    expect(retry.status, retry.text).toBe(200);
    const seen = requestsWith(marker);
    expect(seen).toHaveLength(2);
    expect(seen[1]?.body.messages?.filter((m) => JSON.stringify(m).includes(marker))).toHaveLength(1);
    expect((await messagesOf(who)).map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  it('answers 404 context_not_found for a missing context, and the model hears nothing', async () => {
    const who = await agent();
    const before = llm.completions().length;
    expectError(await who.call('/context/nope-nope/reply', { method: 'POST', json: { message: 'hi there' } }), 404, 'context_not_found');
    expect(llm.completions().length).toBe(before);
  });
});

describe('tools', () => {
  it('calls a tool through the tool server and reads its result; the stream shows tool_call then tool_result', async () => {
    tools.state.mode = 'good';
    const who = await agent();
    const reg = await who.call('/mcp/connection', {
      method: 'POST',
      json: { url: toolServerUrl('tools', tools.url), auth: { type: 'none' } },
    });
    expect(reg.status, reg.text).toBe(200);
    const res = await who.reply({ message: 'please use tool echo hello' }, { headers: { accept: 'text/event-stream' } });
    const events = parseSse(res.text);
    expect(events.map((e) => e.event).filter((e) => e !== 'delta')).toEqual(['tool_call', 'tool_result', 'done']);
    expect(events[0]?.data).toEqual({ tool: 'echo', connectionId: reg.body.id, arguments: { text: 'hello' } });
    expect(events[1]?.data).toMatchObject({ tool: 'echo', isError: false, content: 'echo: hello' });
    const done = events.at(-1)?.data;
    expect(done.steps).toEqual([
      expect.objectContaining({ tool: 'echo', connectionId: reg.body.id, arguments: { text: 'hello' }, isError: false }),
    ]);
    expect(done.reply.message).toBe('stand-in model: echo answered: echo: hello');
  });

  it.each(['401', '424', '500'] as const)(
    'a tool failing upstream with %s is an error result the model reads, not a failed reply',
    async (mode) => {
      tools.state.mode = 'good';
      const who = await agent();
      const reg = await who.call('/mcp/connection', {
        method: 'POST',
        json: { url: toolServerUrl('tools', tools.url), auth: { type: 'none' } },
      });
      expect(reg.status, reg.text).toBe(200);
      tools.state.mode = mode;
      const marker = `use tool echo ${crypto.randomUUID()}`;
      const res = await who.reply({ message: marker });
      tools.state.mode = 'good';
      expect(res.status, res.text).toBe(200);
      expect(res.body.steps).toEqual([expect.objectContaining({ tool: 'echo', isError: true, upstreamStatus: Number(mode) })]);
      expect(res.body.reply.message).toContain(`HTTP ${mode}`);
      const followUp = requestsWith(marker).at(-1)?.body.messages?.at(-1);
      expect(followUp?.role).toBe('tool');
    },
  );

  it('a call of a tool the agent does not have is an error result, listed with connectionId null', async () => {
    const who = await agent();
    let turn = 0;
    const marker = scripted(() => (turn++ === 0 ? { toolCalls: [{ name: 'rm_rf', arguments: {} }] } : { text: 'stand-in model: fine' }));
    const res = await who.reply({ message: `do it ${marker}` });
    expect(res.status, res.text).toBe(200);
    expect(res.body.steps).toEqual([expect.objectContaining({ tool: 'rm_rf', connectionId: null, isError: true })]);
    expect(res.body.reply.message).toBe('stand-in model: fine');
  });
});

describe('model faults', () => {
  it.each([
    ['401', 424, 'llm_credential_rejected', { status: 401 }],
    ['429', 503, 'llm_rate_limited', { status: 429, headers: { 'retry-after': '7' } }],
    ['500', 502, 'llm_unavailable', { status: 500 }],
    ['a slow answer', 504, 'llm_timeout', { text: 'late', delayMs: 3_000 }],
  ] as const)('provider %s -> %i %s; the message stays and no assistant message is stored', async (_, status, code, reply) => {
    const who = await agent();
    const marker = scripted(() => reply as StandinReply);
    const res = await who.reply({ message: `fault ${marker}` });
    expectError(res, status, code);
    if (code === 'llm_rate_limited') expect(res.headers.get('retry-after')).toBe('7');
    expect(await messagesOf(who)).toEqual([expect.objectContaining({ role: 'user' })]);
    expect(requestsWith(marker)).toHaveLength(1);
  });

  it('an unreachable provider is 502 llm_unavailable; a stream says so in an error event', async () => {
    const who = await agent({ baseUrl: 'https://down.tools.example/v1' });
    expectError(await who.reply({ message: 'anyone there?' }), 502, 'llm_unavailable');
    const streamed = await who.reply({ message: 'anyone there?' }, { headers: { accept: 'text/event-stream' } });
    const events = parseSse(streamed.text);
    expect(events.at(-1)).toMatchObject({ event: 'error', data: { error: { code: 'llm_unavailable' } } });
    expect((await messagesOf(who)).map((m) => m.role)).toEqual(['user', 'user']);
  });
});

describe('refusals before the model', () => {
  it('no LLM settings: 409 llm_not_configured, nothing stored', async () => {
    const who = await freshAgent(worker.deployment);
    await who.call('/context', { method: 'POST', json: { key: 'chat' } });
    expectError(await who.call('/context/chat/reply', { method: 'POST', json: { message: 'hello there' } }), 409, 'llm_not_configured');
    expect((await who.call('/context/chat/messages')).body.messages).toEqual([]);
  });

  it('a missing template variable: 400 prompt_variable_missing and the model is not called', async () => {
    const who = await agent();
    await who.call('/prompt-template/persona', { method: 'POST', json: { template: 'You are {{name}} for {{customer}}.' } });
    const marker = `vars ${crypto.randomUUID()}`;
    const res = await who.reply({ message: marker, promptTemplateKey: 'persona', variables: { name: 'Ada' } });
    expectError(res, 400, 'prompt_variable_missing');
    expect(res.body.error.details.missing).toEqual(['customer']);
    expect(requestsWith(marker)).toHaveLength(0);
    expectError(await who.reply({ message: marker, promptTemplateKey: 'absent' }), 404, 'prompt_template_not_found');
  });

  it('a stranger: 403 not_owner and the model hears nothing', async () => {
    const who = await agent();
    const stranger = await login(worker.deployment, newWallet());
    const marker = `stranger ${crypto.randomUUID()}`;
    const res = await call(worker.url, agentPath(who.collection, who.tokenId, '/context/chat/reply'), {
      method: 'POST',
      token: stranger,
      json: { message: marker },
    });
    expectError(res, 403, 'not_owner');
    expect(requestsWith(marker)).toHaveLength(0);
    expect(await messagesOf(who)).toEqual([]);
  });

  it("a sold agent: the seller's LLM key is never used for the buyer (409)", async () => {
    const seller = await agent();
    const buyer = newWallet();
    await transferFreshAgent(worker.deployment, seller.owner, buyer.address, seller.tokenId);
    const token = await login(worker.deployment, buyer);
    const marker = `buyer ${crypto.randomUUID()}`;
    const res = await call(worker.url, agentPath(seller.collection, seller.tokenId, '/context/chat/reply'), {
      method: 'POST',
      token,
      json: { message: marker },
    });
    expectError(res, 409, 'credential_reentry_required');
    expect(requestsWith(marker)).toHaveLength(0);
  });

  it('one reply at a time per context: a second one meanwhile is 409 reply_in_progress', async () => {
    const who = await agent();
    const marker = scripted(() => ({ text: 'stand-in model: slow but fine', delayMs: 800 }));
    const [a, b] = await Promise.all([
      who.reply({ message: `first ${marker}` }),
      new Promise((r) => setTimeout(r, 300)).then(() => who.reply({ message: 'second one' })),
    ]);
    expect(a.status, a.text).toBe(200);
    expectError(b, 409, 'reply_in_progress');
    expect((await who.reply({ message: 'third one' })).status).toBe(200);
  });
});
