import { createRoute, z } from '@hono/zod-openapi';
import { errorResponse, RATE_LIMITED_RESPONSE } from '../errors';
import { AGENT_PATH, agentRoute } from '../http/agent-route';
import { jsonResponse } from '../http/openapi';

const EXAMPLE_AGENT = 'https://gateway.example/agent/0x5FbDB2315678afecb367f032d93F642f64180aa3/1';
const TextModes = z.array(z.string()).openapi({ example: ['text/plain'] });
const SchemeNames = z.record(z.string(), z.object({ list: z.array(z.string()) }).partial());

/** A2A v1.0's Agent Card in its JSON form: the fields this gateway writes. */
export const AgentCardSchema = z
  .object({
    name: z.string().openapi({ example: 'Warranty desk' }),
    description: z.string().openapi({ example: 'Answers questions about orders and warranties.' }),
    supportedInterfaces: z
      .array(
        z.object({
          url: z.string().openapi({ example: `${EXAMPLE_AGENT}/a2a` }),
          protocolBinding: z.literal('JSONRPC'),
          protocolVersion: z.literal('1.0'),
        }),
      )
      .openapi({ description: "The agent's A2A endpoint (`POST …/a2a`), JSON-RPC, A2A 1.0" }),
    version: z.string().openapi({ example: '1.0.0' }),
    documentationUrl: z.string().openapi({ example: 'https://gateway.example/docs' }),
    capabilities: z.object({ streaming: z.literal(true), pushNotifications: z.literal(false) }),
    securitySchemes: z.record(z.string(), z.object({}).passthrough()).openapi({
      description:
        '`agentKey`: `httpAuthSecurityScheme`, Bearer, an agent key with scope `reply`. `oauth`: `oauth2SecurityScheme`, the ' +
        "gateway's authorization server (authorization code, PKCE), tokens bound to the agent's A2A URL as `resource`",
    }),
    securityRequirements: z
      .array(z.object({ schemes: SchemeNames }))
      .openapi({ description: 'Either scheme is enough: `agentKey` or `oauth`' }),
    defaultInputModes: TextModes,
    defaultOutputModes: TextModes,
    skills: z
      .array(
        z.object({
          id: z.string().openapi({ example: 'ask' }),
          name: z.string(),
          description: z.string(),
          tags: z.array(z.string()),
          inputModes: TextModes,
          outputModes: TextModes,
        }),
      )
      .openapi({ description: 'One skill per tool family: `ask` (a reply), `memory`' }),
    iconUrl: z.string().optional().openapi({ description: "The profile's image, when it is an https URL" }),
  })
  .openapi('AgentCard');

export const getAgentCard = createRoute({
  method: 'get',
  path: `${AGENT_PATH}/.well-known/agent-card.json`,
  operationId: 'getAgentCard',
  tags: ['Agents'],
  summary: "The agent's A2A Agent Card (public)",
  description:
    "Public, no credential: the A2A v1.0 Agent Card built from the owner's profile, which another agent reads before " +
    "it calls this one at `POST …/a2a`: the agent's name and description, its JSON-RPC interface, streaming, the two " +
    "ways to present a credential (an agent key with scope `reply`, or an OAuth access token issued for the agent's A2A " +
    'URL) and its skills. Served only while the wallet that set the profile owns the agent (read on-chain on every ' +
    'uncached request): after a transfer it is 404 until the new owner sets a profile. The registration file ' +
    '(`GET …/registration.json`) lists it among its services. Cached for 60 s ' +
    '(`Cache-Control: public, max-age=60`).',
  security: [],
  request: { params: agentRoute.params },
  responses: {
    200: {
      ...jsonResponse('The Agent Card', AgentCardSchema),
      headers: { 'Cache-Control': { description: '`public, max-age=60`', schema: { type: 'string' as const } } },
    },
    400: agentRoute.errors[400],
    404: errorResponse(
      '`agent_not_found`: the collection is not registered on this deployment; `profile_not_found`: the owner set no profile, ' +
        'or the profile was set by a previous owner (after a transfer, until the new owner sets one)',
    ),
    429: RATE_LIMITED_RESPONSE,
    503: errorResponse('`dependency_unavailable`: the database or the chain RPC did not answer; retry after Retry-After seconds'),
  },
});
