/**
 * The daily token limits as written and as answered: a module of their own, with no
 * import but zod, so the CLI validates `--tokens-per-day` by the route's own rule.
 */
import { z } from '@hono/zod-openapi';

/** Largest daily limit one can set (10^12 tokens: far above any real day, well inside a JS number). */
export const MAX_TOKENS_PER_DAY = 1_000_000_000_000;

/** `limits` as written: in LLM settings (the agent) and at key creation (that key). */
export const UsageLimitsInputSchema = z
  .object({
    tokensPerDay: z.number().int().min(1).max(MAX_TOKENS_PER_DAY).nullable().optional().openapi({
      example: 200_000,
      description:
        'Input + output tokens per UTC day; a reply starting once they are reached is 429 `usage_limit_reached` (the model not called, nothing stored) until the next UTC midnight. Absent or null: no limit.',
    }),
  })
  .strict()
  .openapi('UsageLimitsInput');

/** `limits` as answered. */
export const UsageLimitsSchema = z
  .object({
    tokensPerDay: z
      .number()
      .int()
      .nullable()
      .openapi({ example: 200_000, description: 'Input + output tokens per UTC day; null: no limit' }),
  })
  .openapi('UsageLimits');
