/**
 * The soak's judging logic (never its figures): the fault schedule scales with the run, routes
 * are named without ids, a 5xx is explained only by a code its fault documents while the fault is
 * in force (or within 10 s of its end), recovery is measured from the fault's end, and the
 * verdict fails on a lost write, an unexplained 5xx, a slow recovery or a leftover process.
 */
import { describe, expect, it } from 'vitest';
import { FAULT_KINDS, type FaultWindow, planFaults } from '../../scripts/soak/faults';
import { routeOf, type Sample } from '../../scripts/soak/record';
import { buildReport, explainedBy, recovery, slowAfterFault } from '../../scripts/soak/report';

const sample = (start: number, ms: number, status = 200, code?: string, route = 'POST /x'): Sample => ({
  route,
  via: 'token',
  start,
  end: start + ms,
  status,
  ...(code ? { code } : {}),
});
const rpcFault: FaultWindow = { kind: 'rpc', index: 0, start: 20_000, end: 30_000 };
const cleanReadBack = {
  messagesAcked: 3,
  messagesFound: 3,
  repliesAcked: 1,
  repliesFound: 1,
  duplicates: 0,
  lost: [],
  retried: 0,
  replayed: 0,
  toolErrorSteps: 0,
};

describe('soak schedule', () => {
  it('a 2-minute run injects each fault once, a 30-minute run each 15 times, in slots of 20 s or more', () => {
    const short = planFaults(120_000);
    expect(short.faults.map((f) => f.kind)).toEqual([...FAULT_KINDS]);
    const long = planFaults(30 * 60_000);
    expect(long.faults).toHaveLength(60);
    for (const plan of [short, long]) {
      const gaps = plan.faults.slice(1).map((f, i) => f.at - plan.faults[i]!.at);
      expect(Math.min(...gaps)).toBeGreaterThanOrEqual(20_000);
      expect(plan.faults.at(-1)!.at + 20_000).toBeLessThanOrEqual(plan.faults.length === 4 ? 120_000 : 30 * 60_000);
    }
  });

  it('refuses a run too short for one slot per fault', () => {
    expect(() => planFaults(60_000)).toThrow(/at least 2 minutes/);
  });
});

describe('soak routes', () => {
  it('names a route by its template, without agent, context or connection ids', () => {
    expect(routeOf('POST', 'http://127.0.0.1:1/agent/0xAbC/123/context/soak-1-a/messages?x=1')).toBe(
      'POST /agent/{agent}/context/{key}/messages',
    );
    expect(routeOf('GET', 'http://127.0.0.1:1/agent/0xAbC/1/contexts/keys')).toBe('GET /agent/{agent}/contexts/keys');
    expect(routeOf('POST', 'http://127.0.0.1:1/auth/jwt/init')).toBe('POST /auth/jwt/init');
  });
});

describe('soak judging', () => {
  it('explains a 5xx only by a code of the fault in force, up to 10 s after it ends', () => {
    expect(explainedBy(sample(25_000, 50, 503, 'dependency_unavailable'), [rpcFault])).toBe(rpcFault);
    expect(explainedBy(sample(39_000, 50, 503, 'dependency_unavailable'), [rpcFault])).toBe(rpcFault);
    expect(explainedBy(sample(41_000, 50, 503, 'dependency_unavailable'), [rpcFault])).toBeUndefined();
    expect(explainedBy(sample(25_000, 50, 500, 'internal_error'), [rpcFault])).toBeUndefined();
    expect(explainedBy(sample(25_000, 50, 504, 'llm_timeout'), [rpcFault])).toBeUndefined();
  });

  it('explains a 409 reply_in_progress only by a Postgres kill (the release it held up), up to 10 s after it', () => {
    const pgFault: FaultWindow = { ...rpcFault, kind: 'postgres' };
    expect(explainedBy(sample(32_000, 20, 409, 'reply_in_progress'), [pgFault])).toBe(pgFault);
    expect(explainedBy(sample(41_000, 20, 409, 'reply_in_progress'), [pgFault])).toBeUndefined();
    expect(explainedBy(sample(32_000, 20, 409, 'reply_in_progress'), [rpcFault])).toBeUndefined();
  });

  it('measures recovery from the end of the fault to the end of the last bad answer', () => {
    const p99 = 100;
    // Good at once: 0. No request after the end: null. Never good again: Infinity.
    expect(recovery([sample(25_000, 10, 503), sample(31_000, 20)], rpcFault, 60_000, p99)).toBe(0);
    expect(recovery([sample(25_000, 10, 503)], rpcFault, 60_000, p99)).toBeNull();
    expect(recovery([sample(31_000, 10, 503), sample(32_000, 10, 503)], rpcFault, 60_000, p99)).toBe(Number.POSITIVE_INFINITY);
    // A failure 4 s after the end, a slow answer ending at 36.5 s, then good answers: 6.5 s.
    const after = [sample(34_000, 10, 503), sample(35_000, 1_500), sample(37_000, 20), sample(38_000, 20), sample(39_000, 20)];
    expect(recovery(after, rpcFault, 60_000, p99)).toBe(6_500);
    // Served but slow, and no request after it: back when that answer came.
    expect(recovery([sample(31_000, 10, 503), sample(33_000, 1_500)], rpcFault, 60_000, p99)).toBe(4_500);
    // A slow answer begun 10 s or more after the end is noise, not the fault.
    expect(recovery([sample(40_500, 1_500), sample(43_000, 20)], rpcFault, 60_000, p99)).toBe(0);
    // A good answer the next request undoes does not count.
    expect(recovery([sample(31_000, 20), sample(32_000, 10, 503), sample(33_000, 20)], rpcFault, 60_000, p99)).toBe(2_010);
    // A little over the steady p99 is not slow: the only request after the end, just under 10 s
    // after it, at 23 ms against a p99 of 19.2 ms (a CI soak failed on it), is back at once.
    const rpcEnd = rpcFault.end;
    expect(recovery([sample(rpcEnd + 9_990, 23)], rpcFault, 60_000, 19.2)).toBe(0);
    // Slow means over twice the p99 and at least 50 ms over it.
    expect(slowAfterFault(19.2)).toBeCloseTo(69.2);
    expect(slowAfterFault(700)).toBe(1_400);
    expect(recovery([sample(rpcEnd + 1_000, 150)], rpcFault, 60_000, 19.2)).toBe(1_150);
  });

  it('passes a clean run and fails on each of: a lost write, an unexplained 5xx, a slow recovery, a leftover', () => {
    const samples = [sample(1_000, 20), sample(25_000, 10, 503, 'dependency_unavailable'), sample(31_000, 20), sample(45_000, 20)];
    const base = { minutes: 2, clients: 1, samples, windows: [rpcFault], readBack: cleanReadBack, endOfLoad: 60_000, leftovers: [] };
    const clean = buildReport(base);
    expect(clean.ok).toBe(true);
    expect(clean.failuresByCause).toEqual({ '503 dependency_unavailable': { count: 1, explained: 1 } });
    expect(buildReport({ ...base, readBack: { ...cleanReadBack, messagesFound: 2 } }).ok).toBe(false);
    expect(buildReport({ ...base, readBack: { ...cleanReadBack, duplicates: 1 } }).ok).toBe(false);
    const unexplained = buildReport({ ...base, samples: [...samples, sample(50_000, 5, 500, 'internal_error')] });
    expect([unexplained.ok, unexplained.unexplained]).toEqual([false, 1]);
    const silent = buildReport({ ...base, samples: [...samples, sample(5_000, 30_000, 0, 'timeout')] });
    expect(silent.ok).toBe(false);
    // An answer slower than the steady p99 (20 ms) that ends 13 s after the fault: not back within 10 s.
    const slow = buildReport({ ...base, samples: [sample(1_000, 20), sample(35_000, 8_000), sample(44_000, 20)] });
    expect([slow.ok, slow.slowRecoveries]).toEqual([false, 1]);
    expect(buildReport({ ...base, leftovers: [{ pid: 1, cmdline: 'postgres' }] }).ok).toBe(false);
  });
});
