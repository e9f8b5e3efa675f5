/** The dashboard's price check (no zod in the page) agrees with the gateway's own rule, and the form's `pricing`. */
import { describe, expect, it } from 'vitest';
import { priceError, pricingOf } from '../../src/dashboard/ui/paid-rules';
import { PriceUsdSchema } from '../../src/settings/pricing';

const SAMPLES = [
  '0.001',
  '0.0009',
  '0.01',
  '1',
  '100',
  '100.0',
  '100.000001',
  '101',
  '0',
  '00.1',
  '.5',
  '1.',
  '1e-2',
  '-1',
  ' 1',
  '0.1234567',
  '99.999999',
  'abc',
  '1,5',
];

describe('the dashboard’s price of a paid reply', () => {
  it.each(SAMPLES)('judges %j as the gateway does', (price) => {
    expect(priceError(price) === undefined).toBe(PriceUsdSchema.safeParse(price.trim()).success);
  });

  it('empty is off: no error, pricing null; else the price with the memory tools choice', () => {
    expect(priceError('  ')).toBeUndefined();
    expect(pricingOf({ price: ' ', memoryTools: true })).toBeNull();
    expect(pricingOf({ price: ' 0.02 ', memoryTools: true })).toEqual({ askUsd: '0.02', memoryTools: true });
  });
});
