/**
 * Dollar amounts as USDC counts them: a decimal string of US dollars and the token's 6-decimal
 * units, both ways. No imports: the price rules (settings), the paid route and the usage report use it.
 */

/** USDC's decimals on every chain this gateway knows. */
export const USDC_DECIMALS = 6;

const USD_FORM = /^(0|[1-9]\d{0,2})(\.\d{1,6})?$/;

/** `"0.01"` → 10000 (USDC units); null when it is not a decimal with at most 6 places. */
export function usdToUnits(usd: string): number | null {
  const match = USD_FORM.exec(usd);
  if (!match) return null;
  const [whole, fraction = ''] = usd.split('.');
  return Number(whole) * 10 ** USDC_DECIMALS + Number(fraction.padEnd(USDC_DECIMALS, '0'));
}

/** 10000 → `"0.01"`: the shortest decimal for a count of USDC units (no trailing zeros). */
export function unitsToUsd(units: number | bigint): string {
  const n = BigInt(units);
  const scale = 10n ** BigInt(USDC_DECIMALS);
  const whole = n / scale;
  const fraction = (n % scale).toString().padStart(USDC_DECIMALS, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : String(whole);
}
