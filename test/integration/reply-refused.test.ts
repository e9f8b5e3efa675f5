/**
 * A refused reply never reaches the model: N replies sent at once into one context, on every route
 * that runs one (REST reply, chat completions, MCP `ask`). One is served, the rest are refused with
 * `reply_in_progress`, and the stand-in model (a real loopback server counting what it receives)
 * is asked exactly as many times as replies were served; the usage report counts the same calls.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type StandinLlm, startStandinLlm } from '../../scripts/lib/standin-llm';
import { createKey } from '../support/agent-keys';
import { mcpRpc, mcpUrl } from '../support/agent-mcp';
import { expectError } from '../support/http';
import { replyAgent, replyWorker, scriptedCases } from '../support/replies';

const stack = inject('stack');
const API_KEY = `sk-standin-${crypto.randomUUID()}`;
const cases = scriptedCases();
let llm: StandinLlm;
let worker: Awaited<ReturnType<typeof replyWorker>>;

/** Replies sent at once into one context. */
const BURST = 6;

beforeAll(async () => {
  llm = await startStandinLlm({ apiKey: API_KEY, script: cases.script });
  worker = await replyWorker(stack, llm, {});
});

afterAll(async () => {
  await worker?.dispose();
  await llm?.close();
});

/** A case whose answers take a while, so the served reply holds the context while the others arrive. */
const slowCase = () => cases.scripted(() => ({ text: 'stand-in model: slow but fine', delayMs: 700 }));

/** The model requests that carried `marker` (each one reply's model call). */
const modelCallsWith = (marker: string) => llm.completions().filter((r) => JSON.stringify(r.body.messages).includes(marker)).length;

type Agent = Awaited<ReturnType<typeof replyAgent>>;

async function usageModelCalls(agent: Agent): Promise<number> {
  const usage = await agent.call('/usage');
  expect(usage.status, usage.text).toBe(200);
  return usage.body.totals.modelCalls as number;
}

/** Whether an outcome was served (true), refused with reply_in_progress (false); anything else fails the test. */
type Outcome = boolean;

/** Sends BURST requests at once; checks served + refused = BURST, at least one of each, and the model calls. */
async function burst(agent: Agent, marker: string, send: (i: number) => Promise<Outcome>, servedBefore = 0) {
  const outcomes = await Promise.all(Array.from({ length: BURST }, (_, i) => send(i)));
  const served = outcomes.filter(Boolean).length;
  expect(served).toBeGreaterThanOrEqual(1);
  expect(BURST - served).toBeGreaterThanOrEqual(1);
  // Only the served replies reached the model, and the usage counts exactly those calls.
  expect(modelCallsWith(marker)).toBe(servedBefore + served);
  expect(await usageModelCalls(agent)).toBe(servedBefore + served);
}

describe('replies sent at once into one context: the refused ones never reach the model', () => {
  it('POST …/context/{key}/reply', async () => {
    const agent = await replyAgent(worker.deployment, API_KEY);
    const marker = slowCase();
    await burst(agent, marker, async (i) => {
      const res = await agent.reply({ message: `reply ${i} ${marker}` });
      if (res.status === 200) return true;
      expectError(res, 409, 'reply_in_progress');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      return false;
    });
  });

  it('POST …/v1/chat/completions', async () => {
    const agent = await replyAgent(worker.deployment, API_KEY);
    const marker = slowCase();
    await burst(agent, marker, async (i) => {
      const res = await agent.call('/v1/chat/completions', {
        method: 'POST',
        json: { model: 'any', user: 'chat', messages: [{ role: 'user', content: `completion ${i} ${marker}` }] },
      });
      if (res.status === 200) return true;
      expectError(res, 409, 'reply_in_progress');
      return false;
    });
  });

  it('MCP tools/call ask', async () => {
    const agent = await replyAgent(worker.deployment, API_KEY);
    const key = await createKey(agent, ['mcp']);
    const url = mcpUrl(worker.url, agent);
    const marker = slowCase();
    const ask = async (message: string): Promise<Outcome> => {
      const res = await mcpRpc(url, key.key, {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'ask', arguments: { message } },
      });
      expect(res.status, res.text).toBe(200);
      const result = res.body.result as { isError?: boolean; content: { text: string }[] };
      if (!result.isError) return true;
      expect(result.content[0]?.text).toMatch(/^reply_in_progress: /);
      return false;
    };
    // The key's own context is created on first use: a first ask makes it, then the burst.
    expect(await ask(`first ${marker}`)).toBe(true);
    await burst(agent, marker, (i) => ask(`ask ${i} ${marker}`), 1);
  });
});
