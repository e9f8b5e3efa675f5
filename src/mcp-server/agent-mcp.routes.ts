import { createRoute, z } from '@hono/zod-openapi';
import { AGENT_PATH, agentRoute } from '../http/agent-route';
import { errorResponse } from '../errors';

/** One JSON-RPC 2.0 message (MCP's Streamable HTTP: one per POST); the SDK's server checks the rest. */
const JsonRpcMessageSchema = z
  .looseObject({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number().int()]).optional(),
    method: z.string().max(256).optional(),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi('McpMessage', { description: 'A JSON-RPC 2.0 request, notification or response of the Model Context Protocol' });

const JsonRpcAnswerSchema = z
  .looseObject({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number(), z.null()]),
    result: z.record(z.string(), z.unknown()).optional(),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional(),
  })
  .openapi('McpAnswer', {
    description:
      "The JSON-RPC answer: `result`, or `error` (-32602 for an unknown tool or one outside the key's `tools`, and for a `tools/call` whose `name` is not a string or whose `arguments` is not an object)",
  });

// Examples on the media types, not in the schemas: a JSON-RPC `id` inside a schema reads as a
// draft-4 schema id to JSON Schema tools.
const MESSAGE_EXAMPLE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'ask', arguments: { message: 'What did we decide?' } },
};
const ANSWER_EXAMPLE = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'We chose the blue plan.' }] } };

export const agentMcp = createRoute({
  method: 'post',
  path: `${AGENT_PATH}/mcp`,
  operationId: 'agentMcp',
  tags: ['MCP server'],
  summary: 'The agent as an MCP server (Streamable HTTP, stateless)',
  description:
    `The Model Context Protocol over Streamable HTTP, on the MCP SDK's v2 server: point Claude, Cursor, the MCP Inspector or ` +
    `another agent at this URL. Stateless (no \`Mcp-Session-Id\`; any request may reach any isolate), both eras: 2026-07-28 ` +
    `requests without \`initialize\` (protocol version, client info and capabilities in \`params._meta\`; \`server/discover\`; ` +
    `\`Mcp-Method\`/\`Mcp-Name\` headers that disagree with the body are 400; list results carry \`ttlMs\`), and 2025-11-25 ` +
    `and 2025-06-18 clients with \`initialize\` (\`tools/list\` and \`tools/call\` also work without it). Answers are JSON, ` +
    `except a \`tools/call\` of \`ask\` with \`params._meta.progressToken\`: server-sent events, the reply's text and tool ` +
    `calls as \`notifications/progress\`, then the result. GET (no server-sent stream) and DELETE (no session) are 405. ` +
    `Send \`Accept: application/json, text/event-stream\`.

DNS-rebinding protection, before the credential is read: a \`Host\` other than the deployment's own is 403 ` +
    `\`host_not_allowed\`; an \`Origin\` other than the gateway's own or one of \`MCP_ALLOWED_ORIGINS\` is 403 ` +
    `\`origin_not_allowed\` (no \`Origin\` is fine).

Tools: \`ask\` \`{ message, contextKey? }\` (the agent replies as POST …/context/{key}/reply does, in the caller's ` +
    `context, by default \`mcp/{keyId}\` for an agent key and \`mcp/{wallet}\` otherwise, created on first use), ` +
    `\`memory_search\` \`{ query, contextKey?, limit? }\` and \`memory_read\` \`{ contextKey, beforeId?, limit? }\` ` +
    `(read-only), \`memory_append\` \`{ contextKey, message, role? }\` (a missing context is created), and the agent's own ` +
    `MCP tools (named as in a reply, title and annotations kept; called with the owner's credential from the vault, never ` +
    `the caller's). A tool's failure is a result with \`isError\`, never an HTTP error. An agent key needs the scope \`mcp\` ` +
    `(alone enough for every tool); its \`tools\` allowlist narrows both \`tools/list\` and \`tools/call\`. Usage and the ` +
    `audit trail count these calls for the caller's credential.

Without a credential: 401 with \`WWW-Authenticate: Bearer resource_metadata="{origin}/.well-known/oauth-protected-resource/agent/{c}/{t}/mcp"\`.`,
  security: agentRoute.security,
  request: {
    params: agentRoute.params,
    body: { content: { 'application/json': { schema: JsonRpcMessageSchema, example: MESSAGE_EXAMPLE } }, required: true },
  },
  responses: {
    200: {
      description:
        'The JSON-RPC answer to a request (protocol errors inside it; no `Mcp-Session-Id`); for `ask` with a progress token, an event stream of JSON-RPC messages (`notifications/progress`, then the answer)',
      content: {
        'application/json': { schema: JsonRpcAnswerSchema, example: ANSWER_EXAMPLE },
        'text/event-stream': { schema: z.string().openapi({ description: 'Server-sent events, each `data:` one JSON-RPC message' }) },
      },
    },
    202: { description: 'A notification or a response, accepted: no body' },
    ...agentRoute.errors,
    400: errorResponse(
      '`validation_failed` (not a JSON-RPC 2.0 message, or a bad path), `invalid_json`; a message the SDK refuses (an unsupported `MCP-Protocol-Version` header, a batch, `Mcp-Method`/`Mcp-Name` headers that disagree with the body: -32020) is 400 with a JSON-RPC error body',
    ),
    401: {
      ...errorResponse(
        '`unauthorized` (no credential, or a malformed or invalid token), `token_expired`, `token_wrong_chain`; with an agent ' +
          'key: `key_invalid`, `key_revoked`, `key_expired`. Every 401 here carries `WWW-Authenticate: Bearer ' +
          'resource_metadata="…"` naming the protected-resource metadata (RFC 9728)',
      ),
      headers: {
        'WWW-Authenticate': {
          description: 'Bearer resource_metadata="{origin}/.well-known/oauth-protected-resource/agent/{c}/{t}/mcp"',
          schema: { type: 'string' },
        },
      },
    },
    403: errorResponse(
      "`host_not_allowed` (a Host other than the deployment's own), `origin_not_allowed` (an Origin other than the gateway's or one of MCP_ALLOWED_ORIGINS), both before the credential is read; and the agent routes' 403s (`not_owner`, `key_scope_missing`, `key_wrong_agent`)",
    ),
    406: errorResponse('`not_acceptable`: the Accept header must name both application/json and text/event-stream'),
  },
});
