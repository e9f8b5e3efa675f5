import { createRoute, z } from '@hono/zod-openapi';
import { AGENT_PATH, agentRoute } from '../http/agent-route';
import { errorResponse, RATE_LIMITED_RESPONSE } from '../errors';
import { jsonBody, jsonResponse } from '../http/openapi';
import {
  A2A_SERVICE_VERSION,
  IMAGE_RULES,
  isPlainText,
  isProfileImage,
  MAX_DESCRIPTION,
  MAX_NAME,
  MCP_SERVICE_VERSION,
  REGISTRATION_TYPE,
} from './rules';

const plainText = (max: number, multiline: boolean) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine(
      (t) => isPlainText(t, multiline),
      multiline
        ? 'must be well-formed, not blank, without control characters (but line breaks and tabs), line separators or bidi controls'
        : 'must be one line of well-formed text, not blank, without control characters, line separators or bidi controls',
    );

export const ProfileInputSchema = z
  .object({
    name: plainText(MAX_NAME, false).openapi({ example: 'Warranty desk', description: `1..${MAX_NAME} characters, one line` }),
    description: plainText(MAX_DESCRIPTION, true).openapi({
      example: 'Answers questions about orders and warranties. Reach it over MCP with an agent key (scope mcp) or OAuth.',
      description: `1..${MAX_DESCRIPTION} characters: what the agent does and how to reach it`,
    }),
    image: z
      .string()
      .refine(isProfileImage, `image: ${IMAGE_RULES}`)
      .nullable()
      .optional()
      .openapi({ example: 'https://example.com/agent.png', description: `Optional. ${IMAGE_RULES}` }),
  })
  .strict()
  .openapi('AgentProfileInput');

export const ProfileSchema = z
  .object({
    name: z.string().openapi({ example: 'Warranty desk' }),
    description: z.string().openapi({ example: 'Answers questions about orders and warranties.' }),
    image: z.string().nullable().openapi({ example: 'https://example.com/agent.png' }),
    setByWallet: z.string().openapi({
      example: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
      description: 'The owner who set it (lower case); the registration file is `active` only while this wallet owns the agent',
    }),
    updatedAt: z.string().openapi({ example: '2026-11-25T22:00:00.000Z' }),
  })
  .openapi('AgentProfile');

export const RegistrationSchema = z
  .object({
    type: z.literal(REGISTRATION_TYPE),
    name: z.string().openapi({ example: 'Warranty desk' }),
    description: z.string().openapi({ example: 'Answers questions about orders and warranties.' }),
    image: z.string().optional().openapi({ example: 'https://example.com/agent.png', description: 'Absent when the profile has none' }),
    services: z
      .array(
        z.union([
          z.object({
            name: z.literal('MCP'),
            endpoint: z.string().openapi({ example: 'https://gateway.example/agent/0x5FbDB2315678afecb367f032d93F642f64180aa3/1/mcp' }),
            version: z.literal(MCP_SERVICE_VERSION),
          }),
          z.object({
            name: z.literal('A2A'),
            endpoint: z.string().openapi({
              example: 'https://gateway.example/agent/0x5FbDB2315678afecb367f032d93F642f64180aa3/1/.well-known/agent-card.json',
            }),
            version: z.literal(A2A_SERVICE_VERSION),
          }),
        ]),
      )
      .openapi({
        description: "The agent's own MCP server (POST …/mcp), then its A2A Agent Card (GET …/.well-known/agent-card.json), in that order",
      }),
    x402Support: z.boolean().openapi({
      description: 'True while the owner sets a price for paid replies (POST …/paid/ask, x402) and the deployment takes payments',
    }),
    active: z.boolean().openapi({
      description:
        'True while the wallet that set the profile still owns the agent (read on-chain); false after a transfer, or when the token is gone',
    }),
  })
  .openapi('AgentRegistration');

export const getProfile = createRoute({
  method: 'get',
  path: `${AGENT_PATH}/profile`,
  operationId: 'getProfile',
  tags: ['Agents'],
  summary: "The agent's public profile",
  description: 'The name, description and image the registration file presents, and who set them.',
  security: agentRoute.security,
  request: { params: agentRoute.params },
  responses: {
    200: jsonResponse('The profile', ProfileSchema),
    ...agentRoute.errors,
    404: errorResponse('`profile_not_found` (never set), or `agent_not_found`'),
  },
});

export const setProfile = createRoute({
  method: 'put',
  path: `${AGENT_PATH}/profile`,
  operationId: 'setProfile',
  tags: ['Agents'],
  summary: "Set the agent's public profile",
  description:
    'Replaces the profile served in the public ERC-8004 registration file (`GET …/registration.json`), ' +
    'bound to the caller: after the agent changes hands the file says `active: false` until the new owner ' +
    `sets it again. \`image\`: ${IMAGE_RULES} Omit it (or null) for none. Recorded in the audit trail (\`agent_profile.set\`).`,
  security: agentRoute.security,
  request: { params: agentRoute.params, body: jsonBody(ProfileInputSchema) },
  responses: { 200: jsonResponse('The saved profile', ProfileSchema), ...agentRoute.errors },
});

export const getRegistration = createRoute({
  method: 'get',
  path: `${AGENT_PATH}/registration.json`,
  operationId: 'getRegistration',
  tags: ['Agents'],
  summary: "The agent's ERC-8004 registration file (public)",
  description:
    "Public, no credential: the ERC-8004 registration-v1 file built from the owner's profile, with the agent's " +
    'MCP endpoint and its A2A Agent Card as its services. An owner points an ERC-8004 identity registry entry (its `agentURI`) ' +
    'at this URL. `active` is read on-chain on every uncached request. Cached for 60 s (`Cache-Control: public, ' +
    'max-age=60`).',
  security: [],
  request: { params: agentRoute.params },
  responses: {
    200: {
      ...jsonResponse('The registration file', RegistrationSchema),
      headers: { 'Cache-Control': { description: '`public, max-age=60`', schema: { type: 'string' as const } } },
    },
    400: agentRoute.errors[400],
    404: errorResponse(
      '`agent_not_found`: the collection is not registered on this deployment; `profile_not_found`: the owner set no profile',
    ),
    429: RATE_LIMITED_RESPONSE,
    503: agentRoute.errors[503],
  },
});
