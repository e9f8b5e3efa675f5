/**
 * The agent's reply as users meet it, against the real worker (Miniflare), the stand-in model
 * behind `https://llm.tools.example` and a tool server behind `https://tools.tools.example`
 * (production's outbound policy on): the typed client's `reply` (JSON, idempotent replay) and
 * `replyStream` (typed events, a refusal thrown before the stream, a model fault as an `error`
 * event), and `agent-gateway chat` spawned as users run it: one-shot with a tool call shown as
 * it happens, `--json`, failures with their code and exit 1, a conversation read line by line.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type StandinLlm, startStandinLlm } from '../../scripts/lib/standin-llm';
import { type AgentClient, createGatewayClient } from '../../src/client';
import { GatewayError } from '../../src/client/errors';
import type { ReplyEvent } from '../../src/client/types';
import { normalizeBaseUrl } from '../../src/cli/gateway-url';
import { saveToken } from '../../src/cli/token-file';
import { freshAgent } from '../support/agent';
import { cliEnv, runCli, tempDir } from '../support/cli';
import { replyAgent, replyWorker, scriptedCases, startSwitchableTools } from '../support/replies';
import { toolServerUrl } from '../support/tool-routing';

const stack = inject('stack');
const API_KEY = `sk-standin-${crypto.randomUUID()}`;
const cases = scriptedCases();
const { scripted } = cases;
let llm: StandinLlm;
let tools: Awaited<ReturnType<typeof startSwitchableTools>>;
let worker: Awaited<ReturnType<typeof replyWorker>>;
let dir = '';
let removeDir: () => Promise<void> = async () => undefined;

beforeAll(async () => {
  [llm, tools, { dir, remove: removeDir }] = await Promise.all([
    startStandinLlm({
      apiKey: API_KEY,
      script: cases.script,
    }),
    startSwitchableTools(),
    tempDir('agent-gateway-chat-'),
  ]);
  worker = await replyWorker(stack, llm, { tools: tools.url });
});

afterAll(async () => {
  await worker?.dispose();
  await Promise.all([llm?.close(), tools?.close(), removeDir()]);
});

/** A fresh agent on the stand-in with the context `chat` and the `tools` server registered. */
async function chatAgent() {
  const who = await replyAgent(worker.deployment, API_KEY);
  const added = await who.call('/mcp/connection', {
    method: 'POST',
    json: { url: toolServerUrl('tools', tools.url), auth: { type: 'none' } },
  });
  if (added.status !== 200) throw new Error(`tool server not registered: ${added.text}`);
  const client = createGatewayClient({ baseUrl: worker.url, token: who.token }).agent(who.collection, who.tokenId);
  return { who, client };
}

async function collect(stream: AsyncIterable<ReplyEvent>): Promise<ReplyEvent[]> {
  const events: ReplyEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

const storedMessages = async (client: AgentClient) => (await client.readMessages('chat')).messages.map((m) => [m.role, m.message]);

describe('client: agent.reply and agent.replyStream', () => {
  it('reply answers JSON with the tool step; a retry with the same Idempotency-Key replays it without the model', async () => {
    const { client } = await chatAgent();
    const marker = crypto.randomUUID();
    const first = await client.reply('chat', { message: `use tool echo ${marker}` }, { idempotencyKey: `k-${marker}` });
    expect(first.replayed).toBe(false);
    expect(first.reply?.message).toBe(`stand-in model: echo answered: echo: ${marker}`);
    expect(first.steps).toEqual([expect.objectContaining({ tool: 'echo', arguments: { text: marker }, isError: false })]);
    expect(first.finishReason).toBe('stop');
    const calls = llm.completions().length;
    const again = await client.reply('chat', { message: `use tool echo ${marker}` }, { idempotencyKey: `k-${marker}` });
    expect(again).toEqual({ ...first, replayed: true });
    expect(llm.completions().length).toBe(calls);
  });

  it('replyStream yields typed events in order: deltas, the tool call and result, then done with the stored reply', async () => {
    const { client } = await chatAgent();
    const stream = await client.replyStream('chat', { message: 'use tool echo streamed words' });
    expect(stream.replayed).toBe(false);
    const events = await collect(stream);
    const names = events.map((e) => e.event);
    expect(names.slice(0, 2)).toEqual(['tool_call', 'tool_result']);
    expect(names.at(-1)).toBe('done');
    expect(names.slice(2, -1).every((n) => n === 'delta')).toBe(true);
    const text = events.flatMap((e) => (e.event === 'delta' ? [e.data.text] : [])).join('');
    const done = events.at(-1) as Extract<ReplyEvent, { event: 'done' }>;
    expect(text).toBe('stand-in model: echo answered: echo: streamed words');
    expect(done.data.reply?.message).toBe(text);
    expect(events[0]).toEqual({
      event: 'tool_call',
      data: expect.objectContaining({ tool: 'echo', arguments: { text: 'streamed words' } }),
    });
    expect(await storedMessages(client)).toEqual([
      ['user', 'use tool echo streamed words'],
      ['assistant', text],
    ]);
  });

  it('a refusal before the stream throws GatewayError with status and code (409 llm_not_configured)', async () => {
    const who = await freshAgent(worker.deployment);
    await who.call('/context', { method: 'POST', json: { key: 'chat' } });
    const client = createGatewayClient({ baseUrl: worker.url, token: who.token }).agent(who.collection, who.tokenId);
    const failure = await client.replyStream('chat', { message: 'anyone there?' }).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(GatewayError);
    expect(failure).toMatchObject({ status: 409, code: 'llm_not_configured' });
    const json = await client.reply('chat', { message: 'anyone there?' }).catch((err: unknown) => err);
    expect(json).toMatchObject({ status: 409, code: 'llm_not_configured' });
  });

  it('a model fault after the stream began is its error event (502 llm_unavailable); no assistant message', async () => {
    const { client } = await chatAgent();
    const message = `${scripted(() => ({ status: 500 }))} fail please`;
    const events = await collect(await client.replyStream('chat', { message }));
    expect(events.map((e) => e.event)).toEqual(['error']);
    expect(events[0]).toMatchObject({ event: 'error', data: { error: { code: 'llm_unavailable' } } });
    expect(await storedMessages(client)).toEqual([['user', message]]);
  });
});

describe('agent-gateway chat', () => {
  /** The CLI's environment for this agent: its token saved for the reply worker's URL. */
  async function cliFor(who: Awaited<ReturnType<typeof chatAgent>>['who']): Promise<NodeJS.ProcessEnv> {
    const baseUrl = normalizeBaseUrl(worker.url);
    const tokenFile = path.join(dir, `token-${who.tokenId}.json`);
    await saveToken(tokenFile, { token: who.token, chainId: stack.testnet.chainId, wallet: who.owner.address, baseUrl, expiresAt: null });
    return cliEnv({
      HOME: dir,
      AGENT_GATEWAY_URL: baseUrl,
      AGENT_GATEWAY_TOKEN_FILE: tokenFile,
      AGENT_COLLECTION: who.collection,
      AGENT_TOKEN_ID: who.tokenId.toString(),
    });
  }

  it('a chat bridge with a reply key and no wallet: AGENT_GATEWAY_API_KEY, no login; the key is never printed', async () => {
    const { who, client } = await chatAgent();
    const created = await who.call('/keys', { method: 'POST', json: { name: 'bridge', scopes: ['reply'] } });
    expect(created.status, created.text).toBe(200);
    const key = created.body.key as string;
    const env = cliEnv({
      HOME: dir,
      AGENT_GATEWAY_URL: normalizeBaseUrl(worker.url),
      AGENT_GATEWAY_TOKEN_FILE: path.join(dir, `no-login-${who.tokenId}.json`),
      AGENT_COLLECTION: who.collection,
      AGENT_TOKEN_ID: who.tokenId.toString(),
      AGENT_GATEWAY_API_KEY: key,
    });
    const run = await runCli(['chat', '--key', 'chat', '--message', 'use tool echo from a bridge'], env);
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toBe('stand-in model: echo answered: echo: from a bridge\n');
    expect(run.output).not.toContain(key);
    expect(await storedMessages(client)).toEqual([
      ['user', 'use tool echo from a bridge'],
      ['assistant', 'stand-in model: echo answered: echo: from a bridge'],
    ]);
  }, 60_000);

  it('--message prints the reply on stdout and the tool call and its result on stderr as they happen', async () => {
    const { who, client } = await chatAgent();
    const env = await cliFor(who);
    const run = await runCli(['chat', '--key', 'chat', '--message', 'use tool echo one two three'], env);
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toBe('stand-in model: echo answered: echo: one two three\n');
    expect(run.stderr).toMatch(/^→ tool echo \{"text":"one two three"\}\n← echo \d+ ms ok\n$/);
    expect(await storedMessages(client)).toEqual([
      ['user', 'use tool echo one two three'],
      ['assistant', 'stand-in model: echo answered: echo: one two three'],
    ]);

    const json = await runCli(['chat', '--key', 'chat', '--message', 'hello again', '--json', '--no-tools'], env);
    expect(json.code, json.output).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      reply: { role: 'assistant', message: 'stand-in model: you said: hello again' },
      steps: [],
      finishReason: 'stop',
    });
    const offered = llm.completions().filter((r) => JSON.stringify(r.body.messages).includes('hello again'));
    expect(offered.length).toBeGreaterThan(0);
    expect(offered.every((r) => (r.body.tools ?? []).length === 0)).toBe(true);
  }, 60_000);

  it('fails with exit 1 naming the code: a model fault in the stream, and a refusal before it', async () => {
    const { who } = await chatAgent();
    const env = await cliFor(who);
    const fault = await runCli(['chat', '--key', 'chat', '--message', `${scripted(() => ({ status: 503 }))} x`], env);
    expect(fault.code, fault.output).toBe(1);
    expect(fault.stderr).toContain('llm_unavailable');
    const missing = await runCli(['chat', '--key', 'no-such-context', '--message', 'hi'], env);
    expect(missing.code, missing.output).toBe(1);
    expect(missing.stderr).toContain('404 context_not_found');
    const usage = await runCli(['chat', '--message', 'hi'], env);
    expect(usage.code, usage.output).toBe(2);
    expect(usage.stderr).toContain('--key is required');
    const badVar = await runCli(['chat', '--key', 'chat', '--var', 'no-equals-sign', '--message', 'hi'], env);
    expect(badVar.code, badVar.output).toBe(2);
  }, 60_000);

  it('reads a conversation line by line from a pipe, each line one reply, until /exit', async () => {
    const { who, client } = await chatAgent();
    const env = await cliFor(who);
    const run = await runCli(['chat', '--key', 'chat'], env, 60_000, { input: 'first line\n\nsecond line\n/exit\nnever sent\n' });
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toBe('stand-in model: you said: first line\nstand-in model: you said: second line\n');
    expect((await storedMessages(client)).map(([role]) => role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  }, 60_000);
});
