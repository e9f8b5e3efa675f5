/**
 * The price of a paid reply as data: dollars written by the owner to USDC's 6-decimal units and
 * back (src/settings/pricing.ts), and the x402 terms the paid route offers for one reply
 * (`paidRouteConfig` in src/paid/x402.ts): exact USDC of the chain, its EIP-712 domain, the owner.
 */
import { describe, expect, it } from 'vitest';
import { USDC } from '../../src/chains';
import { PAYMENT_TIMEOUT_SECONDS, paidRouteConfig } from '../../src/paid/x402';
import { unitsToUsd, usdToUnits } from '../../src/encoding/usd-units';
import { MAX_PRICE_UNITS, MIN_PRICE_UNITS } from '../../src/settings/price-rules';
import { AgentPricingSchema, PriceUsdSchema } from '../../src/settings/pricing';

describe('usdToUnits and unitsToUsd', () => {
  it.each([
    ['0.001', 1_000],
    ['0.01', 10_000],
    ['0.5', 500_000],
    ['1', 1_000_000],
    ['1.000001', 1_000_001],
    ['12.345678', 12_345_678],
    ['100', 100_000_000],
    ['0', 0],
  ])('%s dollars is %i units', (usd, units) => {
    expect(usdToUnits(usd)).toBe(units);
  });

  it('round-trips every shortest form, and writes units without trailing zeros', () => {
    for (const usd of ['0.001', '0.01', '0.1', '0.123456', '1', '1.5', '9.99', '42', '99.999999', '100']) {
      const units = usdToUnits(usd);
      expect(units, usd).not.toBeNull();
      expect(unitsToUsd(units as number)).toBe(usd);
    }
    expect(unitsToUsd(10_000)).toBe('0.01');
    expect(unitsToUsd(1_500_000n)).toBe('1.5');
    expect(unitsToUsd(0)).toBe('0');
    expect(usdToUnits('0.010')).toBe(10_000);
    expect(usdToUnits('1.50')).toBe(1_500_000);
  });

  it.each([
    '1.1234567',
    '00.1',
    '01',
    '007',
    '.5',
    '5.',
    '1e2',
    '-1',
    '+1',
    ' 1',
    '1 ',
    '1,5',
    'abc',
    '',
    '1000',
    '0x10',
    'Infinity',
    'NaN',
  ])('refuses %j', (usd) => {
    expect(usdToUnits(usd)).toBeNull();
  });
});

describe('the price as the settings route takes it', () => {
  it('accepts 0.001 to 100 with at most 6 places', () => {
    for (const usd of ['0.001', '0.01', '1', '99.999999', '100', '100.000000'])
      expect(PriceUsdSchema.safeParse(usd).success, usd).toBe(true);
    expect(usdToUnits('0.001')).toBe(MIN_PRICE_UNITS);
    expect(usdToUnits('100')).toBe(MAX_PRICE_UNITS);
  });

  it('refuses what is under 0.001 or over 100, more than 6 places, leading zeros, and anything but a string', () => {
    for (const usd of ['0', '0.0009', '0.000999', '100.000001', '100.01', '999', '1.1234567', '00.5', 'abc', '']) {
      expect(PriceUsdSchema.safeParse(usd).success, usd).toBe(false);
    }
    for (const value of [1, 0.01, null, true, {}]) expect(PriceUsdSchema.safeParse(value).success, String(value)).toBe(false);
  });

  it('takes askUsd and an optional memoryTools, nothing else', () => {
    expect(AgentPricingSchema.parse({ askUsd: '0.01' })).toEqual({ askUsd: '0.01' });
    expect(AgentPricingSchema.parse({ askUsd: '0.01', memoryTools: true })).toEqual({ askUsd: '0.01', memoryTools: true });
    expect(AgentPricingSchema.safeParse({ askUsd: '0.01', memoryTools: 'yes' }).success).toBe(false);
    expect(AgentPricingSchema.safeParse({ askUsd: '0.01', tools: true }).success).toBe(false);
    expect(AgentPricingSchema.safeParse({}).success).toBe(false);
  });
});

describe('paidRouteConfig: the terms of one paid reply', () => {
  const owner = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
  const terms = (chainId: 137 | 80002, units = 10_000) => ({
    chainId,
    payTo: owner,
    units,
    resource: 'https://gateway.example/agent/0x5FbDB2315678afecb367f032d93F642f64180aa3/7/paid/ask',
    description: 'A reply of agent 7',
    unpaidBody: () => ({ error: { code: 'payment_required' } }),
    settleFailedBody: (reason: string | undefined) => ({ error: { code: 'payment_settlement_failed', reason } }),
  });

  it.each([137, 80002] as const)(
    'offers one way to pay on chain %i: exact USDC, its domain, to the owner, within the timeout',
    (chainId) => {
      const config = paidRouteConfig(terms(chainId, 25_000));
      expect(config.accepts).toEqual({
        scheme: 'exact',
        network: `eip155:${chainId}`,
        payTo: owner,
        price: { asset: USDC[chainId].address, amount: '25000', extra: { name: USDC[chainId].name, version: USDC[chainId].version } },
        maxTimeoutSeconds: PAYMENT_TIMEOUT_SECONDS,
      });
      expect(config).toMatchObject({ resource: terms(chainId).resource, description: 'A reply of agent 7', mimeType: 'application/json' });
    },
  );

  it("answers a 402 with the gateway's error bodies", async () => {
    const config = paidRouteConfig(terms(80002));
    const context = {} as Parameters<NonNullable<typeof config.unpaidResponseBody>>[0];
    expect(await config.unpaidResponseBody?.(context)).toEqual({
      contentType: 'application/json',
      body: { error: { code: 'payment_required' } },
    });
    const failed = await config.settlementFailedResponseBody?.(
      context as never,
      { success: false, errorReason: 'insufficient_funds' } as never,
    );
    expect(failed).toEqual({
      contentType: 'application/json',
      body: { error: { code: 'payment_settlement_failed', reason: 'insufficient_funds' } },
    });
  });

  it('USDC has 6 decimals and its own domain on each chain', () => {
    expect(USDC[137]).toMatchObject({ name: 'USD Coin', version: '2', decimals: 6 });
    expect(USDC[80002]).toMatchObject({ name: 'USDC', version: '2', decimals: 6 });
    expect(USDC[137].address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(USDC[137].address.toLowerCase()).not.toBe(USDC[80002].address.toLowerCase());
  });
});
