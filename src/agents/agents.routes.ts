import { createRoute } from '@hono/zod-openapi';
import { AGENT_PATH, AgentSummarySchema, agentRoute } from '../http/agent-route';

export const getAgent = createRoute({
  method: 'get',
  path: AGENT_PATH,
  operationId: 'getAgent',
  tags: ['Agents'],
  summary: 'The agent, as the gateway sees it',
  description:
    'Passes the three gates every agent-scoped route passes (bearer token of this chain, registered collection and valid token id, ' +
    "current on-chain owner, or the owner's delegate or the token's renter) and describes the agent, with the caller's `role`. " +
    'Useful to check access before a pipeline starts.\n\n' +
    '`configured` says whether the LLM settings and the profile exist, so a client reads them only when they do: ' +
    'for an agent without them, `GET …/llm/settings` and `GET …/profile` answer 404 (a browser logs every such answer as an error).',
  security: agentRoute.security,
  request: { params: agentRoute.params },
  responses: {
    200: {
      description: "The caller owns this agent, or is the owner's delegate or the token's renter with the owner's leave",
      content: { 'application/json': { schema: AgentSummarySchema } },
    },
    ...agentRoute.errors,
  },
});
