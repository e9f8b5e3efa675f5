/** `pay ask`: its flags, and the 402 terms it signs or refuses before anything is signed. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_USD, maxUnitsOf, messageOf, refusalOf } from '../../src/cli/pay';
import { USDC } from '../../src/chains';

const terms = (over: Partial<{ scheme: string; network: string; asset: string; amount: string }> = {}) => ({
  scheme: 'exact',
  network: 'eip155:80002',
  asset: USDC[80002].address.toLowerCase(),
  amount: '10000',
  ...over,
});

describe('pay ask: --max-usd and --message', () => {
  it('--max-usd is dollars in USDC units; 1 USD when absent', () => {
    expect(DEFAULT_MAX_USD).toBe('1');
    expect(maxUnitsOf({})).toBe(1_000_000);
    expect(maxUnitsOf({ 'max-usd': '0.05' })).toBe(50_000);
    expect(maxUnitsOf({ 'max-usd': '0.000001' })).toBe(1);
    expect(maxUnitsOf({ 'max-usd': '250' })).toBe(250_000_000);
  });

  it.each(['0', '0.0', '-1', 'abc', '1e3', '0.0000001', '$1', '', '1000'])('refuses --max-usd %j as a usage error (exit 2)', (raw) => {
    expect(() => maxUnitsOf({ 'max-usd': raw })).toThrow(
      expect.objectContaining({ exitCode: 2, message: expect.stringMatching(/^--max-usd takes US dollars above 0/) }),
    );
  });

  it('needs a --message that is not blank', () => {
    expect(messageOf({ message: 'hello' })).toBe('hello');
    for (const values of [{}, { message: '  ' }]) {
      expect(() => messageOf(values)).toThrow(
        expect.objectContaining({ exitCode: 2, message: '--message is required (what to ask the agent)' }),
      );
    }
  });
});

describe('pay ask: the terms of the 402', () => {
  it('pays exact USDC of the chain up to --max-usd (the cap itself included)', () => {
    expect(refusalOf(terms(), 80002, 10_000)).toBeNull();
    expect(refusalOf(terms({ asset: USDC[80002].address }), 80002, 1_000_000)).toBeNull();
  });

  it('refuses a price over --max-usd, naming the price asked and the cap', () => {
    expect(refusalOf(terms({ amount: '10001' }), 80002, 10_000)).toBe(
      'the agent asks 0.010001 USD per reply, more than --max-usd 0.01: nothing was paid',
    );
  });

  it('refuses another scheme, network, asset, or an amount that is not whole units', () => {
    expect(refusalOf(terms({ scheme: 'upto' }), 80002, 1e6)).toMatch(/scheme this CLI does not pay with \(upto\)/);
    expect(refusalOf(terms({ network: 'eip155:137' }), 80002, 1e6)).toMatch(/on eip155:137, not on its chain eip155:80002/);
    expect(refusalOf(terms({ asset: USDC[137].address }), 80002, 1e6)).toMatch(/not in USDC/);
    expect(refusalOf(terms({ amount: '0.5' }), 80002, 1e6)).toMatch(/not a whole count of USDC units/);
    expect(refusalOf(terms(), 1, 1e6)).toBe('chain 1 is not one this CLI pays on');
  });
});
