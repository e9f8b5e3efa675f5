/**
 * Agent replies under small limits: TOKEN__MAX_TOKENS_PER_REQUEST trims the context from the
 * oldest (the newest message always goes, cut when alone over the limit) and
 * INFERENCE_LOOP__MAX_ITERATIONS bounds model calls.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type StandinLlm, startStandinLlm } from '../../scripts/lib/standin-llm';
import { CUT_MARKER, messageTokens } from '../../src/replies/tokens';
import { seg } from '../support/agent';
import { toolServerUrl } from '../support/tool-routing';
import { replyAgent, replyWorker, startSwitchableTools } from '../support/replies';

const stack = inject('stack');
const API_KEY = `sk-standin-${crypto.randomUUID()}`;
let llm: StandinLlm;
let tools: Awaited<ReturnType<typeof startSwitchableTools>>;
let worker: Awaited<ReturnType<typeof replyWorker>>;

beforeAll(async () => {
  [llm, tools] = await Promise.all([startStandinLlm({ apiKey: API_KEY }), startSwitchableTools()]);
  worker = await replyWorker(
    stack,
    llm,
    { tools: tools.url },
    { TOKEN__MAX_TOKENS_PER_REQUEST: '600', INFERENCE_LOOP__MAX_ITERATIONS: '3' },
  );
});

afterAll(async () => {
  await worker?.dispose();
  await Promise.all([llm?.close(), tools?.close()]);
});

const sent = (marker: string) => llm.completions().filter((r) => JSON.stringify(r.body.messages).includes(marker));

describe('the token budget', () => {
  it('cuts the oldest messages so the request fits, and the newest always goes (cut to fit, stored whole)', async () => {
    // Budget: 600 - maxTokens 200 = 400 tokens; each message is 300 bytes = 100 + 8 tokens: three fit.
    // Summaries off: this is trimming alone (replies-summaries.test.ts has the summary the first reply would leave).
    const who = await replyAgent(worker.deployment, API_KEY, { maxTokens: 200, summaries: false });
    const run = crypto.randomUUID().slice(0, 8);
    const texts = Array.from({ length: 6 }, (_, i) => `${run}-${i}-`.padEnd(300, 'x'));
    const hydrate = await who.call(`/context/${seg('chat')}/messages`, {
      method: 'POST',
      json: { messages: texts.map((message) => ({ role: 'user', message })) },
    });
    expect(hydrate.status, hydrate.text).toBe(200);
    // No tools offered (the memory tools would count too): the arithmetic above is the messages' alone.
    const res = await who.reply({ memoryTools: false });
    expect(res.status, res.text).toBe(200);
    const got = sent(`${run}-5-`)[0]?.body.messages?.map((m) => String(m.content).slice(0, run.length + 3));
    expect(got).toEqual([`${run}-3-`, `${run}-4-`, `${run}-5-`]);

    const huge = `${run}-huge-`.padEnd(4_000, 'y');
    expect((await who.reply({ message: huge, memoryTools: false })).status).toBe(200);
    const alone = sent(`${run}-huge-`)[0]?.body;
    expect(alone?.messages).toHaveLength(1);
    const cut = String(alone?.messages?.[0]?.content);
    expect(cut.startsWith(`${run}-huge-`) && cut.endsWith(CUT_MARKER)).toBe(true);
    expect(messageTokens(cut) + Number(alone?.max_tokens)).toBeLessThanOrEqual(600);
    const stored = await who.call(`/context/${seg('chat')}/messages`);
    expect(stored.body.messages.some((m: { message: string }) => m.message === huge)).toBe(true);
  });
});

describe('the iteration cap', () => {
  it('stops after INFERENCE_LOOP__MAX_ITERATIONS model calls with finishReason max_iterations', async () => {
    const looping = await startStandinLlm({
      apiKey: API_KEY,
      script: () => ({ toolCalls: [{ name: 'echo', arguments: { text: 'again' } }] }),
    });
    const w = await replyWorker(stack, looping, { tools: tools.url }, { INFERENCE_LOOP__MAX_ITERATIONS: '3' });
    try {
      const who = await replyAgent(w.deployment, API_KEY);
      const reg = await who.call('/mcp/connection', {
        method: 'POST',
        json: { url: toolServerUrl('tools', tools.url), auth: { type: 'none' } },
      });
      expect(reg.status, reg.text).toBe(200);
      const res = await who.reply({ message: 'loop forever' });
      expect(res.status, res.text).toBe(200);
      expect(res.body.finishReason).toBe('max_iterations');
      expect(res.body.reply).toBeNull();
      expect(res.body.steps).toHaveLength(3);
      expect(looping.completions()).toHaveLength(3);
    } finally {
      await w.dispose();
      await looping.close();
    }
  });
});

describe('a model that will not stop', () => {
  it('keeps at most 64 K characters of its answer, stored as the reply, with finishReason length', async () => {
    const word = `${'z'.repeat(999)} `;
    const endless = await startStandinLlm({ apiKey: API_KEY, script: () => ({ text: word.repeat(200) }) });
    const w = await replyWorker(stack, endless, {});
    try {
      const who = await replyAgent(w.deployment, API_KEY, { maxTokens: 100_000 });
      const res = await who.reply({ message: 'talk forever' });
      expect(res.status, res.text.slice(0, 500)).toBe(200);
      expect(res.body.finishReason).toBe('length');
      expect(res.body.reply.message).toHaveLength(64 * 1024);
      const stored = await who.call(`/context/${seg('chat')}/messages`);
      expect(stored.body.messages.map((m: { role: string; message: string }) => [m.role, m.message.length])).toEqual([
        ['user', 'talk forever'.length],
        ['assistant', 64 * 1024],
      ]);
    } finally {
      await w.dispose();
      await endless.close();
    }
  });
});
