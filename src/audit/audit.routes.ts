import { createRoute, z } from '@hono/zod-openapi';
import { AGENT_PATH, agentRoute } from '../http/agent-route';
import { errorResponse } from '../errors';
import { jsonResponse, PageQuerySchema } from '../http/openapi';
import { ACTOR_VIAS, AUDIT_ACTIONS } from './entry';

const AuditActorSchema = z
  .union([
    z
      .object({
        wallet: z.string().openapi({ example: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8' }),
        clientId: z.string().optional().openapi({ description: 'An OAuth app acting for the wallet: the client its grant was made for' }),
        via: z.enum(ACTOR_VIAS).optional().openapi({
          description:
            "How the wallet came in when it was not the owner: the owner's `delegate` (delegate.xyz), the token's `renter` (ERC-4907), or a `payer` of a paid reply (x402); absent for the owner",
        }),
      })
      .strict(),
    z.object({ keyId: z.string().openapi({ example: '0b7f1f5e-5c0e-4a57-9a43-2f8d3b1c6e21' }) }).strict(),
  ])
  .openapi('AuditActor', {
    description:
      "The wallet (lower case) that acted with its token (with `clientId` when an OAuth app acted for it, `via` when it was a delegate or a renter, not the owner), or the agent key that acted (a reply's tool calls)",
  });

const AuditTargetSchema = z
  .object({
    templateKey: z.string().optional(),
    connectionId: z.string().optional(),
    keyId: z.string().optional(),
    setupId: z.string().optional(),
    tool: z.string().optional().openapi({
      description:
        "The tool's name: on its server for a direct call; in a reply as the model was offered it (the server's name, prefixed by the connection's name only on a clash; a built-in memory tool has no connection)",
    }),
    provider: z.string().optional(),
    model: z.string().optional(),
    grantId: z.string().optional().openapi({ description: 'An OAuth grant (`oauth_grant.approve`, `oauth_grant.revoke`)' }),
    clientId: z.string().optional().openapi({ description: 'The OAuth client the grant was made for' }),
    clientName: z.string().optional().openapi({
      description:
        "`oauth_grant.approve`: the client as the approval named it (a metadata document's host, or a registered client's self-given, unverified name)",
    }),
    transaction: z.string().optional().openapi({ description: '`payment.settled`: the transaction hash of the USDC transfer' }),
    amountUsd: z.string().optional().openapi({ description: '`payment.settled`: the amount paid, US dollars', example: '0.01' }),
    payTo: z
      .string()
      .optional()
      .openapi({ description: '`payment.settled`: the wallet paid (the owner when the reply was asked), lower case' }),
  })
  .openapi('AuditTarget', {
    description: 'What was acted on, by name or id: never a secret, a URL, a header value, a context key or a message',
  });

const AuditEntrySchema = z
  .object({
    id: z.string().openapi({ example: '1042' }),
    at: z.string().openapi({ example: '2026-11-22T07:30:00.000Z' }),
    actor: AuditActorSchema,
    action: z.enum(AUDIT_ACTIONS).openapi({ example: 'mcp_connection.add' }),
    target: AuditTargetSchema,
    outcome: z.string().openapi({
      example: 'ok',
      description: '`ok`, or the error code a tool call ended with (`tool_server_timeout`, `tool_error` for an error result...)',
    }),
    durationMs: z.number().int().optional().openapi({ description: 'Tool calls: how long the call took' }),
    argumentsSha256: z.string().optional().openapi({
      description:
        'Tool calls: SHA-256 (hex) of the arguments as JSON (`JSON.stringify` of the arguments object); the arguments themselves are never kept',
    }),
  })
  .openapi('AuditEntry');

export const AuditPageSchema = z
  .object({
    entries: z.array(AuditEntrySchema),
    nextCursor: z.string().nullable().openapi({ description: 'Pass as `cursor` for older entries; null on the last page' }),
  })
  .openapi('AuditPage');

export const listAuditEntries = createRoute({
  method: 'get',
  path: `${AGENT_PATH}/audit`,
  operationId: 'listAuditEntries',
  tags: ['Audit'],
  summary: "The agent's audit trail, newest first",
  description:
    'One entry per administrative change (LLM settings, prompt templates, database setup, tool servers and ' +
    'their credentials, agent keys) and per tool call (direct or in a reply), kept 90 days. None for reads, ' +
    'replies themselves, or refused requests; a change that failed was not made and has none; a tool call ' +
    "that ran and failed has its error code as `outcome`. Only the owner's wallet token reads it: an agent " +
    'key here is 403 `key_not_allowed`.',
  security: agentRoute.security,
  request: {
    params: agentRoute.params,
    query: PageQuerySchema,
  },
  responses: {
    200: jsonResponse('A page of entries', AuditPageSchema),
    ...agentRoute.errors,
    400: errorResponse('`validation_failed`: a bad path, `limit` outside 1..100, or a `cursor` this endpoint did not issue'),
  },
});
