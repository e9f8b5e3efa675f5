/**
 * The pure rules of the Paid replies section (paid-replies.tsx): the price as the gateway checks
 * it (without zod, which the page does not load) and the settings' `pricing` of the form.
 */

export interface PaidForm {
  /** US dollars as typed; empty: no paid replies. */
  price: string;
  memoryTools: boolean;
}

/** The lowest and highest price of one reply in dollars, and at most 6 places (USDC's decimals), as the gateway checks. */
const PRICE_FORM = /^(0|[1-9]\d{0,2})(\.\d{1,6})?$/;

/** What is wrong with the price as typed, in words (undefined: nothing; empty is "off"). */
export function priceError(price: string): string | undefined {
  const text = price.trim();
  if (text === '') return undefined;
  const dollars = Number(text);
  return PRICE_FORM.test(text) && dollars >= 0.001 && dollars <= 100
    ? undefined
    : 'A price is US dollars from 0.001 to 100 with at most 6 decimal places, such as 0.01; empty for no paid replies.';
}

/** The settings' `pricing` of the form: null when the price is empty. */
export function pricingOf(form: PaidForm): { askUsd: string; memoryTools: boolean } | null {
  const text = form.price.trim();
  return text === '' ? null : { askUsd: text, memoryTools: form.memoryTools };
}
