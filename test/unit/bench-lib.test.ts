/**
 * The benchmark scripts' own logic (never their figures): the memory bench's command line,
 * the stack's latency switches as stack.json records them, how failures are counted, and how
 * sequential rounds are measured.
 */
import { describe, expect, it } from 'vitest';
import { BenchError, type StackInfo } from '../../scripts/bench/lib';
import { failureOf, stackLatency, timed } from '../../scripts/bench/lib/client';
import { measureCases } from '../../scripts/bench/lib/measure';
import { readOptions } from '../../scripts/bench/memory/options';
import { GatewayError } from '../../src/client';

const stack = (extra: Record<string, unknown> = {}) => ({ databaseUrl: 'postgres://x', ...extra }) as unknown as StackInfo;

describe('memory bench options', () => {
  it('runs every section with the documented defaults', () => {
    const { options, only, command } = readOptions([]);
    expect([...only].sort()).toEqual(['appends', 'ceiling', 'critical-path', 'lists', 'provisioning', 'seeding']);
    expect(options).toMatchObject({ big: 1_000_000, small: 10_000, requests: 50, batches: 200, write: false });
    expect(command).toBe('npm run bench');
  });

  it('--only picks sections; lists brings seeding; the command records the flags', () => {
    const { only, options, command } = readOptions(['--only', 'lists,ceiling', '--requests', '10', '--write']);
    expect([...only].sort()).toEqual(['ceiling', 'lists', 'seeding']);
    expect(options.requests).toBe(10);
    expect(command).toBe('npm run bench -- --only lists,ceiling --requests 10 --write');
    expect([...readOptions(['--only=critical-path']).only]).toEqual(['critical-path']);
  });

  it('refuses unknown sections, the removed catalog flag, and sizes below 2', () => {
    expect(() => readOptions(['--only', 'catalog'])).toThrow(/unknown section "catalog"/);
    expect(() => readOptions(['--agents', '1000'])).toThrow(/unknown flag --agents/);
    expect(() => readOptions(['--small', '1'])).toThrow(BenchError);
  });
});

describe('stack latency', () => {
  it('is 0/0 when stack.json records none, and reads rpcMs/dbMs when it does', () => {
    expect(stackLatency(stack())).toEqual({ rpcMs: 0, dbMs: 0 });
    expect(stackLatency(stack({ latency: { rpcMs: 60, dbMs: 20 } }))).toEqual({ rpcMs: 60, dbMs: 20 });
    expect(stackLatency(stack({ latency: { rpcMs: '60', dbMs: -1 } }))).toEqual({ rpcMs: 0, dbMs: 0 });
  });
});

describe('timed requests', () => {
  it('counts a gateway error as status and code, never its message', async () => {
    const err = new GatewayError({ status: 404, code: 'agent_not_found', message: 'secret-ish detail' });
    expect(failureOf(err)).toBe('404 agent_not_found');
    const step = await timed(() => Promise.reject(err));
    expect(step.failure).toBe('404 agent_not_found');
    expect(step.ms).toBeGreaterThanOrEqual(0);
  });

  it('a check can reject a 2xx answer', async () => {
    expect(
      (
        await timed(
          () => Promise.resolve(3),
          (n) => (n === 3 ? 'wrong' : undefined),
        )
      ).failure,
    ).toBe('wrong');
    expect(
      (
        await timed(
          () => Promise.resolve(4),
          (n) => (n === 3 ? 'wrong' : undefined),
        )
      ).failure,
    ).toBeUndefined();
  });
});

describe('measureCases', () => {
  it('runs every case once per round in order, drops warm-up rounds, counts failures apart', async () => {
    const order: string[] = [];
    let b = 0;
    const step = (name: string, ms: number, failure?: string) => async () => {
      order.push(name);
      return failure ? { ms, failure } : { ms };
    };
    const results = await measureCases(2, 3, [
      { gateway: step('a', 1), floor: null },
      { gateway: () => (b++ === 3 ? step('b', 9, '500 internal') : step('b', 2))(), floor: step('f', 0.5) },
    ]);
    expect(order).toEqual(Array.from({ length: 5 }, () => ['a', 'b', 'f']).flat());
    expect(results[0]!.gateway.n).toBe(3);
    expect(results[1]!.gateway.n).toBe(2);
    expect(results[1]!.gateway.median).toBe(2);
    expect(results[1]!.floor.n).toBe(3);
    expect(results[1]!.failures.format()).toBe('500 internal×1');
  });
});
