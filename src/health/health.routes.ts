import { createRoute, z } from '@hono/zod-openapi';
import { RATE_LIMITED_RESPONSE } from '../errors';

const DependencyCheckSchema = z
  .object({
    ok: z.boolean(),
    latencyMs: z.number().int().nonnegative(),
    problem: z.string().optional().openapi({ example: 'did not answer' }),
  })
  .openapi('DependencyCheck');

export const HealthReportSchema = z
  .object({
    status: z.enum(['ok', 'unavailable']),
    chainId: z.number().int().openapi({ example: 80002 }),
    checks: z.object({ database: DependencyCheckSchema, chain: DependencyCheckSchema }),
  })
  .openapi('HealthReport');

export const getHealth = createRoute({
  method: 'get',
  path: '/health',
  operationId: 'getHealth',
  security: [],
  tags: ['Operations'],
  summary: 'Health of this deployment',
  description:
    "Answers 200 when Postgres answers a query and the chain RPC answers with this deployment's chain id; 503 (with `Retry-After`) naming the part that does not. Needs no token.",
  responses: {
    200: { description: 'Every dependency answers', content: { 'application/json': { schema: HealthReportSchema } } },
    503: {
      description: 'A dependency does not answer; `checks` names it',
      content: { 'application/json': { schema: HealthReportSchema } },
    },
    429: RATE_LIMITED_RESPONSE,
  },
});
