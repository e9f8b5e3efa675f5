import { createRoute, z } from '@hono/zod-openapi';
import { AGENT_PATH, agentRoute } from '../http/agent-route';
import { ContextParamsSchema } from '../contexts/contexts.routes';
import { errorResponse } from '../errors';
import { jsonResponse } from '../http/openapi';

export const ContextSummarySchema = z
  .object({
    contextKey: z.string().openapi({ example: 'chat:alice' }),
    summary: z.string().openapi({ example: 'Alice asked about the warranty of order INV-2024-0042; it ends in March.' }),
    fromId: z.number().int().openapi({ example: 1, description: 'The first message id the summary covers' }),
    toId: z.number().int().openapi({ example: 1041, description: 'The last message id the summary covers (inclusive)' }),
    createdAt: z.string().openapi({ example: '2026-11-22T07:30:00.000Z' }),
  })
  .openapi('ContextSummary');

export const readSummary = createRoute({
  method: 'get',
  path: `${AGENT_PATH}/context/{contextKey}/summary`,
  operationId: 'readSummary',
  tags: ['Contexts'],
  summary: "A context's summary of what replies left out",
  description:
    "When a reply had to leave a context's older messages out of the model's request (TOKEN__MAX_TOKENS_PER_REQUEST), " +
    "the agent's own model summarises them after the reply, unless the LLM settings say `summaries: false`. " +
    'This is the latest summary, with the message ids it covers (`fromId`..`toId`, inclusive); the next reply ' +
    'sends it after the prompt template, then only the messages after `toId`. The messages themselves never ' +
    'change.',
  security: agentRoute.security,
  request: { params: ContextParamsSchema },
  responses: {
    200: jsonResponse('The latest summary', ContextSummarySchema),
    ...agentRoute.errors,
    404: errorResponse('`context_not_found`: Context not found; `summary_not_found`: the context has no summary yet'),
  },
});
