import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors';
import { callGate, MAX_CALLS_AT_ONCE, MAX_CALLS_PER_REPLY, MAX_CALLS_PER_STEP } from '../../src/replies/call-limits';
import {
  fitRequest,
  leftOutCount,
  type RequestBudget,
  requestBudget,
  type TextMessage,
  withSummary,
} from '../../src/replies/request-budget';
import { summaryMessage } from '../../src/replies/summary-prompt';
import { countTokens, CUT_MARKER, cutToTokens, modelMessageTokens } from '../../src/replies/tokens';

const user = (id: number, bytes: number): TextMessage => ({ role: 'user', content: `${id}:`.padEnd(bytes, 'x') });
let callId = 0;
/** One earlier step: the model's call of `echo` and its result of `bytes` characters. */
const step = (bytes: number): ModelMessage[] => {
  const toolCallId = `call_${++callId}`;
  return [
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId, toolName: 'echo', input: { text: 'hi' } }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId, toolName: 'echo', output: { type: 'text', value: 'r'.repeat(bytes) } }] },
  ];
};
const total = (budget: RequestBudget, fitted: { messages: ModelMessage[]; maxOutputTokens: number }) =>
  budget.fixed + fitted.messages.reduce((n, m) => n + modelMessageTokens(m), 0) + fitted.maxOutputTokens;
const resultText = (m: ModelMessage) =>
  m.role === 'tool' && m.content[0]?.type === 'tool-result' ? (m.content[0].output as { value: string }).value : '';

describe('cutToTokens', () => {
  it('keeps a text that fits, cuts one that does not to its head and the marker, on a code point', () => {
    expect(cutToTokens('abc', 1)).toBe('abc');
    const cut = cutToTokens('😀'.repeat(100), 10);
    expect(cut.endsWith(CUT_MARKER)).toBe(true);
    expect(countTokens(cut)).toBeLessThanOrEqual(10);
    expect(cut.slice(0, -CUT_MARKER.length).isWellFormed()).toBe(true);
    expect(cutToTokens('x'.repeat(100), 1)).toBe('');
  });
});

describe('fitRequest', () => {
  const budget: RequestBudget = { limit: 1_000, fixed: 100, maxOutputTokens: 200 }; // 700 for messages

  it('sends everything that fits', () => {
    const history = [user(1, 30), user(2, 30)];
    const fitted = fitRequest(budget, history, step(30));
    expect(fitted.messages).toHaveLength(4);
    expect(fitted.maxOutputTokens).toBe(200);
  });

  it('drops the older messages first, from the oldest', () => {
    const history = Array.from({ length: 10 }, (_, i) => user(i, 300)); // 108 tokens each
    const fitted = fitRequest(budget, history, []);
    expect(fitted.messages.map((m) => String(m.content).split(':')[0])).toEqual(['4', '5', '6', '7', '8', '9']);
    expect(total(budget, fitted)).toBeLessThanOrEqual(budget.limit);
  });

  it("then cuts the earlier steps' results, the oldest first", () => {
    const history = [user(1, 300), user(2, 30)];
    const earlier = [...step(1_800), ...step(1_800), ...step(300)];
    const fitted = fitRequest(budget, history, earlier);
    expect(total(budget, fitted)).toBeLessThanOrEqual(budget.limit);
    expect(fitted.messages[0]).toEqual(user(2, 30));
    const results = fitted.messages.filter((m) => m.role === 'tool').map(resultText);
    expect(results[0]).toBe(CUT_MARKER);
    expect(results[1]!.endsWith(CUT_MARKER)).toBe(true);
    expect(results[1]!.length).toBeGreaterThan(CUT_MARKER.length);
    expect(results[2]).toBe('r'.repeat(300));
  });

  it('then cuts the newest message, and drops whole steps only when that is not enough', () => {
    const huge = user(9, 30_000);
    const cut = fitRequest(budget, [huge], step(900));
    expect(total(budget, cut)).toBeLessThanOrEqual(budget.limit);
    expect(cut.messages).toHaveLength(3);
    expect(String(cut.messages[0]!.content).endsWith(CUT_MARKER)).toBe(true);
    const many = Array.from({ length: 60 }, () => step(10)).flat(); // the calls alone are over the room
    const dropped = fitRequest(budget, [huge], many);
    expect(total(budget, dropped)).toBeLessThanOrEqual(budget.limit);
    expect(dropped.messages.length).toBeLessThan(many.length + 1);
    expect(dropped.messages.length % 2).toBe(1); // each call kept with its result
    const lastResult = (m: ModelMessage | undefined) => (m?.role === 'tool' ? m.content[0] : undefined);
    expect(lastResult(dropped.messages.at(-1))).toMatchObject({
      toolCallId: (lastResult(many.at(-1)) as { toolCallId: string }).toolCallId,
    });
  });

  it('lowers the output allowance for messages that need the room, down to half of what the fixed part leaves', () => {
    const whole: RequestBudget = { limit: 1_000, fixed: 0, maxOutputTokens: 1_000 }; // maxTokens may be the whole limit
    const short = fitRequest(whole, [user(1, 30)], []);
    expect(short).toEqual({ messages: [user(1, 30)], maxOutputTokens: 1_000 - 18 });
    const tight: RequestBudget = { limit: 1_000, fixed: 900, maxOutputTokens: 500 };
    const fitted = fitRequest(tight, [user(1, 3_000)], step(100));
    expect(fitted.maxOutputTokens).toBe(50);
    expect(total(tight, fitted)).toBeLessThanOrEqual(tight.limit);
    expect(String(fitted.messages[0]!.content).endsWith(CUT_MARKER)).toBe(true);
  });

  it('never goes over the limit, whatever the sizes', () => {
    for (const limit of [200, 600, 3_000]) {
      for (const bytes of [0, 50, 3_000, 50_000]) {
        const b = requestBudget(limit, 'sys'.repeat(20), [{ name: 'echo', inputSchema: { type: 'object' } }], 150);
        const history = Array.from({ length: 5 }, (_, i) => user(i, bytes));
        const earlier = Array.from({ length: 5 }, () => step(bytes)).flat();
        expect(total(b, fitRequest(b, history, earlier))).toBeLessThanOrEqual(limit);
      }
    }
  });
});

describe('requestBudget', () => {
  it('refuses a system prompt and tools that leave no room: prompt_over_token_limit', () => {
    try {
      requestBudget(600, 'x'.repeat(1_683), [], 100); // 569 of 600: 32 must be left
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe('prompt_over_token_limit');
      expect((err as AppError).status).toBe(400);
    }
    expect(requestBudget(600, 'x'.repeat(1_680), [], 100)).toEqual({ limit: 600, fixed: 568, maxOutputTokens: 100 });
  });
});

describe('callGate', () => {
  const gated = (onRefused: (message: string) => void) => {
    const gate = callGate();
    const state = { running: 0, peak: 0, ran: 0, release: [] as (() => void)[] };
    const tools = gate.wrap(
      {
        echo: {
          inputSchema: { type: 'object' } as never,
          execute: async () => {
            state.ran++;
            state.peak = Math.max(state.peak, ++state.running);
            await new Promise<void>((resolve) => state.release.push(resolve));
            state.running--;
            return 'ok';
          },
        },
      },
      (_tool, _input, message) => onRefused(message),
    );
    const call = () => tools.echo!.execute!({}, { toolCallId: 'c', messages: [], context: undefined });
    const tick = () => new Promise((r) => setTimeout(r, 0));
    /** Lets every started call end, the waiting ones after them. */
    const drain = async () => {
      await tick();
      while (state.running > 0 || state.release.length > 0) {
        for (const resolve of state.release.splice(0)) resolve();
        await tick();
      }
    };
    return { gate, state, call, drain };
  };

  it(`runs ${MAX_CALLS_PER_STEP} calls of a step, ${MAX_CALLS_AT_ONCE} at once, ${MAX_CALLS_PER_REPLY} in a reply; refuses the rest naming the bound`, async () => {
    const refused: string[] = [];
    const { gate, state, call, drain } = gated((m) => refused.push(m));
    const results = Array.from({ length: 20 }, () => Promise.resolve(call()).catch((err: Error) => err.message));
    await new Promise((r) => setTimeout(r, 0));
    expect(state.running).toBe(MAX_CALLS_AT_ONCE);
    await drain();
    expect((await Promise.all(results)).filter((r) => r === 'ok')).toHaveLength(MAX_CALLS_PER_STEP);
    expect(refused).toHaveLength(4);
    expect(refused[0]).toContain('of one model step');
    for (let i = 0; i < 4; i++) {
      gate.nextStep();
      const more = Array.from({ length: 16 }, () => Promise.resolve(call()).catch((err: Error) => err.message));
      await drain();
      await Promise.all(more);
    }
    expect(state.ran).toBe(MAX_CALLS_PER_REPLY);
    expect(state.peak).toBe(MAX_CALLS_AT_ONCE);
    expect(refused.at(-1)).toContain('in one reply');
  });
});

describe('withSummary and leftOutCount', () => {
  const budget: RequestBudget = { limit: 1_000, fixed: 100, maxOutputTokens: 200 };

  it('sends the summary first in every request, counted in the fixed part, and fits the history in the rest', () => {
    const withIt = withSummary(budget, 'what came before');
    expect(withIt.summary).toBe(summaryMessage('what came before'));
    expect(withIt.fixed).toBe(100 + modelMessageTokens({ role: 'system', content: withIt.summary! }));
    const history = Array.from({ length: 10 }, (_, i) => user(i, 300)); // 108 tokens each
    const fitted = fitRequest(withIt, history, step(30));
    expect(fitted.messages[0]).toEqual({ role: 'system', content: withIt.summary });
    expect(total(withIt, fitted)).toBeLessThanOrEqual(1_000);
    // 700 - the summary's tokens - the step's leave room for 5 notes; without a summary 6 (see leftOutCount).
    expect(fitted.messages.slice(1, -2).map((m) => String(m.content).split(':')[0])).toEqual(['5', '6', '7', '8', '9']);
    expect(leftOutCount(withIt, history)).toBe(4);
    expect(leftOutCount(budget, history)).toBe(4);
    expect(leftOutCount(budget, history.slice(0, 6))).toBe(0);
  });

  it('cuts a long summary to a quarter of what the fixed part leaves, and sends none when not even its marker fits', () => {
    const cut = withSummary(budget, 'y'.repeat(10_000));
    expect(cut.summary?.endsWith(CUT_MARKER)).toBe(true);
    expect(cut.fixed - budget.fixed).toBeLessThanOrEqual(Math.floor((1_000 - 100) / 4));
    expect(withSummary({ limit: 100, fixed: 60, maxOutputTokens: 10 }, 'anything')).toEqual({ limit: 100, fixed: 60, maxOutputTokens: 10 });
    expect(withSummary(budget, null)).toBe(budget);
  });
});
