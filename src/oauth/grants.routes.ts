import { createRoute, z } from '@hono/zod-openapi';
import { AGENT_PATH, agentRoute } from '../http/agent-route';
import { AgentParamsSchema } from '../identity/identity';
import { errorResponse } from '../errors';
import { jsonResponse } from '../http/openapi';

const TAG = ['OAuth'];

const GrantIdSchema = z.string().openapi({ example: 'f3Kq9xTz2LmA8vBw' });

const OAuthGrantSchema = z
  .object({
    id: GrantIdSchema,
    clientId: z.string().openapi({ example: 'Xq3nR8vT1kLm0pAz' }),
    clientName: z.string().nullable().openapi({
      example: 'Claude',
      description:
        'The `client_name` the client gave when it registered itself (RFC 7591): self-asserted, anyone can register any name; null when it gave none or its registration is gone',
    }),
    scope: z.array(z.string()).openapi({ example: ['mcp'] }),
    resource: z.string().openapi({
      example: 'https://gateway.example/agent/0x5FbDB2315678afecb367f032d93F642f64180aa3/1/mcp',
      description: "The URL the grant's tokens work on: the agent's MCP URL (`…/mcp`) or its A2A URL (`…/a2a`), and nowhere else",
    }),
    createdAt: z.string().openapi({ example: '2026-11-22T07:30:00.000Z', description: 'When the owner approved it' }),
    refreshTokenLive: z.boolean().openapi({
      description:
        'Whether the grant holds an unexpired refresh token: the client can still get access tokens (false: a code not yet exchanged, or expired)',
    }),
  })
  .openapi('OAuthGrant');

const ownerOnly =
  "Grants are per wallet: the ones the calling owner's wallet approved for this agent (an earlier owner's are not listed, and their tokens are refused on the MCP and A2A routes anyway).";

export const listOAuthGrants = createRoute({
  method: 'get',
  path: `${AGENT_PATH}/oauth/grants`,
  operationId: 'listOAuthGrants',
  tags: TAG,
  summary: 'List the apps with access to the agent (OAuth grants)',
  description: `The MCP and A2A clients the owner approved on the authorize page for this agent's MCP server or A2A endpoint, oldest first: never a token or its hash. ${ownerOnly}`,
  security: agentRoute.security,
  request: { params: agentRoute.params },
  responses: {
    200: jsonResponse('The grants', z.object({ grants: z.array(OAuthGrantSchema) }).openapi('OAuthGrants')),
    ...agentRoute.errors,
  },
});

export const revokeOAuthGrant = createRoute({
  method: 'delete',
  path: `${AGENT_PATH}/oauth/grants/{grantId}`,
  operationId: 'revokeOAuthGrant',
  tags: TAG,
  summary: "Revoke an app's access (an OAuth grant)",
  description:
    'Deletes the grant with its access and refresh tokens at once: the next MCP call with its access token ' +
    'is 401 `invalid_token`, a refresh is `invalid_grant`; the client must be approved again. Other grants ' +
    `stay. Recorded in the audit trail (\`oauth_grant.revoke\`). Revoking it again is 404. ${ownerOnly}`,
  security: agentRoute.security,
  request: {
    params: AgentParamsSchema.extend({ grantId: GrantIdSchema.max(64).openapi({ param: { name: 'grantId', in: 'path' } }) }),
  },
  responses: {
    200: jsonResponse('Revoked', z.object({ id: GrantIdSchema, clientId: z.string() }).openapi('OAuthGrantRevoked')),
    ...agentRoute.errors,
    404: errorResponse(
      "`oauth_grant_not_found` (no grant with this id of the caller's wallet for this agent: unknown, revoked, or another agent's), or `agent_not_found`",
    ),
  },
});
