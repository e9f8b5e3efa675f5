/**
 * The pure parts of usage and limits: UTC days, Retry-After to the next UTC
 * midnight, the report's range rules, and which limit a day's usage reaches (agent or key).
 */
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors';
import { daysIncluded, isUtcDay, secondsToNextUtcDay, utcDay } from '../../src/usage/day';
import { checkUsageLimits, type DayUsage } from '../../src/usage/limits';
import { addModelUsage, usageMeter } from '../../src/usage/meter';
import { usageRange } from '../../src/usage/report.service';

const at = (iso: string) => Date.parse(iso);

function refusal(run: () => void): AppError {
  try {
    run();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('UTC days', () => {
  it('are the UTC calendar day, Retry-After counts whole seconds to the next midnight (at least 1)', () => {
    expect(utcDay(at('2026-11-25T23:59:59.999Z'))).toBe('2026-11-25');
    expect(utcDay(at('2026-11-26T00:00:00.000Z'))).toBe('2026-11-26');
    expect(secondsToNextUtcDay(at('2026-11-25T00:00:00.000Z'))).toBe(86_400);
    expect(secondsToNextUtcDay(at('2026-11-25T23:00:00.000Z'))).toBe(3_600);
    expect(secondsToNextUtcDay(at('2026-11-25T23:59:59.900Z'))).toBe(1);
  });

  it('accept only real calendar days written YYYY-MM-DD', () => {
    for (const ok of ['2026-01-01', '2024-02-29', '2026-12-31']) expect(isUtcDay(ok), ok).toBe(true);
    for (const bad of ['2026-02-29', '2026-02-30', '2026-13-01', '2026-1-05', '20260105', '2026-01-05T00:00:00Z', '', 'today']) {
      expect(isUtcDay(bad), bad).toBe(false);
    }
    expect(daysIncluded('2026-01-01', '2026-01-01')).toBe(1);
    expect(daysIncluded('2025-12-31', '2026-12-31')).toBe(366);
  });

  it("a report's range: to defaults to today, from to to; from after to and over 366 days are validation_failed", () => {
    const now = at('2026-11-25T12:00:00Z');
    expect(usageRange({}, now)).toEqual({ from: '2026-11-25', to: '2026-11-25' });
    expect(usageRange({ from: '2026-11-01' }, now)).toEqual({ from: '2026-11-01', to: '2026-11-25' });
    expect(usageRange({ to: '2026-01-05' }, now)).toEqual({ from: '2026-01-05', to: '2026-01-05' });
    expect(refusal(() => usageRange({ from: '2026-11-26' }, now)).code).toBe('validation_failed');
    expect(refusal(() => usageRange({ from: '2025-01-01', to: '2026-01-02' }, now)).code).toBe('validation_failed');
  });
});

describe('limits', () => {
  const day = (byCredential: Record<string, number>): DayUsage => ({
    day: '2026-11-25',
    byCredential: new Map(Object.entries(byCredential)),
  });
  const now = at('2026-11-25T22:00:00Z');

  it("the agent's limit counts every credential; a key's limit its own usage; under both, nothing happens", () => {
    const usage = day({ 'wallet:0xA': 60, 'key:k1': 30, 'key:k2': 10 });
    const key1 = { credential: 'key:k1' as const, tokensPerDay: 40 };
    checkUsageLimits(usage, { agentTokensPerDay: 101, caller: key1 }, now);
    checkUsageLimits(usage, { agentTokensPerDay: null, caller: { credential: 'key:k2', tokensPerDay: 11 } }, now);
    const agent = refusal(() => checkUsageLimits(usage, { agentTokensPerDay: 100, caller: key1 }, now));
    expect(agent.code).toBe('usage_limit_reached');
    expect(agent.status).toBe(429);
    expect(agent.headers).toEqual({ 'Retry-After': '7200' });
    expect(agent.details).toEqual({
      limit: 'agent',
      tokensPerDay: 100,
      usedTokens: 100,
      day: '2026-11-25',
      resetsAt: '2026-11-26T00:00:00.000Z',
    });
    const key = refusal(() => checkUsageLimits(usage, { agentTokensPerDay: null, caller: { ...key1, tokensPerDay: 30 } }, now));
    expect(key.details).toMatchObject({ limit: 'key', tokensPerDay: 30, usedTokens: 30 });
  });

  it('a meter sums what each call reported; absent or nonsense counts are 0', () => {
    const meter = usageMeter();
    addModelUsage(meter, { inputTokens: 10, outputTokens: 2, inputTokenDetails: { cacheReadTokens: 4 } });
    addModelUsage(meter, { inputTokens: undefined, outputTokens: Number.NaN, inputTokenDetails: { cacheReadTokens: -3 } });
    addModelUsage(meter, { inputTokens: 5.7, outputTokens: 1 });
    expect(meter).toEqual({ inputTokens: 15, outputTokens: 3, cachedInputTokens: 4, modelCalls: 0, toolCalls: 0 });
  });
});
