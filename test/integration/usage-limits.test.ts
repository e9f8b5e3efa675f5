/**
 * Daily token limits against the real worker, Postgres and the stand-in model scripted
 * to report exact token counts: the agent's limit (LLM settings) and an agent key's own; a reply
 * starting once the UTC day's input + output tokens reached one is 429 `usage_limit_reached` with
 * `Retry-After` to the next UTC midnight, the model not called, nothing stored; a key without a
 * limit is unaffected by another key's; two replies racing past the limit both run, within the
 * bound SECURITY.md states, and the third is refused.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type StandinLlm, type StandinReply, type StandinRequest, startStandinLlm } from '../../scripts/lib/standin-llm';
import { seg } from '../support/agent';
import { createKey, withKey } from '../support/agent-keys';
import { expectError, type JsonResponse } from '../support/http';
import { replyAgent, replyWorker, standinSettings } from '../support/replies';

const stack = inject('stack');
const API_KEY = `sk-standin-${crypto.randomUUID()}`;
/** The worker's defaults (src/config.ts): INFERENCE_LOOP__MAX_ITERATIONS and TOKEN__MAX_TOKENS_PER_REQUEST. */
const MAX_ITERATIONS = 10;
const MAX_TOKENS_PER_REQUEST = 100_000;
let llm: StandinLlm;
let worker: Awaited<ReturnType<typeof replyWorker>>;

const scripts = new Map<string, (req: StandinRequest) => StandinReply | undefined>();
const marked = (script: (req: StandinRequest) => StandinReply | undefined) => {
  const id = crypto.randomUUID();
  scripts.set(id, script);
  return `[case:${id}]`;
};
/** A reply whose one model call reports `input` and `output` tokens, after `delayMs`. */
const costing = (input: number, output: number, delayMs = 0) =>
  marked(() => ({ text: `used ${input + output}`, usage: { promptTokens: input, completionTokens: output }, delayMs }));

beforeAll(async () => {
  llm = await startStandinLlm({
    apiKey: API_KEY,
    script: (req) => {
      const id = [...JSON.stringify(req.body.messages).matchAll(/\[case:([0-9a-f-]{36})\]/g)].at(-1)?.[1];
      return id ? scripts.get(id)?.(req) : undefined;
    },
  });
  worker = await replyWorker(stack, llm, {});
});

afterAll(async () => {
  await worker?.dispose();
  await llm?.close();
});

/** Asserts the 429 of a reached limit: its code, `details.limit`, and Retry-After to the next UTC midnight. */
function expectLimitReached(res: JsonResponse<any>, limit: 'agent' | 'key', sentAt: number): void {
  expectError(res, 429, 'usage_limit_reached');
  expect(res.body.error.details).toMatchObject({ limit, day: new Date(sentAt).toISOString().slice(0, 10) });
  const midnight = Math.floor(sentAt / 86_400_000) * 86_400_000 + 86_400_000;
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(Math.floor((midnight - Date.now()) / 1000) - 1);
  expect(retryAfter).toBeLessThanOrEqual(Math.ceil((midnight - sentAt) / 1000) + 1);
  expect(res.body.error.details.resetsAt).toBe(new Date(midnight).toISOString());
}

describe("the agent's daily limit", () => {
  it('a reply starting once the day reached it is 429 with Retry-After, the model not called, nothing stored; JSON and SSE alike', async () => {
    const agent = await replyAgent(worker.deployment, API_KEY, { limits: { tokensPerDay: 150 } });
    expect((await agent.call('/llm/settings')).body.limits).toEqual({ tokensPerDay: 150 });
    // Under the limit when it starts: it runs, and finishes past it (100 + 60 = 160).
    const first = await agent.reply({ message: `one ${costing(100, 60)}` });
    expect(first.status, first.text).toBe(200);

    const calls = llm.completions().length;
    const stored = (await agent.call(`/context/${seg('chat')}/messages`)).body.messages;
    expect(stored).toHaveLength(2);
    for (const accept of ['application/json', 'text/event-stream']) {
      const sentAt = Date.now();
      const refused = await agent.reply({ message: `two ${costing(1, 1)}` }, { headers: { accept } });
      expectLimitReached(refused, 'agent', sentAt);
      expect(refused.body.error.details).toMatchObject({ tokensPerDay: 150, usedTokens: 160 });
    }
    expect(llm.completions().length).toBe(calls);
    expect((await agent.call(`/context/${seg('chat')}/messages`)).body.messages).toEqual(stored);
    expect((await agent.call('/usage')).body.totals).toMatchObject({ inputTokens: 100, outputTokens: 60, modelCalls: 1 });

    // Settings saved without `limits` keep them; a higher limit lets replies run again.
    const resave = standinSettings();
    expect((await agent.call('/llm/settings', { method: 'POST', json: resave })).body.limits).toEqual({ tokensPerDay: 150 });
    expectError(await agent.reply({ message: 'still refused' }), 429, 'usage_limit_reached');
    const raised = await agent.call('/llm/settings', { method: 'POST', json: { ...resave, limits: { tokensPerDay: 1_000 } } });
    expect(raised.body.limits).toEqual({ tokensPerDay: 1_000 });
    expect((await agent.reply({ message: `three ${costing(5, 5)}` })).status).toBe(200);
    const lifted = await agent.call('/llm/settings', { method: 'POST', json: { ...resave, limits: {} } });
    expect(lifted.body.limits).toEqual({ tokensPerDay: null });
  });

  it('counts every credential: keys of the agent are refused once the agent total reached it', async () => {
    const agent = await replyAgent(worker.deployment, API_KEY, { limits: { tokensPerDay: 100 } });
    const bridge = await createKey(agent, ['reply']);
    expect((await agent.reply({ message: `owner ${costing(80, 20)}` })).status).toBe(200);
    const sentAt = Date.now();
    const refused = await withKey(agent, bridge.key, `/context/${seg('chat')}/reply`, { method: 'POST', json: { message: 'key' } });
    expectLimitReached(refused, 'agent', sentAt);
  });

  it('refuses a limit out of 1 .. 10^12 with 400 validation_failed', async () => {
    const agent = await replyAgent(worker.deployment, API_KEY);
    const base = standinSettings();
    for (const limits of [{ tokensPerDay: 0 }, { tokensPerDay: 1.5 }, { tokensPerDay: 1e13 }, { perDay: 5 }]) {
      expectError(await agent.call('/llm/settings', { method: 'POST', json: { ...base, limits } }), 400, 'validation_failed');
      expectError(await agent.call('/keys', { method: 'POST', json: { name: 'k', scopes: ['reply'], limits } }), 400, 'validation_failed');
    }
  });
});

describe("an agent key's daily limit", () => {
  it("refuses that key's replies once its own usage reached it; another key and the owner are unaffected", async () => {
    const agent = await replyAgent(worker.deployment, API_KEY);
    const capped = await createKey(agent, ['reply'], { name: 'capped', limits: { tokensPerDay: 50 } });
    const free = await createKey(agent, ['reply'], { name: 'free' });
    expect(capped.limits).toEqual({ tokensPerDay: 50 });
    expect(free.limits).toEqual({ tokensPerDay: null });
    const listed = (await agent.call('/keys')).body.keys.map((k: { name: string; limits: unknown }) => [k.name, k.limits]);
    expect(listed).toEqual([
      ['capped', { tokensPerDay: 50 }],
      ['free', { tokensPerDay: null }],
    ]);
    const path = `/context/${seg('chat')}/reply`;
    expect((await withKey(agent, capped.key, path, { method: 'POST', json: { message: `capped ${costing(40, 20)}` } })).status).toBe(200);

    const calls = llm.completions().length;
    const stored = (await agent.call(`/context/${seg('chat')}/messages`)).body.messages;
    const sentAt = Date.now();
    const refused = await withKey(agent, capped.key, path, { method: 'POST', json: { message: 'capped again' } });
    expectLimitReached(refused, 'key', sentAt);
    expect(refused.body.error.details).toMatchObject({ tokensPerDay: 50, usedTokens: 60 });
    expect(llm.completions().length).toBe(calls);
    expect((await agent.call(`/context/${seg('chat')}/messages`)).body.messages).toEqual(stored);

    expect((await withKey(agent, free.key, path, { method: 'POST', json: { message: `free ${costing(500, 500)}` } })).status).toBe(200);
    expect((await agent.reply({ message: `owner ${costing(1, 1)}` })).status).toBe(200);
  });
});

describe('replies racing past a limit', () => {
  it('both run when they start before either is counted, the third is refused, and the total stays within the stated bound', async () => {
    const limit = 500;
    const agent = await replyAgent(worker.deployment, API_KEY, { limits: { tokensPerDay: limit } });
    for (const key of ['race-a', 'race-b']) expect((await agent.call('/context', { method: 'POST', json: { key } })).status).toBe(200);
    const reply = (key: string, message: string) => agent.call(`/context/${seg(key)}/reply`, { method: 'POST', json: { message } });
    // Each fills the limit on its own (1,000 tokens), after a pause that lets the other start meanwhile.
    const [a, b] = await Promise.all([reply('race-a', `a ${costing(600, 400, 400)}`), reply('race-b', `b ${costing(600, 400, 400)}`)]);
    expect([a.status, b.status], `${a.text} ${b.text}`).toEqual([200, 200]);
    expectError(await reply('chat', 'third'), 429, 'usage_limit_reached');
    const used = (await agent.call('/usage')).body.totals;
    expect(used.inputTokens + used.outputTokens).toBe(2_000);
    // Within the earlier, looser bound: limit - 1 + (replies that started under it) × maxIterations × TOKEN__MAX_TOKENS_PER_REQUEST
    // (each call's estimate is under its 1,000 tokens here; usage-reserve tests the bound SECURITY.md states now).
    expect(used.inputTokens + used.outputTokens).toBeLessThanOrEqual(limit - 1 + 2 * MAX_ITERATIONS * MAX_TOKENS_PER_REQUEST);
  });
});
