import { createRoute, z } from '@hono/zod-openapi';
import { AGENT_PATH, agentRoute } from '../http/agent-route';
import { errorResponse } from '../errors';
import { jsonBody, jsonResponse } from '../http/openapi';
import { AuthInputSchema, ConnectionParams, ConnectionSchema, TimeoutSchema } from './connection.schemas';
import { ToolResultSchema, ToolSchema } from './mcp.schemas';

const upstreamErrors = {
  404: errorResponse('`mcp_connection_not_found`, `tool_not_found`, or `agent_not_found`'),
  424: errorResponse(
    '`tool_server_failed_dependency`: the tool server rejected the stored credential or cannot reach its backend; `tool_server_unreachable`; ' +
      '`tool_authorization_required`: an OAuth connection needs the owner to authorize it (first time, a refused refresh, ' +
      'a transfer, or the server asking for more scopes): for the owner, `details.authorizeUrl` is a fresh URL to open ' +
      '(with the union of the scopes asked so far and those the server now asks for); an agent key gets the code only',
  ),
  502: errorResponse(
    '`tool_server_error`: the tool server failed (5xx) or answered outside the contract (a content item outside ' +
      "MCP's content union, among others); `details.upstreamStatus` holds its status. `tool_output_invalid`: " +
      "the tool has an `outputSchema` and the result's `structuredContent` is missing or does not match it " +
      "(`details.problems`). `tool_server_oauth_failed`: refreshing an OAuth connection's token failed at its authorization server",
  ),
  504: errorResponse(
    "`tool_server_timeout`: no answer within the connection's `timeoutMs` (each progress notification of a tool call restarts it), or a tool call still running at MCP_CALL_CEILING_MS",
  ),
};

const oauthFailed = errorResponse(
  "`tool_server_oauth_failed` (OAuth): a step of discovery or registration failed: the server's protected resource or " +
    'authorization server metadata, or its registration endpoint, answered slowly, too much, with a redirect, not JSON, ' +
    'or with an issuer other than its own (`details.reason`, `details.step`); nothing is stored',
);

const reentryError = errorResponse(
  '`credential_reentry_required`: the connection was registered, or its credential entered, by another wallet (an earlier owner of the agent) or before owners were recorded, and is never used for you; confirm or replace it with `PUT …/mcp/connection/{id}/auth`, or delete it',
);

export const listConnections = createRoute({
  method: 'get',
  path: `${AGENT_PATH}/mcp/connections`,
  operationId: 'listMcpConnections',
  tags: ['Tool servers'],
  summary: "The agent's tool-server connections",
  description:
    "Header names are shown; credential values never are. `credential` says whether each connection can be used by you as it is (`reenter_required` after the agent changed hands). A connection registered by another wallet shows its URL's origin only.",
  security: agentRoute.security,
  request: { params: agentRoute.params },
  responses: {
    200: jsonResponse('The connections', z.object({ connections: z.array(ConnectionSchema) }).openapi('McpConnections')),
    ...agentRoute.errors,
  },
});

export const addConnection = createRoute({
  method: 'post',
  path: `${AGENT_PATH}/mcp/connection`,
  operationId: 'addMcpConnection',
  tags: ['Tool servers'],
  summary: 'Register a tool server (MCP)',
  description:
    'HTTPS only; the URL is stored in canonical form and must be unique per agent (another spelling of the ' +
    'same URL counts). Registration runs the MCP handshake and tools/list (following nextCursor) and checks ' +
    "every tool by the same rule as `agent-gateway mcp check` (MCP's tool shape within its caps, input and " +
    'output schemas valid JSON Schema); the MCP session it opens is kept for later calls. The credential ' +
    '(bearer token or custom header value) is encrypted into the vault.\n\n' +
    "`auth: { type: 'oauth' }` is for a server that asks its users to authorize through OAuth 2.1 (the MCP " +
    "authorization spec): the gateway discovers the server's authorization server, picks a client identity " +
    '(the `clientId` given, else its own Client ID Metadata Document, else dynamic registration), and answers ' +
    "with `status: 'authorization_required'` and `authorizeUrl`: open it in a browser to authorize; the " +
    'authorization server sends the browser back to `GET /oauth/callback`, which stores the tokens in the vault ' +
    'and takes the tools snapshot. Nothing reaches the tools until then.',
  security: agentRoute.security,
  request: {
    params: agentRoute.params,
    body: jsonBody(
      z
        .object({
          url: z.string().max(4_096),
          name: z.string().min(1).max(100).optional(),
          auth: AuthInputSchema,
          timeoutMs: TimeoutSchema.optional(),
        })
        .openapi('NewMcpConnection'),
    ),
  },
  responses: {
    200: jsonResponse('Registered', ConnectionSchema),
    ...agentRoute.errors,
    400: errorResponse(
      '`invalid_tool_server_url` (refused by the outbound policy before any request: not https, IP literal, ' +
        'local, internal or loopback-resolving name, name embedding an IP, restricted port, userinfo, hidden ' +
        'characters; `details.reason`), `mcp_connection_exists` (MCPConnection URL already exists for this agent; ' +
        '`details.id` names the existing connection, so a re-run can reuse it), `mcp_connection_limit` (the agent ' +
        'has 20 connections), `invalid_tool_schema` (Invalid tool schema, naming the tool; `details.problem` ' +
        'names a pattern that cannot run in linear time, or says the schema expands past 2000 subschemas or 200 ' +
        'pattern uses once its `$ref`s are followed), `tool_snapshot_too_large` (more than 200 tools or 512 KiB), ' +
        "`tool_server_oauth_unsupported` (the server demands OAuth: 401 with a `resource_metadata` challenge; register it with `auth: { type: 'oauth' }`), " +
        '`tool_server_oauth_client_required` (OAuth: the authorization server supports neither Client ID Metadata Documents nor dynamic registration: register a client there and give `clientId`), ' +
        '`tool_server_credential_rejected` (the server answered 401/403), `tool_server_invalid` (not the contract: ' +
        'HTML, wrong id, redirect, too large), `validation_failed`',
    ),
    424: errorResponse(
      '`tool_server_unreachable`: the server could not be reached, timed out or failed (5xx); `tool_server_failed_dependency` (it answered 424)',
    ),
    502: oauthFailed,
  },
});

export const removeConnection = createRoute({
  method: 'delete',
  path: `${AGENT_PATH}/mcp/connection/{id}`,
  operationId: 'removeMcpConnection',
  tags: ['Tool servers'],
  summary: 'Remove a tool-server connection',
  description: 'Removes it and destroys its stored credential. Removing it again is 404.',
  security: agentRoute.security,
  request: { params: ConnectionParams },
  responses: {
    200: jsonResponse('Removed', z.object({ id: z.string(), deleted: z.literal(true) }).openapi('McpConnectionDeleted')),
    ...agentRoute.errors,
    404: errorResponse('`mcp_connection_not_found`, or `agent_not_found`'),
  },
});

export const listTools = createRoute({
  method: 'get',
  path: `${AGENT_PATH}/mcp/connection/{id}/tools`,
  operationId: 'listMcpTools',
  tags: ['Tool servers'],
  summary: "The tool server's live tools and health",
  description: 'Runs tools/list now (with the stored credential) and reports the latency. Upstream failures are never answered with 401.',
  security: agentRoute.security,
  request: { params: ConnectionParams },
  responses: {
    200: jsonResponse(
      'Live tools',
      z
        .object({ tools: z.array(ToolSchema), health: z.object({ ok: z.literal(true), latencyMs: z.number().int() }) })
        .openapi('McpLiveTools'),
    ),
    ...agentRoute.errors,
    400: errorResponse('`invalid_tool_server_url` (the stored URL is refused by the outbound policy in force), `validation_failed`'),
    ...upstreamErrors,
    409: reentryError,
  },
});

export const callTool = createRoute({
  method: 'post',
  path: `${AGENT_PATH}/mcp/connection/{id}/tools/call`,
  operationId: 'callMcpTool',
  tags: ['Tool servers'],
  summary: 'Call a tool',
  description:
    "Caps the arguments' size, then checks them against the tool's input schema (its regexes on a linear-time " +
    "engine; 400 before any upstream call), then runs tools/call in the connection's MCP session (re-initialised " +
    "when the server has dropped it) with a progress token: each progress notification restarts the connection's " +
    "timeout, up to MCP_CALL_CEILING_MS. `structuredContent` is checked against the tool's `outputSchema` " +
    'when it has one. A tool that reports `isError: true` is still a 200: the result says so.',
  security: agentRoute.security,
  request: {
    params: ConnectionParams,
    body: jsonBody(
      z.object({ name: z.string().min(1).max(200), arguments: z.record(z.string(), z.unknown()).default({}) }).openapi('McpToolCall'),
    ),
  },
  responses: {
    200: jsonResponse("The tool result: content items in MCP's content union, narrowed by `type`", ToolResultSchema),
    ...agentRoute.errors,
    400: errorResponse(
      '`invalid_tool_arguments` (with the schema problems; also when checking them against the schema takes ' +
        'too much work: `$ref`/`allOf`/`items` multiplying regexes or subschemas), `tool_arguments_too_large` ' +
        '(over 256 KiB, a string or property name over 32768 characters, or nested deeper than 32), `invalid_tool_server_url` ' +
        '(the stored URL is refused by the outbound policy in force), `validation_failed`',
    ),
    ...upstreamErrors,
    409: reentryError,
  },
});

export const replaceConnectionAuth = createRoute({
  method: 'put',
  path: `${AGENT_PATH}/mcp/connection/{id}/auth`,
  operationId: 'replaceMcpAuth',
  tags: ['Tool servers'],
  summary: "Enter or replace a connection's credential",
  description:
    'A connection and its credential are only ever used for the wallet that registered it or entered it: ' +
    'after the agent changes hands the connection shows `credential: reenter_required` (whatever its auth ' +
    'type) and its tool calls answer 409 `credential_reentry_required`, until the new owner enters their ' +
    "own credential here (or `{ type: 'none' }` for a server that needs none), with the connection's full " +
    "URL as `url` (the list shows another wallet's connection by its origin only, and a URL can carry a key, " +
    'so only someone who knows it already can take it over; otherwise delete it and register your own), which ' +
    "records them as the connection's registrant: from then on it is used for them and they see its full " +
    "URL. Also rotates the current owner's credential. As at registration, the stored URL must pass the outbound " +
    'policy in force, the handshake and tools/list run with the new credential first (a rejected one changes ' +
    'nothing) and the refreshed tools snapshot must fit the limits; then the credential is encrypted into ' +
    "the vault and the previous one destroyed. `{ type: 'none' }` removes the credential. `{ type: 'oauth' }` " +
    "(also how a new owner takes over an OAuth connection: the earlier owner's tokens are never used) discovers " +
    "the server's authorization server again and answers with `status: 'authorization_required'` and `authorizeUrl`; " +
    'any earlier tokens are destroyed.',
  security: agentRoute.security,
  request: {
    params: ConnectionParams,
    body: jsonBody(
      z
        .object({
          auth: AuthInputSchema,
          timeoutMs: TimeoutSchema.optional().openapi({
            description: "Also changes the connection's per-operation deadline (1000..60000 ms)",
          }),
          url: z.string().max(4_096).optional().openapi({
            description:
              "The connection's full URL, required when another wallet registered it (the list shows you its origin only): proof that you know it already, since a URL can carry a key",
          }),
        })
        .openapi('McpConnectionAuth'),
    ),
  },
  responses: {
    200: jsonResponse('The connection with its new credential (`credential: set`, or `none`)', ConnectionSchema),
    ...agentRoute.errors,
    400: errorResponse(
      '`invalid_tool_server_url` (the stored URL is refused by the outbound policy in force; nothing is sent; ' +
        '`details.reason`), `tool_server_credential_rejected` (the server answered 401/403), `invalid_tool_schema`, ' +
        '`tool_snapshot_too_large` (more than 200 tools or 512 KiB), `tool_server_oauth_unsupported`, `tool_server_oauth_client_required`, `tool_server_invalid`, ' +
        '`validation_failed`',
    ),
    404: errorResponse('`mcp_connection_not_found`, or `agent_not_found`'),
    409: errorResponse(
      '`credential_reentry_required`: another wallet registered this connection and `url` is missing or is not its URL; nothing is sent',
    ),
    424: errorResponse(
      '`tool_server_unreachable`: the server could not be reached, timed out or failed (5xx); `tool_server_failed_dependency` (it answered 424)',
    ),
    502: oauthFailed,
  },
});
