/**
 * The local stack's switches as `npm run dev` parses them from the environment: the
 * worker flags and the latency switches, which stay in the stand-ins and never reach a worker.
 */
import { describe, expect, it } from 'vitest';
import { devSwitchBindings, devSwitches, MAX_DEV_LATENCY_MS } from '../../scripts/lib/stack';

describe('DEV_RPC_LATENCY_MS and DEV_DB_LATENCY_MS', () => {
  it('are 0 when unset or empty, and whole milliseconds up to 10000 otherwise', () => {
    expect(devSwitches({}).latency).toEqual({ rpcMs: 0, dbMs: 0 });
    expect(devSwitches({ DEV_RPC_LATENCY_MS: '', DEV_DB_LATENCY_MS: '' }).latency).toEqual({ rpcMs: 0, dbMs: 0 });
    expect(devSwitches({ DEV_RPC_LATENCY_MS: '60', DEV_DB_LATENCY_MS: '20' }).latency).toEqual({ rpcMs: 60, dbMs: 20 });
    expect(devSwitches({ DEV_RPC_LATENCY_MS: '0', DEV_DB_LATENCY_MS: '10000' }).latency).toEqual({ rpcMs: 0, dbMs: 10_000 });
    expect(devSwitches({ DEV_DB_LATENCY_MS: '007' }).latency).toEqual({ rpcMs: 0, dbMs: 7 });
    expect(MAX_DEV_LATENCY_MS).toBe(10_000);
  });

  it('refuse anything else, naming the variable and the value', () => {
    for (const bad of ['10001', '-1', '1.5', '1e3', 'abc', ' 5', '5 ', '0x10', '99999', '+5']) {
      expect(() => devSwitches({ DEV_RPC_LATENCY_MS: bad }), bad).toThrow(`DEV_RPC_LATENCY_MS=${bad}:`);
      expect(() => devSwitches({ DEV_DB_LATENCY_MS: bad }), bad).toThrow(`DEV_DB_LATENCY_MS=${bad}:`);
    }
  });

  it('are not passed to the workers; the worker flags keep their defaults beside them', () => {
    const env = { DEV_RPC_LATENCY_MS: '60', DEV_DB_LATENCY_MS: '20', DEV_RATE_LIMITS: '0' };
    expect(devSwitches(env).bindings).toEqual({ DEV_LOOPBACK_TARGETS: '1', DEV_RATE_LIMITS: '0' });
    expect(devSwitchBindings(env)).toEqual({ DEV_LOOPBACK_TARGETS: '1', DEV_RATE_LIMITS: '0' });
  });

  it('a bad flag still fails the whole parse', () => {
    expect(() => devSwitches({ DEV_RPC_LATENCY_MS: '60', DEV_RATE_LIMITS: 'off' })).toThrow(/DEV_RATE_LIMITS=off/);
  });
});

describe('DEV_WRANGLER', () => {
  it('is on (wrangler dev) unless set to 0, and never reaches a worker', () => {
    expect(devSwitches({}).wranglerDev).toBe(true);
    expect(devSwitches({ DEV_WRANGLER: '' }).wranglerDev).toBe(true);
    expect(devSwitches({ DEV_WRANGLER: '1' }).wranglerDev).toBe(true);
    expect(devSwitches({ DEV_WRANGLER: '0' }).wranglerDev).toBe(false);
    expect(Object.keys(devSwitches({ DEV_WRANGLER: '0' }).bindings)).not.toContain('DEV_WRANGLER');
  });

  it('refuses anything but 0 or 1, naming it', () => {
    for (const bad of ['no', 'false', '2', ' 0']) expect(() => devSwitches({ DEV_WRANGLER: bad }), bad).toThrow(`DEV_WRANGLER=${bad}:`);
  });
});

describe('DEV_INSPECT', () => {
  it('is off unless set to 1, and never reaches a worker', () => {
    expect(devSwitches({}).inspect).toBe(false);
    expect(devSwitches({ DEV_INSPECT: '0' }).inspect).toBe(false);
    expect(devSwitches({ DEV_INSPECT: '1' }).inspect).toBe(true);
    expect(Object.keys(devSwitches({ DEV_INSPECT: '1' }).bindings)).not.toContain('DEV_INSPECT');
  });

  it('refuses anything but 0 or 1, naming it', () => {
    for (const bad of ['yes', '2']) expect(() => devSwitches({ DEV_INSPECT: bad }), bad).toThrow(`DEV_INSPECT=${bad}:`);
  });
});

describe('DEV_LLM', () => {
  it('starts the stand-in model server unless set to 0, and never reaches a worker', () => {
    expect(devSwitches({}).standinLlm).toBe(true);
    expect(devSwitches({ DEV_LLM: '' }).standinLlm).toBe(true);
    expect(devSwitches({ DEV_LLM: '1' }).standinLlm).toBe(true);
    expect(devSwitches({ DEV_LLM: '0' }).standinLlm).toBe(false);
    expect(Object.keys(devSwitches({ DEV_LLM: '0' }).bindings)).not.toContain('DEV_LLM');
  });

  it('refuses anything but 0 or 1, naming it', () => {
    for (const bad of ['off', 'true', '2', ' 1']) expect(() => devSwitches({ DEV_LLM: bad }), bad).toThrow(`DEV_LLM=${bad}:`);
  });
});
