import { z } from '@hono/zod-openapi';
import { errorResponse, RATE_LIMITED_RESPONSE } from '../errors';
import { AgentParamsSchema } from '../identity/identity';

/** Path prefix of every agent-scoped route, in OpenAPI form. */
export const AGENT_PATH = '/agent/{agentCollectionAddress}/{agentTokenId}';

/** Request params, security and the gate errors every agent-scoped route shares. */
export const agentRoute = {
  security: [{ bearer: [] as string[] }],
  params: AgentParamsSchema,
  errors: {
    400: errorResponse(
      '`validation_failed`: bad collection address (not hex, wrong length, bad checksum) or token id (sign, leading zeros, not decimal, >= 2^256), or a bad request',
    ),
    401: errorResponse(
      '`unauthorized` (missing, malformed or invalid token), `token_expired`, `token_wrong_chain` (a token ' +
        'of the other deployment); with an agent key: `key_invalid` (unknown or malformed), `key_revoked`, `key_expired`; ' +
        'with an OAuth access token: `invalid_token` (unknown, expired, revoked, issued for another agent or its other route, or ' +
        'not on the MCP or A2A route)',
    ),
    403: errorResponse(
      '`not_owner`: You are not the owner of this agent (ownership is read on-chain on every request; for an ' +
        "agent key, the wallet that made it), nor its delegate or renter with the owner's leave for this route; " +
        'with an agent key: `key_not_allowed` (a route keys never use), ' +
        '`key_scope_missing`, `key_wrong_agent` (a key of another agent or of the other deployment)',
    ),
    404: errorResponse('`agent_not_found`: the collection is not registered on this deployment, or the token does not exist'),
    429: RATE_LIMITED_RESPONSE,
    503: errorResponse('`dependency_unavailable`: the chain RPC or the database did not answer; retry after Retry-After seconds'),
  },
};

export const AgentSummarySchema = z
  .object({
    chainId: z.number().int().openapi({ example: 80002 }),
    agentCollectionAddress: z.string().openapi({ example: '0x5FbDB2315678afecb367f032d93F642f64180aa3' }),
    agentTokenId: z.string().openapi({ example: '1' }),
    kind: z.string().openapi({ example: 'internal', description: 'Kind of the collection in the registry' }),
    owner: z.string().openapi({ example: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', description: "The token's current on-chain owner" }),
    role: z.enum(['owner', 'delegate', 'renter']).openapi({
      example: 'owner',
      description:
        "How the caller reaches the agent: its `owner`, the owner's `delegate` (delegate.xyz v2: full rights or the right `agent-gateway`), " +
        "or its `renter` (ERC-4907 user while the rental runs); what a delegate or a renter may do is the owner's `access` choice in the LLM settings",
    }),
    configured: z
      .object({
        llmSettings: z
          .boolean()
          .openapi({ description: 'LLM settings are saved: `GET …/llm/settings` answers 200, else 404 `llm_settings_not_found`' }),
        profile: z.boolean().openapi({ description: 'A profile is set: `GET …/profile` answers 200, else 404 `profile_not_found`' }),
      })
      .openapi({
        description:
          'What the owner has set up, so a client asks for the LLM settings or the profile only when there is one (no 404 to expect)',
      }),
  })
  .openapi('AgentSummary');
