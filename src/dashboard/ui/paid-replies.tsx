/**
 * The owner's price of a paid reply (LLM settings' `pricing`): anyone may then ask the agent at
 * POST …/paid/ask and pay in USDC, with x402, to whoever owns it at that moment. Shown to the
 * owner only: the gateway refuses anyone else's change of it.
 */
import { CheckField } from './controls';
import { Field } from './field';
import type { PaidForm } from './paid-rules';

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
        hint="Any payer could then search and read every context of the agent, your own notes included: only for an agent whose memory is meant to be public. Off: a payer reaches only its own conversation."
      />
    </fieldset>
  );
}
