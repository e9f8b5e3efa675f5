/**
 * POST /agent/{c}/{t}/v1/chat/completions against the real worker, Postgres, anvil and
 * the stand-in model, driven by the clients people use unchanged: the official `openai` client
 * and the AI SDK's `@ai-sdk/openai-compatible` provider, streamed and not. The `user` field names
 * the context (created on first use, readable with the REST read); the rest of `messages` is
 * neither stored nor sent; the gateway's errors surface as the openai client's typed errors.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, streamText } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { STANDIN_PREFIX, type StandinLlm, startStandinLlm } from '../../scripts/lib/standin-llm';
import { freshAgent, seg, type TestAgent } from '../support/agent';
import { createKey } from '../support/agent-keys';
import { call, expectError } from '../support/http';
import { agentPath } from '../support/login';
import { replyAgent, replyWorker, scriptedCases, startSwitchableTools } from '../support/replies';
import { toolServerUrl } from '../support/tool-routing';

const stack = inject('stack');
const API_KEY = `sk-standin-${crypto.randomUUID()}`;
const cases = scriptedCases();
let llm: StandinLlm;
let tools: Awaited<ReturnType<typeof startSwitchableTools>>;
let worker: Awaited<ReturnType<typeof replyWorker>>;

beforeAll(async () => {
  [llm, tools] = await Promise.all([startStandinLlm({ apiKey: API_KEY, script: cases.script }), startSwitchableTools()]);
  worker = await replyWorker(stack, llm, { tools: tools.url });
});

afterAll(async () => {
  await worker?.dispose();
  await Promise.all([llm?.close(), tools?.close()]);
});

/** The base URL an OpenAI client is given for this agent. */
const baseURL = (agent: TestAgent) => `${worker.url}${agentPath(agent.collection, agent.tokenId, '/v1')}`;

/** The official client on the agent, with `apiKey` (an agent key or the owner's token); no retries unless asked. */
function openai(agent: TestAgent, apiKey: string, options: { maxRetries?: number; fetch?: typeof fetch } = {}) {
  return new OpenAI({ baseURL: baseURL(agent), apiKey, maxRetries: options.maxRetries ?? 0, fetch: options.fetch });
}

/** The messages of a context, as the owner reads them with the REST read. */
async function stored(agent: TestAgent, key: string): Promise<{ role: string; message: string }[]> {
  const res = await agent.call(`/context/${seg(key)}/messages`);
  expect(res.status, res.text).toBe(200);
  return res.body.messages.map((m: { role: string; message: string }) => ({ role: m.role, message: m.message }));
}

/** Whatever the openai client threw. */
async function thrown(work: Promise<unknown>): Promise<unknown> {
  return work.then(
    () => {
      throw new Error('expected a refusal');
    },
    (err: unknown) => err,
  );
}

describe('the openai client', () => {
  it('answers as a chat.completion in the context `user` names: the last user message stored with the reply, the rest neither stored nor sent, usage reported', async () => {
    const agent = await replyAgent(worker.deployment, API_KEY);
    const key = await createKey(agent, ['reply']);
    const client = openai(agent, key.key);
    const before = llm.completions().length;
    const completion = await client.chat.completions.create({
      model: 'gpt-whatever',
      user: 'support/alice',
      messages: [
        { role: 'system', content: 'a system prompt the client sends' },
        { role: 'user', content: 'an earlier question the client remembers' },
        { role: 'assistant', content: 'an earlier answer the client remembers' },
        { role: 'user', content: 'hello agent' },
      ],
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(completion.model).toBe('stand-in');
    expect(Math.abs(completion.created - Date.now() / 1000)).toBeLessThan(60);
    const text = `${STANDIN_PREFIX} you said: hello agent`;
    expect(completion.choices).toHaveLength(1);
    expect(completion.choices[0]?.message).toMatchObject({ role: 'assistant', content: text });
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    const usage = completion.usage;
    expect(usage?.prompt_tokens).toBeGreaterThan(0);
    expect(usage?.completion_tokens).toBeGreaterThan(0);
    expect(usage?.total_tokens).toBe((usage?.prompt_tokens ?? 0) + (usage?.completion_tokens ?? 0));

    expect(await stored(agent, 'support/alice')).toEqual([
      { role: 'user', message: 'hello agent' },
      { role: 'assistant', message: text },
    ]);
    const sent = JSON.stringify(
      llm
        .completions()
        .slice(before)
        .map((r) => r.body.messages),
    );
    expect(sent).toContain('hello agent');
    expect(sent).not.toContain('the client remembers');
    expect(sent).not.toContain('a system prompt the client sends');
    // The usage report counts the reply for the key, in that context.
    const report = await agent.call('/usage?groupBy=context');
    expect(report.body.groups).toEqual([
      expect.objectContaining({ contextKey: 'support/alice', inputTokens: usage?.prompt_tokens, outputTokens: usage?.completion_tokens }),
    ]);
  });

  it('streams chat.completion.chunks with deltas, a finish_reason, a usage chunk and [DONE]; the agent remembers the conversation', async () => {
    const agent = await replyAgent(worker.deployment, API_KEY);
    const key = await createKey(agent, ['reply']);
    const client = openai(agent, key.key);
    await client.chat.completions.create({ model: 'x', user: 'streamed', messages: [{ role: 'user', content: 'my name is Ada' }] });
    const before = llm.completions().length;
    const stream = await client.chat.completions.create({
      model: 'x',
      user: 'streamed',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: [{ type: 'text', text: 'what is my name?' }] }],
    });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === 'stand-in' && c.id === chunks[0]?.id)).toBe(true);
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe(`${STANDIN_PREFIX} you said: what is my name?`);
    // More than one delta: the stand-in writes a word at a time.
    expect(chunks.filter((c) => c.choices[0]?.delta.content).length).toBeGreaterThan(2);
    const reasons = chunks.map((c) => c.choices[0]?.finish_reason).filter(Boolean);
    expect(reasons).toEqual(['stop']);
    const last = chunks.at(-1);
    expect(last?.choices).toEqual([]);
    expect(last?.usage?.total_tokens).toBe((last?.usage?.prompt_tokens ?? 0) + (last?.usage?.completion_tokens ?? 0));
    expect(last?.usage?.prompt_tokens).toBeGreaterThan(0);
    // The agent's own memory stood in for the conversation: the first exchange was sent again.
    expect(JSON.stringify(llm.completions().slice(before)[0]?.body.messages)).toContain('my name is Ada');
    expect((await stored(agent, 'streamed')).map((m) => m.message)).toEqual([
      'my name is Ada',
      `${STANDIN_PREFIX} you said: my name is Ada`,
      'what is my name?',
      text,
    ]);
  });

  it('streams whatever the Accept header, ends with data: [DONE], and keeps the tool calls inside', async () => {
    const agent = await replyAgent(worker.deployment, API_KEY);
    const reg = await agent.call('/mcp/connection', {
      method: 'POST',
      json: { url: toolServerUrl('tools', tools.url), auth: { type: 'none' } },
    });
    expect(reg.status, reg.text).toBe(200);
    const res = await fetch(`${baseURL(agent)}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agent.token}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ model: 'x', stream: true, messages: [{ role: 'user', content: 'please use tool echo hello' }] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const events = (await res.text()).split('\n\n').filter((b) => b.trim());
    expect(events.at(-1)).toBe('data: [DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.replace(/^data: /, '')));
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe(`${STANDIN_PREFIX} echo answered: echo: hello`);
    expect(JSON.stringify(chunks)).not.toContain('tool_call');
    // No `user`: the owner's token talks in `openai/{wallet}`, created on first use.
    expect(await stored(agent, `openai/${agent.owner.address}`)).toEqual([
      { role: 'user', message: 'please use tool echo hello' },
      { role: 'assistant', message: text },
    ]);
  });

  it('without `user`, an agent key talks in openai/{keyId}', async () => {
    const agent = await replyAgent(worker.deployment, API_KEY);
    const key = await createKey(agent, ['reply']);
    const completion = await openai(agent, key.key).chat.completions.create({
      model: 'x',
      messages: [{ role: 'user', content: 'hi there' }],
    });
    expect((await stored(agent, `openai/${key.id}`)).map((m) => m.message)).toEqual(['hi there', completion.choices[0]?.message.content]);
  });
});

describe('Idempotency-Key', () => {
  it('a retry with the same key returns the first answer, JSON or streamed, without calling the model or storing the message again', async () => {
    const agent = await replyAgent(worker.deployment, API_KEY);
    const key = await createKey(agent, ['reply']);
    const client = openai(agent, key.key);
    const request = { model: 'x', user: 'retried', messages: [{ role: 'user' as const, content: 'only once please' }] };
    const headers = { 'Idempotency-Key': `chat-${crypto.randomUUID()}` };
    const first = await client.chat.completions.create(request, { headers }).withResponse();
    expect(first.response.headers.get('idempotent-replayed')).toBeNull();
    const calls = llm.completions().length;

    const again = await client.chat.completions.create(request, { headers }).withResponse();
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect(again.data.choices[0]?.message.content).toBe(first.data.choices[0]?.message.content);
    expect(again.data.usage).toEqual(first.data.usage);
    expect(again.data.model).toBe('stand-in');
    const stream = await client.chat.completions.create({ ...request, stream: true, stream_options: { include_usage: true } }, { headers });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe(first.data.choices[0]?.message.content);
    expect(chunks.at(-1)?.usage).toEqual(first.data.usage);
    expect(llm.completions().length).toBe(calls);
    expect((await stored(agent, 'retried')).map((m) => m.message)).toEqual(['only once please', first.data.choices[0]?.message.content]);

    // The same key for another request: 400 idempotency_key_reused, as on the reply route.
    const reused = await thrown(
      client.chat.completions.create({ ...request, messages: [{ role: 'user', content: 'something else' }] }, { headers }),
    );
    expect(reused).toBeInstanceOf(OpenAI.BadRequestError);
    expect(reused).toMatchObject({ status: 400, code: 'idempotency_key_reused' });
  });
});

describe('the AI SDK openai-compatible provider', () => {
  it('generateText and streamText answer, with usage, in the context `user` names', async () => {
    const agent = await replyAgent(worker.deployment, API_KEY);
    const key = await createKey(agent, ['reply']);
    const provider = createOpenAICompatible({ name: 'agent', baseURL: baseURL(agent), apiKey: key.key, includeUsage: true });
    const providerOptions = { agent: { user: 'ai-sdk' } };
    const generated = await generateText({
      model: provider.chatModel('ignored'),
      prompt: 'hello from generateText',
      providerOptions,
      maxRetries: 0,
    });
    expect(generated.text).toBe(`${STANDIN_PREFIX} you said: hello from generateText`);
    expect(generated.finishReason).toBe('stop');
    expect(generated.usage.inputTokens).toBeGreaterThan(0);
    expect(generated.usage.outputTokens).toBeGreaterThan(0);

    const streamed = streamText({ model: provider.chatModel('ignored'), prompt: 'hello from streamText', providerOptions, maxRetries: 0 });
    let text = '';
    for await (const piece of streamed.textStream) text += piece;
    expect(text).toBe(`${STANDIN_PREFIX} you said: hello from streamText`);
    expect(await streamed.finishReason).toBe('stop');
    const usage = await streamed.usage;
    expect(usage.inputTokens).toBeGreaterThan(0);
    expect(usage.outputTokens).toBeGreaterThan(0);

    expect((await stored(agent, 'ai-sdk')).map((m) => m.message)).toEqual([
      'hello from generateText',
      generated.text,
      'hello from streamText',
      text,
    ]);
  });
});

describe('refusals, as the openai client sees them', () => {
  it('no credential 401; a bad key, a key without `reply`, a stranger: typed errors with our code and message, the model not called', async () => {
    const agent = await replyAgent(worker.deployment, API_KEY);
    const body = { model: 'x', messages: [{ role: 'user' as const, content: 'hello' }] };
    const before = llm.completions().length;
    expectError(
      await call(worker.url, agentPath(agent.collection, agent.tokenId, '/v1/chat/completions'), { method: 'POST', json: body }),
      401,
      'unauthorized',
    );

    // The client's message is ours, after the status: it reads `error.message` of our body.
    const route = agentPath(agent.collection, agent.tokenId, '/v1/chat/completions');
    const ours = async (token: string) => (await call(worker.url, route, { method: 'POST', json: body, token })).body.error.message;
    const bad = await thrown(openai(agent, 'agk_not-a-key').chat.completions.create(body));
    expect(bad).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(bad).toMatchObject({ status: 401, code: 'key_invalid', message: `401 ${await ours('agk_not-a-key')}` });

    const pipeline = await createKey(agent, ['contexts:read', 'contexts:write']);
    const scope = await thrown(openai(agent, pipeline.key).chat.completions.create(body));
    expect(scope).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(scope).toMatchObject({ status: 403, code: 'key_scope_missing', message: `403 ${await ours(pipeline.key)}` });
    expect((scope as InstanceType<typeof OpenAI.APIError>).requestID).toBeTruthy();

    const stranger = await freshAgent(worker.deployment);
    const notOwner = await thrown(openai(agent, stranger.token).chat.completions.create(body));
    expect(notOwner).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(notOwner).toMatchObject({ status: 403, code: 'not_owner', message: '403 You are not the owner of this agent' });
    expect(llm.completions().length).toBe(before);
  });

  it("a key's daily limit: 429 usage_limit_reached, which the client does not retry (x-should-retry: false); nothing stored", async () => {
    const agent = await replyAgent(worker.deployment, API_KEY);
    const key = await createKey(agent, ['reply'], { limits: { tokensPerDay: 10 } });
    const costly = cases.scripted(() => ({ text: 'that took a while', usage: { promptTokens: 8, completionTokens: 4 } }));
    await openai(agent, key.key).chat.completions.create({
      model: 'x',
      user: 'limited',
      messages: [{ role: 'user', content: `one ${costly}` }],
    });
    let requests = 0;
    const counting: typeof fetch = (input, init) => {
      requests++;
      return fetch(input, init);
    };
    const before = llm.completions().length;
    const limited = await thrown(
      openai(agent, key.key, { maxRetries: 2, fetch: counting }).chat.completions.create({
        model: 'x',
        user: 'limited',
        stream: true,
        messages: [{ role: 'user', content: 'two' }],
      }),
    );
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
    expect(limited).toMatchObject({ status: 429, code: 'usage_limit_reached' });
    expect((limited as Error).message).toMatch(/^429 .*limit/i);
    expect((limited as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ details: { limit: 'key', tokensPerDay: 10 } });
    expect((limited as InstanceType<typeof OpenAI.APIError>).headers?.get('retry-after')).toMatch(/^\d+$/);
    expect(requests).toBe(1);
    expect(llm.completions().length).toBe(before);
    expect((await stored(agent, 'limited')).map((m) => m.message)).toEqual([`one ${costly}`, 'that took a while']);
  });

  it('a model that fails: 502 llm_unavailable as a typed error; streamed, an error chunk the client throws as APIError with our code', async () => {
    const agent = await replyAgent(worker.deployment, API_KEY);
    const client = openai(agent, agent.token);
    const failing = cases.scripted(() => ({ status: 500, body: { error: { message: 'the provider is down' } } }));
    const plain = await thrown(
      client.chat.completions.create({ model: 'x', user: 'down', messages: [{ role: 'user', content: `one ${failing}` }] }),
    );
    expect(plain).toBeInstanceOf(OpenAI.InternalServerError);
    expect(plain).toMatchObject({ status: 502, code: 'llm_unavailable' });

    const stream = await client.chat.completions.create({
      model: 'x',
      user: 'down',
      stream: true,
      messages: [{ role: 'user', content: `two ${failing}` }],
    });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    const streamed = await thrown(
      (async () => {
        for await (const chunk of stream) chunks.push(chunk);
      })(),
    );
    expect(streamed).toBeInstanceOf(OpenAI.APIError);
    expect(streamed).toMatchObject({ code: 'llm_unavailable' });
    expect((streamed as Error).message).toContain((plain as Error).message.replace(/^502 /, ''));
    expect(chunks.map((c) => c.choices[0]?.delta.role)).toEqual(['assistant']);
    // The messages stay (the model was called), no reply is stored.
    expect((await stored(agent, 'down')).map((m) => m.role)).toEqual(['user', 'user']);
  });

  it('400 validation_failed: no user message, a user message under 2 characters, a `user` that is not a context key; nothing created', async () => {
    const agent = await replyAgent(worker.deployment, API_KEY);
    const client = openai(agent, agent.token);
    for (const request of [
      { messages: [{ role: 'system' as const, content: 'only a system message' }] },
      { messages: [{ role: 'user' as const, content: 'x' }] },
      { messages: [{ role: 'user' as const, content: 'hello' }], user: 'not a key!' },
    ]) {
      const err = await thrown(client.chat.completions.create({ model: 'x', ...request }));
      expect(err).toBeInstanceOf(OpenAI.BadRequestError);
      expect(err).toMatchObject({ status: 400, code: 'validation_failed' });
    }
    const keys = await agent.call('/contexts/keys');
    expect(keys.body.contextKeys).toEqual(['chat']);
  });
});
