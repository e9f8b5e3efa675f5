import { createRoute } from '@hono/zod-openapi';
import { AGENT_PATH, agentRoute } from '../http/agent-route';
import { errorResponse } from '../errors';
import { jsonResponse } from '../http/openapi';
import { MAX_RANGE_DAYS } from './report.service';
import { UsageQuerySchema, UsageReportSchema } from './schemas';

export const getUsage = createRoute({
  method: 'get',
  path: `${AGENT_PATH}/usage`,
  operationId: 'getUsage',
  tags: ['Usage'],
  summary: "The agent's token usage over a range of UTC days",
  description:
    "What the agent's model calls reported, exactly as the provider reported it (input, output, cached input; " +
    '0 where a provider gives none), and the model and tool calls, summed over `from`..`to` (UTC days, ' +
    `both included; at most ${MAX_RANGE_DAYS} days; default today). \`groups\` cuts the same sums by day, ` +
    "by credential (`wallet:0x…` for a wallet's token, `key:{id}` for an agent key, `oauth:0x…:{clientId}` for an OAuth app acting for that wallet, `delegate:0x…` / `renter:0x…` for a delegate's or a renter's token) or by context key, " +
    "only groups with usage, in key order; `totals` are the same whatever `groupBy`. A reply's usage " +
    "is written by the time its answer is sent, a failed reply's too (what the model reported before it failed).",
  security: agentRoute.security,
  request: { params: agentRoute.params, query: UsageQuerySchema },
  responses: {
    200: jsonResponse('Totals and groups', UsageReportSchema),
    ...agentRoute.errors,
    400: errorResponse(
      `\`validation_failed\`: bad collection address or token id, \`from\`/\`to\` not a UTC day \`YYYY-MM-DD\`, \`from\` after \`to\`, a range over ${MAX_RANGE_DAYS} days, or \`groupBy\` not day, credential or context`,
    ),
  },
});
