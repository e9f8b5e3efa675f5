/** `settings set --price/--price-memory-tools/--no-price`: the price rules before any request, and the body's `pricing`. */
import { describe, expect, it } from 'vitest';
import type { OptionValues } from '../../src/cli/command';
import { priceText } from '../../src/cli/settings';
import { givenSettings, pricingOf, settingsInput } from '../../src/cli/settings-input';
import type { LlmSettings } from '../../src/client/types';

const current: LlmSettings = {
  provider: 'openai',
  model: 'gpt-4.1-mini',
  temperature: 0,
  maxTokens: 512,
  baseUrl: null,
  apiKeySet: true,
  credential: 'set',
  limits: { tokensPerDay: null },
  summaries: true,
  access: { delegates: 'use', renters: 'use' },
  pricing: { askUsd: '0.5', memoryTools: true },
  updatedAt: '2026-11-28T00:00:00.000Z',
};
const body = (values: OptionValues) => settingsInput(givenSettings(values, {}), current);

describe('settings set: the price of a paid reply', () => {
  it('--price sends the price, without memory tools unless --price-memory-tools', () => {
    expect(body({ price: '0.01' }).pricing).toEqual({ askUsd: '0.01', memoryTools: false });
    expect(body({ price: ' 2.5 ', 'price-memory-tools': true }).pricing).toEqual({ askUsd: '2.5', memoryTools: true });
  });

  it('--no-price sends null; neither leaves pricing out, so the gateway keeps the stored price', () => {
    expect(body({ 'no-price': true }).pricing).toBeNull();
    expect(body({ model: 'gpt-4.1' })).not.toHaveProperty('pricing');
    expect(pricingOf({})).toBeUndefined();
  });

  it.each([
    ['0.0009', /^--price: a price is a decimal string of US dollars from 0\.001 to 100/],
    ['100.000001', /^--price: /],
    ['101', /^--price: /],
    ['0', /^--price: /],
    ['-1', /^--price: /],
    ['1e-2', /^--price: /],
    ['0.0000001', /^--price: /],
    ['$1', /^--price: /],
    ['', /^--price: /],
  ])('refuses --price %j by the route’s own rule (0.001 to 100, 6 decimals at most), naming the flag', (price, message) => {
    expect(() => givenSettings({ price }, {})).toThrow(message);
  });

  it('takes both bounds', () => {
    expect(pricingOf({ price: '0.001' })).toEqual({ askUsd: '0.001', memoryTools: false });
    expect(pricingOf({ price: '100' })).toEqual({ askUsd: '100', memoryTools: false });
  });

  it('refuses --price with --no-price, and --price-memory-tools alone, as usage errors (exit 2)', () => {
    expect(() => pricingOf({ price: '1', 'no-price': true })).toThrow(
      expect.objectContaining({ exitCode: 2, message: '--price and --no-price exclude each other' }),
    );
    expect(() => pricingOf({ 'price-memory-tools': true })).toThrow(
      expect.objectContaining({ exitCode: 2, message: expect.stringMatching(/^--price-memory-tools goes with --price/) }),
    );
  });

  it('shows the price line', () => {
    expect(priceText(null)).toBe('off (no price)');
    expect(priceText({ askUsd: '0.01', memoryTools: false })).toBe('0.01 USD in USDC to the owner, without the memory tools');
    expect(priceText({ askUsd: '3', memoryTools: true })).toBe('3 USD in USDC to the owner, with the memory tools');
  });
});
