/**
 * What a paid reply costs: the owner's price in US dollars, as written in LLM settings and as
 * USDC's 6-decimal units on chain (src/encoding/usd-units.ts), checked by the rule of
 * price-rules.ts. The settings route, the paid route, the client and the CLI's `--price` all apply
 * this schema; the dashboard the rule itself.
 */
import { z } from '@hono/zod-openapi';
import { priceUnits } from './price-rules';

/** A price in dollars as written: a decimal string, 0.001 to 100, at most 6 places. */
export const PriceUsdSchema = z
  .string()
  .refine(
    (usd) => priceUnits(usd) !== null,
    'a price is a decimal string of US dollars from 0.001 to 100 with at most 6 decimal places, such as "0.01"',
  )
  .openapi({ example: '0.01' });

/** `pricing` as written: what a stranger pays per reply (POST …/paid/ask), in USDC to the agent's owner. */
export const AgentPricingSchema = z
  .object({
    askUsd: PriceUsdSchema.openapi({
      description:
        'The price of one reply of POST …/paid/ask in US dollars, paid in USDC (6 decimals) to whoever owns the agent at that moment',
    }),
    memoryTools: z
      .boolean()
      .optional()
      .openapi({
        example: false,
        description:
          "Whether a paid reply may use the agent's memory tools (search and read of every context). Default false: the payer's " +
          'own conversation only. Tool-server tools are never offered to a payer.',
      }),
  })
  .strict();

export type AgentPricing = z.infer<typeof AgentPricingSchema>;
