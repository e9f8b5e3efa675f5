/**
 * What a hostile model or tool server can make a reply do, bounded (docs/replies.md):
 * every model request stays within TOKEN__MAX_TOKENS_PER_REQUEST as counted, the earlier steps'
 * calls and results included; at most 16 tool calls of a step run, 4 at once, 64 in a reply; the
 * model's streamed tool-call arguments and reasoning are cut as its text is.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { contentText, type StandinLlm, type StandinRequest, startStandinLlm } from '../../scripts/lib/standin-llm';
import { MAX_CALLS_AT_ONCE, MAX_CALLS_PER_REPLY, MAX_CALLS_PER_STEP } from '../../src/replies/call-limits';
import { MAX_LISTED_REFUSALS } from '../../src/replies/loop';
import { MAX_MODEL_ANSWER_BYTES } from '../../src/replies/model-fetch';
import { CUT_MARKER, messageTokens, toolsTokens } from '../../src/replies/tokens';
import { seg } from '../support/agent';
import { startCountingTools } from '../support/counting-tools';
import { expectError } from '../support/http';
import { replyAgent, replyWorker, scriptedCases } from '../support/replies';
import { toolServerUrl } from '../support/tool-routing';

const stack = inject('stack');
const API_KEY = `sk-standin-${crypto.randomUUID()}`;
const LIMIT = 3_000;
const cases = scriptedCases();
const { scripted } = cases;
let llm: StandinLlm;
let bigTools: Awaited<ReturnType<typeof startCountingTools>>;
let slowTools: Awaited<ReturnType<typeof startCountingTools>>;
let small: Awaited<ReturnType<typeof replyWorker>>;
let wide: Awaited<ReturnType<typeof replyWorker>>;

const requestsWith = (marker: string) => llm.completions().filter((r) => JSON.stringify(r.body.messages).includes(marker));
const answered = (req: StandinRequest) => req.body.messages?.some((m) => m.role === 'tool') === true;

/**
 * A received request counted by the gateway's rule (src/replies/tokens.ts): each message's text,
 * reasoning and tool calls (name and arguments) plus the per-message overhead, the tools' names,
 * descriptions and schemas, and the output allowance.
 */
function counted(req: StandinRequest): number {
  const body = req.body;
  const messages = (body.messages ?? []).map((m) => {
    const calls = (m.tool_calls ?? []).map((c) => c.function.name + c.function.arguments).join('');
    const reasoning = (m as { reasoning_content?: string }).reasoning_content ?? '';
    return messageTokens(contentText(m.content) + reasoning + calls);
  });
  const tools = (body.tools ?? []).map((t) => ({
    name: t.function.name,
    description: t.function.description,
    inputSchema: t.function.parameters,
  }));
  return (
    messages.reduce((a, b) => a + b, 0) +
    (tools.length ? toolsTokens(tools) : 0) +
    Number(body.max_tokens ?? body.max_completion_tokens ?? 0)
  );
}

beforeAll(async () => {
  [llm, bigTools, slowTools] = await Promise.all([
    startStandinLlm({
      apiKey: API_KEY,
      script: cases.script,
    }),
    startCountingTools({ resultChars: 20_000 }),
    startCountingTools({ delayMs: 40 }),
  ]);
  [small, wide] = await Promise.all([
    replyWorker(stack, llm, { tools: bigTools.url }, { TOKEN__MAX_TOKENS_PER_REQUEST: String(LIMIT), INFERENCE_LOOP__MAX_ITERATIONS: '5' }),
    replyWorker(stack, llm, { tools: slowTools.url }),
  ]);
});

afterAll(async () => {
  await Promise.all([small?.dispose(), wide?.dispose()]);
  await Promise.all([llm?.close(), bigTools?.close(), slowTools?.close()]);
});

async function withTools(worker: typeof small, url: string, settings?: Record<string, unknown>) {
  const who = await replyAgent(worker.deployment, API_KEY, settings);
  const reg = await who.call('/mcp/connection', { method: 'POST', json: { url: toolServerUrl('tools', url), auth: { type: 'none' } } });
  expect(reg.status, reg.text).toBe(200);
  return who;
}

describe('TOKEN__MAX_TOKENS_PER_REQUEST bounds every model request', () => {
  it('a model calling a tool of 16 K-character results in a loop: each request within the limit, results cut oldest first', async () => {
    const who = await withTools(small, bigTools.url, { maxTokens: 256 });
    expect((await who.call('/prompt-template/default', { method: 'POST', json: { template: 'You are terse. '.repeat(40) } })).status).toBe(
      200,
    );
    const run = crypto.randomUUID().slice(0, 8);
    const older = Array.from({ length: 16 }, (_, i) => ({ role: 'user', message: `${run}-old-${i}-`.padEnd(600, 'h') }));
    const hydrate = await who.call(`/context/${seg('chat')}/messages`, { method: 'POST', json: { messages: older } });
    expect(hydrate.status, hydrate.text).toBe(200);
    const marker = scripted(() => ({ toolCalls: [{ name: 'echo', arguments: { text: 'again' } }] }));

    const res = await who.reply({ message: `loop ${marker}` });
    expect(res.status, res.text).toBe(200);
    expect(res.body.finishReason).toBe('max_iterations');
    expect(res.body.steps).toHaveLength(5);
    const sent = requestsWith(marker);
    expect(sent).toHaveLength(5);
    const sizes = sent.map(counted);
    console.log(`largest request counted: ${Math.max(...sizes)} tokens of ${LIMIT} (each: ${sizes.join(', ')})`);
    for (const size of sizes) expect(size).toBeLessThanOrEqual(LIMIT);
    // The last request carries the four earlier calls; their results, 16 K characters each, were cut, the oldest first.
    const last = sent.at(-1)!.body.messages!;
    const results = last.filter((m) => m.role === 'tool').map((m) => contentText(m.content));
    expect(results).toHaveLength(4);
    expect(results.every((r) => r.endsWith(CUT_MARKER) && r.length < 16_384)).toBe(true);
    expect(results[0]!.length).toBeLessThanOrEqual(results[3]!.length);
    expect(contentText(last.find((m) => m.role === 'user')?.content)).toBe(`loop ${marker}`);
    // The first request: the system prompt, then the newest of the older messages that fit (not all 16), then the new one.
    const first = sent[0]!.body.messages!;
    expect(first[0]?.role).toBe('system');
    expect(contentText(first.at(-1)?.content)).toBe(`loop ${marker}`);
    expect(first.length).toBeGreaterThan(2);
    expect(first.length).toBeLessThan(18);
    // The stored messages stay whole.
    const stored = (await who.call(`/context/${seg('chat')}/messages`)).body.messages as { message: string }[];
    expect(stored.map((m) => m.message.length)).toEqual([...older.map(() => 600), `loop ${marker}`.length]);
  });

  it('a system prompt and tools that leave no room: 400 prompt_over_token_limit, nothing stored, the model not called', async () => {
    const who = await withTools(small, bigTools.url, { maxTokens: 256 });
    expect((await who.call('/prompt-template/default', { method: 'POST', json: { template: 'x'.repeat(LIMIT * 3) } })).status).toBe(200);
    const marker = scripted(() => ({ text: 'never' }));
    expectError(await who.reply({ message: `hi ${marker}` }), 400, 'prompt_over_token_limit');
    expect(requestsWith(marker)).toHaveLength(0);
    expect((await who.call(`/context/${seg('chat')}/messages`)).body.messages).toEqual([]);
  });
});

describe('tool calls per step, at once and per reply', () => {
  it(`a model asking for 1,000 calls in one step: ${MAX_CALLS_PER_STEP} run, never more than ${MAX_CALLS_AT_ONCE} at once, the rest answer with an error`, async () => {
    const who = await withTools(wide, slowTools.url);
    slowTools.reset();
    const marker = scripted((req) =>
      answered(req)
        ? { text: 'done' }
        : { toolCalls: Array.from({ length: 1_000 }, (_, i) => ({ name: 'echo', arguments: { text: `call ${i}` } })) },
    );
    const res = await who.reply({ message: `fan out ${marker}` });
    expect(res.status, res.text.slice(0, 500)).toBe(200);
    console.log(`1,000 calls in one step: ${slowTools.state.calls} ran, peak ${slowTools.state.peak} at once`);
    expect(slowTools.state.calls).toBe(MAX_CALLS_PER_STEP);
    expect(slowTools.state.peak).toBeLessThanOrEqual(MAX_CALLS_AT_ONCE);
    expect(res.body.finishReason).toBe('stop');
    expect(res.body.reply.message).toBe('done');
    const steps = res.body.steps as { tool: string; isError: boolean; connectionId: string | null; upstreamStatus?: number }[];
    // Every call that ran, and the first refused ones: the answer does not grow with the model's asking.
    expect(steps).toHaveLength(MAX_CALLS_PER_STEP + MAX_LISTED_REFUSALS);
    expect(steps.filter((s) => !s.isError)).toHaveLength(MAX_CALLS_PER_STEP);
    expect(steps.every((s) => s.tool === 'echo' && s.connectionId !== null && s.upstreamStatus === undefined)).toBe(true);
    const refused = requestsWith(marker)[1]!.body.messages!.filter(
      (m) => m.role === 'tool' && contentText(m.content).includes('of one model step'),
    );
    expect(refused).toHaveLength(1_000 - MAX_CALLS_PER_STEP);
  });

  it(`a model calling tools step after step: ${MAX_CALLS_PER_REPLY} calls run in the reply, the rest answer with an error`, async () => {
    const who = await withTools(wide, slowTools.url);
    slowTools.reset();
    const marker = scripted(() => ({
      toolCalls: Array.from({ length: 16 }, (_, i) => ({ name: 'echo', arguments: { text: `call ${i}` } })),
    }));
    const res = await who.reply({ message: `keep going ${marker}` });
    expect(res.status, res.text.slice(0, 500)).toBe(200);
    expect(res.body.finishReason).toBe('max_iterations');
    expect(slowTools.state.calls).toBe(MAX_CALLS_PER_REPLY);
    expect(slowTools.state.peak).toBeLessThanOrEqual(MAX_CALLS_AT_ONCE);
    const steps = res.body.steps as { isError: boolean }[];
    expect(steps).toHaveLength(MAX_CALLS_PER_REPLY + MAX_LISTED_REFUSALS);
    expect(steps.filter((s) => !s.isError)).toHaveLength(MAX_CALLS_PER_REPLY);
    const last = requestsWith(marker).at(-1)!.body.messages!;
    expect(last.filter((m) => m.role === 'tool' && contentText(m.content).includes('in one reply')).length).toBeGreaterThan(0);
  });
});

describe('what the model streams is capped as text is', () => {
  it('megabytes of tool-call arguments: cut, finishReason length, the tool never called', async () => {
    const who = await withTools(wide, slowTools.url);
    slowTools.reset();
    const marker = scripted((req) =>
      answered(req) ? { text: 'done' } : { toolCalls: [{ name: 'echo', arguments: { text: 'a'.repeat(2_000_000) } }], chunkChars: 8_192 },
    );
    const res = await who.reply({ message: `huge arguments ${marker}` });
    expect(res.status, res.text.slice(0, 500)).toBe(200);
    expect(res.body.finishReason).toBe('length');
    expect(res.body.steps).toEqual([]);
    expect(slowTools.state.calls).toBe(0);
    expect(requestsWith(marker)).toHaveLength(1);
  });

  it('thousands of calls with next to no arguments: cut too (each call counts its name and framing), finishReason length', async () => {
    const who = await withTools(wide, slowTools.url);
    slowTools.reset();
    const marker = scripted((req) =>
      answered(req) ? { text: 'done' } : { toolCalls: Array.from({ length: 3_000 }, () => ({ name: 'echo', arguments: { text: '' } })) },
    );
    const res = await who.reply({ message: `swarm ${marker}` });
    expect(res.status, res.text.slice(0, 500)).toBe(200);
    expect(res.body.finishReason).toBe('length');
    expect(res.body.steps.length).toBeLessThan(3_000);
    expect(slowTools.state.calls).toBeLessThanOrEqual(MAX_CALLS_PER_STEP);
    expect(requestsWith(marker)).toHaveLength(1);
  });

  it('megabytes of reasoning: cut, finishReason length', async () => {
    const who = await withTools(wide, slowTools.url);
    const marker = scripted(() => ({ text: 'done', reasoning: 'r'.repeat(2_000_000), chunkChars: 8_192 }));
    const res = await who.reply({ message: `think forever ${marker}` });
    expect(res.status, res.text.slice(0, 500)).toBe(200);
    expect(res.body.finishReason).toBe('length');
    expect(res.body.reply).toBeNull();
  });

  it('an endless stream of tool-call arguments that never names its tool: the answer is not read past 8 MiB, 502 llm_unavailable', async () => {
    // The provider holds arguments that come before a call's name without passing them on, so the
    // loop's caps never see them: only the answer's byte cap ends this before the reply's deadline.
    let sent = 0;
    const endless = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const piece = `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: 'a'.repeat(60_000) } }] }, finish_reason: null }] })}\n\n`;
      const pump = () => {
        while (!res.destroyed && sent < 64 * 1024 * 1024) {
          sent += piece.length;
          if (!res.write(piece)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(endless.address() as AddressInfo).port}`;
    const w = await replyWorker(stack, { origin } as StandinLlm, {});
    try {
      const who = await replyAgent(w.deployment, API_KEY, { apiKey: null });
      const started = Date.now();
      const res = await who.reply({ message: 'say something' });
      expectError(res, 502, 'llm_unavailable');
      expect(res.body.error.message).toContain('MiB');
      console.log(`nameless arguments: refused after ${Date.now() - started} ms, ${Math.round(sent / 1024 / 1024)} MiB sent of 64`);
      expect(sent).toBeLessThan(MAX_MODEL_ANSWER_BYTES * 2);
    } finally {
      await w.dispose();
      await new Promise<void>((resolve) => {
        endless.close(() => resolve());
        endless.closeAllConnections();
      });
    }
  });
});
