/**
 * The owner's price of a paid reply (LLM settings' `pricing`): anyone may then ask the agent at
 * POST …/paid/ask and pay in USDC, with x402, to whoever owns it at that moment. Shown to the
 * owner only: the gateway refuses anyone else's change of it.
 */
import { CheckField } from './controls';
import { Field } from './field';

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

export function PaidReplies(props: { value: PaidForm; onChange: (value: PaidForm) => void; paidUrl: string; error?: string | undefined }) {
  const { value, onChange, paidUrl, error } = props;
  return (
    <fieldset class="paid">
      <legend>Paid replies</legend>
      <p class="muted" id="paid-help">
        With a price, anyone may ask this agent at <code>{paidUrl}</code> without a key and pay for each reply in USDC (x402). Payments go
        to whoever owns the agent at that moment, and run on its model key; a reply that fails is not charged. Empty: no paid replies.
      </p>
      <div class="grid">
        <Field
          label="Price per reply (USD)"
          name="priceUsd"
          value={value.price}
          onInput={(price: string) => onChange({ ...value, price })}
          inputmode="decimal"
          placeholder="off"
          error={error}
        />
      </div>
      <CheckField
        label="Let paid replies search memory"
        name="priceMemoryTools"
        checked={value.memoryTools}
        onChange={(memoryTools: boolean) => onChange({ ...value, memoryTools })}
        hint="The memory tools search and read every context of the agent. Off: a payer reaches only its own conversation."
      />
    </fieldset>
  );
}
