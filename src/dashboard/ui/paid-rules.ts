/**
 * The pure rules of the Paid replies section (paid-replies.tsx): the price as the gateway checks
 * it (its own rule, src/settings/price-rules.ts: the page loads no zod) and the settings' `pricing`
 * of the form.
 */
import { priceUnits } from '../../settings/price-rules';

export interface PaidForm {
  /** US dollars as typed; empty: no paid replies. */
  price: string;
  memoryTools: boolean;
}

/** What is wrong with the price as typed, in words (undefined: nothing; empty is "off"). */
export function priceError(price: string): string | undefined {
  const text = price.trim();
  if (text === '') return undefined;
  return priceUnits(text) !== null
    ? undefined
    : 'A price is US dollars from 0.001 to 100 with at most 6 decimal places, such as 0.01; empty for no paid replies.';
}

/** The settings' `pricing` of the form: null when the price is empty. */
export function pricingOf(form: PaidForm): { askUsd: string; memoryTools: boolean } | null {
  const text = form.price.trim();
  return text === '' ? null : { askUsd: text, memoryTools: form.memoryTools };
}
