/**
 * The shapes of a tool-server connection in the OpenAPI document: the auth a connection is
 * registered with, the connection as listed, its path parameters. Shared by the connection routes
 * (./mcp.routes) and the OAuth routes (./oauth/oauth.routes).
 */
import { z } from '@hono/zod-openapi';
import { AgentParamsSchema } from '../identity/identity';
import { ToolSummarySchema } from './mcp.schemas';

export const AuthInputSchema = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('none') }),
    z.object({
      type: z.literal('bearer'),
      value: z.string().min(1).max(8_192).openapi({ description: 'Sent as Authorization: Bearer <value>; stored in the vault' }),
    }),
    z.object({
      type: z.literal('header'),
      headerName: z.string().min(1).max(100).openapi({ example: 'x-api-key' }),
      value: z.string().min(1).max(8_192).openapi({ description: 'Stored in the vault, never returned' }),
    }),
    z.object({
      type: z.literal('oauth'),
      scopes: z
        .array(
          z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]{1,200}$/, 'a scope is 1..200 printable characters, no space, quote or backslash'),
        )
        .max(50)
        .optional()
        .openapi({
          description:
            "Scopes to ask for. Default: the server's 401 challenge's `scope`, else its protected resource metadata's `scopes_supported`, else none sent",
          example: ['issues:read'],
        }),
      clientId: z.string().min(1).max(512).optional().openapi({
        description:
          "A client the owner registered with the tool server's authorization server beforehand. Without it the gateway uses its own Client ID Metadata Document (`{origin}/oauth/client.json`) where the server supports it, else registers a client dynamically (RFC 7591)",
      }),
      clientSecret: z
        .string()
        .min(1)
        .max(2_048)
        .optional()
        .openapi({ description: "The pre-registered client's secret, with `clientId`; stored in the vault, never returned" }),
    }),
  ])
  .openapi('ToolServerAuthInput', { example: { type: 'header', headerName: 'x-api-key', value: '...' } });

export const CredentialStateSchema = z.enum(['set', 'reenter_required', 'none']).openapi({
  description:
    "`none`: the server needs no credential; `set`: the agent's current owner entered the stored credential; " +
    '`reenter_required`: the connection was registered by another wallet (an earlier owner of the agent, ' +
    'whatever its auth type: its URL may carry a key), or before registrants were recorded, or a credential ' +
    "is needed and none of the current owner's is stored. Tool calls then answer 409 `credential_reentry_required` " +
    'until the owner confirms or replaces it with `PUT …/mcp/connection/{id}/auth` (or deletes it); the earlier ' +
    "owner's credential is never sent.",
  example: 'set',
});

export const TimeoutSchema = z.number().int().min(1_000).max(60_000).openapi({
  description:
    "Deadline of one operation on this connection, ms (1000..60000; default the deployment's MCP_TIMEOUT_MS, 10000). During a tool call each `notifications/progress` the server sends restarts it, up to the deployment's MCP_CALL_CEILING_MS (120 s)",
  example: 10_000,
});

export const ConnectionStatusSchema = z.enum(['ready', 'authorization_required']).openapi({
  description:
    '`ready`: the connection can be used. `authorization_required` (OAuth connections only): the owner has not ' +
    'authorized the gateway at the tool server yet, or the authorization ran out or was refused (a refused refresh, ' +
    'a transfer of the agent); open a fresh `authorizeUrl` (`POST …/mcp/connection/{id}/authorize`). Until then ' +
    'nothing reaches the tool server and its tool calls answer 424 `tool_authorization_required`',
  example: 'ready',
});

export const ConnectionSchema = z
  .object({
    id: z.string().openapi({ example: '1b4e28ba-2fa1-11d2-883f-0016d3cca427' }),
    url: z.string().openapi({
      example: 'https://tools.example.com/mcp',
      description:
        'Canonical form: lower-case host, no default port. Shown in full only to the wallet that registered the ' +
        "connection (or confirmed it with PUT …/auth); to anyone else, e.g. the agent's new owner after a sale, " +
        'as its origin only (`https://tools.example.com`: no path, no query), since many URLs carry a key',
    }),
    name: z.string().nullable(),
    auth: z.object({
      type: z.enum(['none', 'bearer', 'header', 'oauth']),
      headerName: z.string().optional(),
      valueSet: z.boolean().openapi({
        description:
          "A credential entered by the agent's current owner is stored (for `oauth`: the owner authorized it and its tokens are stored); its value is never returned",
      }),
    }),
    credential: CredentialStateSchema,
    status: ConnectionStatusSchema,
    authorization: z
      .object({
        scopes: z.array(z.string()).openapi({ description: 'The scopes granted (as the token endpoint said), else those asked for' }),
        expiresAt: z
          .string()
          .nullable()
          .openapi({ description: 'When the access token runs out (it is refreshed before then); null: unknown or not authorized' }),
      })
      .optional()
      .openapi({ description: 'OAuth connections only; never a token' }),
    authorizeUrl: z.string().optional().openapi({
      description:
        "In the answer of a registration or a credential change to `oauth`: where the owner authorizes the gateway at the tool server's authorization server (open it in a browser; single use, 10 minutes)",
    }),
    timeoutMs: TimeoutSchema,
    tools: z.array(ToolSummarySchema).openapi({
      description:
        'Snapshot of tools/list at registration (every field is kept; the schemas are shown by GET …/tools); for `oauth`, taken when the owner authorizes (empty before)',
    }),
    createdAt: z.string(),
  })
  .openapi('McpConnection');

export const ConnectionParams = AgentParamsSchema.extend({
  id: z
    .string()
    .max(64)
    .openapi({ param: { name: 'id', in: 'path' }, example: '1b4e28ba-2fa1-11d2-883f-0016d3cca427' }),
});
