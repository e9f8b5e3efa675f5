/**
 * The price of one paid reply as a rule: its bounds in USDC units and its form. No imports but
 * the dollar encoding, so the settings schema (and through it the client and the CLI) and the
 * dashboard, which loads no zod, apply the same rule.
 */
import { usdToUnits } from '../encoding/usd-units';

/** The lowest and the highest price of one paid reply, in USDC units (0.001 and 100 dollars). */
export const MIN_PRICE_UNITS = 1_000;
export const MAX_PRICE_UNITS = 100_000_000;

/** `usd` as USDC units when it is a price (a decimal of at most 6 places, 0.001 to 100 dollars); null otherwise. */
export function priceUnits(usd: string): number | null {
  const units = usdToUnits(usd);
  return units !== null && units >= MIN_PRICE_UNITS && units <= MAX_PRICE_UNITS ? units : null;
}
