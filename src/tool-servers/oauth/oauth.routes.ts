/**
 * The routes of OAuth tool servers: a fresh authorize URL for the owner, the callback the
 * authorization server sends the browser back to, and the gateway's own Client ID Metadata
 * Document.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { errorResponse, RATE_LIMITED_RESPONSE } from '../../errors';
import { AGENT_PATH, agentRoute } from '../../http/agent-route';
import { jsonResponse } from '../../http/openapi';
import { ConnectionParams } from '../connection.schemas';

export const CALLBACK_PATH = '/oauth/callback';
export const CLIENT_METADATA_PATH = '/oauth/client.json';

const TAG = ['Tool servers'];

export const authorizeConnection = createRoute({
  method: 'post',
  path: `${AGENT_PATH}/mcp/connection/{id}/authorize`,
  operationId: 'authorizeMcpConnection',
  tags: TAG,
  summary: 'A fresh URL to authorize an OAuth tool server',
  description:
    "For a connection registered with `auth: { type: 'oauth' }`: a URL at the tool server's authorization server " +
    '(PKCE S256, `resource` the tool server, a single-use `state` bound to your wallet and this connection, valid 10 ' +
    'minutes). Open it in a browser; the authorization server sends the browser back to `GET /oauth/callback`, which ' +
    "stores the tokens in the vault (bound to your wallet) and sets the connection's `status` to `ready`. Use it the " +
    "first time, after `status` turned `authorization_required` (a refused refresh, the agent's transfer), or to " +
    'authorize again with other scopes. The owner only.',
  security: agentRoute.security,
  request: {
    params: ConnectionParams,
    body: {
      content: { 'application/json': { schema: z.object({}).openapi('McpAuthorizeRequest', { description: 'Empty: `{}`' }) } },
      required: false,
    },
  },
  responses: {
    200: jsonResponse(
      'Where to authorize',
      z
        .object({
          authorizeUrl: z.string().openapi({ example: 'https://auth.tools.example.com/authorize?response_type=code&client_id=...' }),
        })
        .openapi('McpAuthorizeUrl'),
    ),
    ...agentRoute.errors,
    400: errorResponse('`tool_server_not_oauth`: the connection does not use OAuth; `validation_failed`'),
    404: errorResponse('`mcp_connection_not_found`, or `agent_not_found`'),
    409: errorResponse(
      '`credential_reentry_required`: another wallet (an earlier owner of the agent) registered the connection: take it over with `PUT …/mcp/connection/{id}/auth` and `{ type: "oauth" }`, or delete it',
    ),
  },
});

const html = (description: string) => ({ description, content: { 'text/html': { schema: z.string() } } });

export const oauthCallback = createRoute({
  method: 'get',
  path: CALLBACK_PATH,
  operationId: 'toolServerOAuthCallback',
  tags: TAG,
  summary: "Where a tool server's authorization server sends the owner's browser back",
  description:
    'Public (the browser comes back from another site). Checks `state` (single use, 10 minutes, bound to the wallet ' +
    'that asked and to the connection) and `iss` when the authorization server sends it (RFC 9207), exchanges ' +
    "`code` with the PKCE verifier at the authorization server's token endpoint, stores the tokens in the vault bound " +
    "to the wallet, lists the server's tools for the connection's snapshot and shows a page saying so. Every " +
    'failure is a page in words, and stores nothing.',
  security: [],
  request: {
    query: z.object({
      code: z.string().max(4_096).optional(),
      state: z.string().max(256).optional(),
      iss: z.string().max(2_048).optional(),
      error: z.string().max(256).optional(),
      error_description: z.string().max(1_024).optional(),
    }),
  },
  responses: {
    200: html('Authorized: the connection is ready'),
    400: html(
      '`oauth_state_invalid` (no `state`, or one that is unknown, used or expired: start again from the Authorize button), ' +
        '`oauth_issuer_mismatch` (the `iss` sent is not the authorization server the flow started with), `oauth_denied` ' +
        '(the authorization server sent `error`, e.g. the owner refused); when listing the tools with the new token: ' +
        '`invalid_tool_server_url` (the stored URL is refused by the outbound policy in force), `invalid_tool_schema` ' +
        '(a tool the server lists breaks the tool rules); shown on the page, nothing is stored',
    ),
    424: html(
      '`tool_server_unreachable` or `tool_server_failed_dependency`: the tool server could not list its tools; shown on the page, nothing stored',
    ),
    429: RATE_LIMITED_RESPONSE,
    502: html(
      '`tool_server_oauth_failed`: the token endpoint refused the code or answered outside the contract, or the tool server then refused the token; ' +
        '`tool_server_error`: the tool server failed listing its tools; shown on the page, nothing stored',
    ),
    504: html('`tool_server_timeout`: the tool server did not list its tools in time; shown on the page, nothing stored'),
  },
});

export const ClientMetadataSchema = z
  .object({
    client_id: z.string().openapi({ example: 'https://gateway.example.org/oauth/client.json' }),
    client_name: z.string(),
    client_uri: z.string(),
    redirect_uris: z.array(z.string()),
    grant_types: z.array(z.string()),
    response_types: z.array(z.string()),
    token_endpoint_auth_method: z.literal('none'),
  })
  .openapi('ClientMetadataDocument');

export const clientMetadata = createRoute({
  method: 'get',
  path: CLIENT_METADATA_PATH,
  operationId: 'getClientMetadataDocument',
  tags: TAG,
  summary: "The gateway's Client ID Metadata Document",
  description:
    "The gateway as an OAuth client of tool servers: its `client_id` is this document's own URL, which an authorization " +
    'server that supports Client ID Metadata Documents fetches instead of asking the gateway to register. A public client ' +
    '(PKCE, no secret). Public.',
  security: [],
  responses: {
    200: jsonResponse('The document', ClientMetadataSchema),
    429: RATE_LIMITED_RESPONSE,
  },
});
