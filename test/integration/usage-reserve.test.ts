/**
 * Reservations against the daily token limits, on the real worker, Postgres and the stand-in model
 * (which reports its usage only at the end of a stream): a client that hangs up mid-stream leaves
 * the call counted at its estimate (not 0) and the limit bites after a few such hang-ups; ten
 * replies at once in ten contexts, through the reply route and chat completions, pass the limit by
 * at most one call's usage (the estimates over-judge here); a reply's usage read right after it
 * holds the provider's exact figures; a later step that finds the limit reached ends the reply.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readWranglerConfig, startMiniflare } from '../../scripts/lib/worker-bundle';
import { type StandinLlm, type StandinReply, type StandinRequest, startStandinLlm } from '../../scripts/lib/standin-llm';
import { seg } from '../support/agent';
import { expectError } from '../support/http';
import { agentPath } from '../support/login';
import { closePg, sql } from '../support/pg';
import { replyAgent, replyWorker } from '../support/replies';
import { workerBindingsFor } from '../support/worker';

const stack = inject('stack');
const API_KEY = `sk-standin-${crypto.randomUUID()}`;
/** The settings' `maxTokens` of replyAgent: every call's output ceiling. */
const MAX_TOKENS = 256;
let llm: StandinLlm;
let worker: Awaited<ReturnType<typeof replyWorker>>;

const scripts = new Map<string, (req: StandinRequest) => StandinReply | undefined>();
const marked = (script: (req: StandinRequest) => StandinReply | undefined) => {
  const id = crypto.randomUUID();
  scripts.set(id, script);
  return `[case:${id}]`;
};

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
  await closePg();
});

/** The agent's ledger rows of today (UTC): scope -> tokens charged. */
async function ledger(agent: Agent): Promise<Record<string, number>> {
  const rows = await sql<{ scope: string; tokens: string }>(
    stack.databaseUrl,
    `select scope, tokens::text as tokens from gateway.usage_ledger where agent_ref = $1 and day = (now() at time zone 'UTC')::date`,
    [`80002:${agent.collection.toLowerCase()}:${agent.tokenId}`],
  );
  return Object.fromEntries(rows.map((r) => [r.scope, Number(r.tokens)]));
}

type Agent = Awaited<ReturnType<typeof replyAgent>>;
const totals = async (agent: Agent) => (await agent.call('/usage')).body.totals;

/** Polls the usage until `done` holds (the hang-up's record is written after the response). */
async function usageWhen(agent: Agent, done: (t: { inputTokens: number; outputTokens: number }) => boolean) {
  for (let i = 0; i < 100; i++) {
    const t = await totals(agent);
    if (done(t)) return t;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`usage never got there: ${JSON.stringify(await totals(agent))}`);
}

/** A streamed reply in `context` whose client hangs up after the first delta; the stand-in streams slowly. */
async function hangUp(agent: Agent, context: string): Promise<number> {
  const long = marked(() => ({ text: Array.from({ length: 200 }, (_, i) => `word${i}`).join(' '), chunkDelayMs: 100 }));
  const client = new AbortController();
  const res = await fetch(`${worker.url}${agentPath(agent.collection, agent.tokenId, `/context/${seg(context)}/reply`)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${agent.token}` },
    body: JSON.stringify({ message: `a long story ${long}` }),
    signal: client.signal,
  });
  if (res.status !== 200) return res.status;
  const reader = res.body!.getReader();
  let text = '';
  while (!text.includes('event: delta')) text += new TextDecoder().decode((await reader.read()).value);
  client.abort();
  return 200;
}

describe('a client hanging up mid-stream', () => {
  it('leaves the call counted at its estimate, not 0, and the limit bites after a few hang-ups', async () => {
    const limit = 1_500;
    const agent = await replyAgent(worker.deployment, API_KEY, { limits: { tokensPerDay: limit } });
    expect(await hangUp(agent, 'chat')).toBe(200);
    // The stand-in had not reported its usage yet: the estimate is counted (the output ceiling, and the input as characters / 4).
    const first = await usageWhen(agent, (t) => t.outputTokens > 0);
    expect(first.outputTokens).toBe(MAX_TOKENS);
    expect(first.inputTokens).toBeGreaterThan(0);
    const perCall = first.inputTokens + first.outputTokens;
    let served = 1;
    let refused: number | undefined;
    for (let i = 0; i < 10 && refused === undefined; i++) {
      await usageWhen(agent, (t) => t.inputTokens + t.outputTokens >= served * perCall - 5);
      const status = await hangUp(agent, 'chat');
      if (status === 429) refused = i;
      else served += 1;
    }
    // Refused once the day's counted tokens reached the limit: after ceil(limit / estimate) hang-ups.
    expect(refused, 'the limit never bit').toBeDefined();
    expect(served).toBe(Math.ceil(limit / perCall));
    expectError(await agent.reply({ message: 'one more' }), 429, 'usage_limit_reached');
    const used = await totals(agent);
    expect(used.inputTokens + used.outputTokens).toBeLessThan(limit + perCall);
  });
});

describe('many contexts at once', () => {
  it('ten replies in ten contexts through reply and chat completions pass the limit by at most one call', async () => {
    const limit = 1_000;
    const [input, output] = [100, 50];
    const agent = await replyAgent(worker.deployment, API_KEY, { limits: { tokensPerDay: limit } });
    const costing = () => marked(() => ({ text: 'counted', usage: { promptTokens: input, completionTokens: output }, delayMs: 400 }));
    const contexts = Array.from({ length: 5 }, (_, i) => `ctx-${i}`);
    for (const key of contexts) expect((await agent.call('/context', { method: 'POST', json: { key } })).status).toBe(200);
    const viaReply = contexts.map((key) =>
      agent
        .call(`/context/${seg(key)}/reply`, { method: 'POST', json: { message: `go ${costing()}` } })
        .then((r) => ({ status: r.status, code: r.body?.error?.code })),
    );
    const viaChat = Array.from({ length: 5 }, (_, i) =>
      fetch(`${worker.url}${agentPath(agent.collection, agent.tokenId, '/v1/chat/completions')}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${agent.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'x', user: `user-${i}`, messages: [{ role: 'user', content: `go ${costing()}` }] }),
      }).then(async (r) => {
        const body = (await r.json()) as { error?: { code?: string } };
        return { status: r.status, code: body?.error?.code };
      }),
    );
    const answers = await Promise.all([...viaReply, ...viaChat]);
    const served = answers.filter((a) => a.status === 200).length;
    // The rest are refused when their first call reserves, on both routes: 429 usage_limit_reached.
    for (const a of answers) if (a.status !== 200) expect(a, JSON.stringify(answers)).toEqual({ status: 429, code: 'usage_limit_reached' });
    // Each call reserves its estimate (over MAX_TOKENS here) before it starts: not all ten fit under 1,000.
    expect(served).toBeGreaterThan(0);
    expect(served).toBeLessThan(10);
    const used = await totals(agent);
    expect(used.inputTokens + used.outputTokens).toBe(served * (input + output));
    // The bound (SECURITY.md): with estimates at or over each call's usage, at most limit - 1 + one call's usage.
    expect(used.inputTokens + used.outputTokens).toBeLessThanOrEqual(limit - 1 + input + output);
    // Without reservations every one of them would have run (none was counted when they started).
    expect(served * (input + output)).toBeLessThan(10 * (input + output));
  });
});

describe('usage right after a reply', () => {
  it('holds the exact figures the provider reported', async () => {
    const agent = await replyAgent(worker.deployment, API_KEY, { limits: { tokensPerDay: 100_000 } });
    const exact = marked(() => ({ text: 'exact', usage: { promptTokens: 1_234, completionTokens: 56 } }));
    expect((await agent.reply({ message: `count ${exact}` })).status).toBe(200);
    expect(await totals(agent)).toMatchObject({ inputTokens: 1_234, outputTokens: 56, modelCalls: 1 });
    // The call's reservation was settled to the same figures before the answer was sent.
    expect(await ledger(agent)).toEqual({ agent: 1_290 });
  });
});

describe('the Cron clean-up', () => {
  it("deletes ledger rows of days before yesterday and keeps yesterday's and today's", async () => {
    const ref = `80002:0x${'0'.repeat(40)}:${Date.now()}`;
    for (const daysAgo of [0, 1, 2, 30]) {
      await sql(
        stack.databaseUrl,
        `insert into gateway.usage_ledger (agent_ref, day, scope, tokens) values ($1, (now() at time zone 'UTC')::date - $2::int, 'agent', 1)`,
        [ref, daysAgo],
      );
    }
    const cleaner = await startMiniflare({ scriptPath: stack.scriptPath, deployment: 'testnet', bindings: workerBindingsFor(stack) });
    try {
      const cron = readWranglerConfig('testnet').triggers?.crons?.[0] ?? '';
      expect((await (await cleaner.miniflare.getWorker()).scheduled({ cron, scheduledTime: new Date() })).outcome).toBe('ok');
    } finally {
      await cleaner.dispose();
    }
    const left = await sql<{ ago: number }>(
      stack.databaseUrl,
      `select ((now() at time zone 'UTC')::date - day) as ago from gateway.usage_ledger where agent_ref = $1 order by day desc`,
      [ref],
    );
    expect(left.map((r) => Number(r.ago))).toEqual([0, 1]);
  });
});

describe('a later step of a running reply', () => {
  it('finding the limit reached ends the reply there (200, finishReason length), the model not called again', async () => {
    const agent = await replyAgent(worker.deployment, API_KEY, { limits: { tokensPerDay: 1_000 } });
    const id = crypto.randomUUID();
    const marker = marked(() => ({
      toolCalls: [{ name: 'no_such_tool', arguments: { id } }],
      usage: { promptTokens: 900, completionTokens: 100 },
    }));
    const calls = () => llm.completions().filter((r) => JSON.stringify(r.body).includes(marker)).length;
    const res = await agent.reply({ message: `loop ${marker}` });
    expect(res.status, res.text).toBe(200);
    expect(res.body.finishReason).toBe('length');
    expect(res.body.usage).toEqual({ inputTokens: 900, outputTokens: 100 });
    expect(calls()).toBe(1);
    expect(await totals(agent)).toMatchObject({ inputTokens: 900, outputTokens: 100, modelCalls: 1 });
    expectError(await agent.reply({ message: 'next' }), 429, 'usage_limit_reached');
  });
});
