/** Usage and limits as the OpenAPI document shows them. */
import { z } from '@hono/zod-openapi';
import { isUtcDay } from './day';
import { USAGE_GROUP_BYS } from './report.service';

export { MAX_TOKENS_PER_DAY, UsageLimitsInputSchema, UsageLimitsSchema } from './limits-schemas';

export const UsageTotalsSchema = z
  .object({
    inputTokens: z.number().int().openapi({ example: 12_400 }),
    outputTokens: z.number().int().openapi({ example: 3_100 }),
    cachedInputTokens: z.number().int().openapi({
      example: 8_000,
      description: 'Input tokens the provider read from its cache (also in inputTokens); 0 where not reported',
    }),
    modelCalls: z.number().int().openapi({ example: 14, description: 'Model calls that answered' }),
    toolCalls: z.number().int().openapi({ example: 5, description: 'Tool calls the model made' }),
  })
  .openapi('UsageTotals');

const DaySchema = z.string().refine(isUtcDay, 'must be a UTC day written YYYY-MM-DD');

export const UsageQuerySchema = z.object({
  from: DaySchema.optional().openapi({
    param: { name: 'from', in: 'query' },
    example: '2026-11-01',
    description: 'First UTC day, included (default: `to`)',
  }),
  to: DaySchema.optional().openapi({
    param: { name: 'to', in: 'query' },
    example: '2026-11-30',
    description: 'Last UTC day, included (default: today)',
  }),
  groupBy: z
    .enum(USAGE_GROUP_BYS)
    .default('day')
    .openapi({ param: { name: 'groupBy', in: 'query' }, example: 'day', description: 'How `groups` are cut (default day)' }),
});

export const UsageReportSchema = z
  .object({
    from: z.string().openapi({ example: '2026-11-01' }),
    to: z.string().openapi({ example: '2026-11-30' }),
    groupBy: z.enum(USAGE_GROUP_BYS),
    totals: UsageTotalsSchema.extend({
      paidUsd: z.string().openapi({
        example: '0.25',
        description: 'What strangers paid in the range for paid replies (POST …/paid/ask), US dollars, settled payments only',
      }),
    }),
    groups: z.array(
      UsageTotalsSchema.extend({
        paidUsd: z
          .string()
          .optional()
          .openapi({ example: '0.05', description: 'With groupBy=day: what was paid that day (settled), US dollars' }),
        day: z.string().optional().openapi({ example: '2026-11-22', description: 'With groupBy=day' }),
        credential: z
          .string()
          .optional()
          .openapi({
            example: 'key:0b7f1f5e-5c0e-4a57-9a43-2f8d3b1c6e21',
            description:
              'With groupBy=credential: `wallet:0x…`, `key:{id}`, `oauth:0x…:{clientId}` (an OAuth app acting for that wallet), ' +
              "`delegate:0x…` / `renter:0x…` (a wallet that came in as the owner's delegate or the token's renter), or `payer:0x…` (a stranger who paid for replies)",
          }),
        contextKey: z.string().optional().openapi({ example: 'customer:42/chat', description: 'With groupBy=context' }),
      }).openapi('UsageGroup'),
    ),
    truncated: z.boolean().openapi({
      description: 'True when more than 1,000 groups had usage: `groups` then holds the 1,000 with the most tokens (totals count all)',
    }),
  })
  .openapi('UsageReport');
