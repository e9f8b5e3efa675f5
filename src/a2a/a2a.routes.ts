import { createRoute, z } from '@hono/zod-openapi';
import { errorResponse, RATE_LIMITED_RESPONSE } from '../errors';
import { AGENT_PATH, agentRoute } from '../http/agent-route';

/**
 * One A2A JSON-RPC 2.0 request. Every field is read by the handler, not by this schema: a request
 * that is JSON but not JSON-RPC is answered with JSON-RPC's own error (-32600), not a 400.
 */
const A2aRequestSchema = z
  .looseObject({
    jsonrpc: z.unknown().optional().openapi({ type: 'string', description: '`2.0`' }),
    id: z.unknown().optional().openapi({ description: 'The request id (string or number), echoed in the answer' }),
    method: z.unknown().optional().openapi({
      type: 'string',
      description: '`SendMessage`, `SendStreamingMessage`, `GetTask` or `CancelTask`',
    }),
    params: z
      .unknown()
      .optional()
      .openapi({
        type: 'object',
        description:
          'SendMessage and SendStreamingMessage: `{ message: { messageId, role: "ROLE_USER", contextId?, parts: [{ text }] } }`; ' +
          'GetTask: `{ id, historyLength? }`; CancelTask: `{ id }`',
      }),
  })
  .openapi('A2aRequest', { description: 'An A2A v1.0 JSON-RPC 2.0 request' });

const A2aAnswerSchema = z
  .looseObject({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number(), z.null()]),
    result: z.record(z.string(), z.unknown()).optional().openapi({
      description:
        'SendMessage: `{ task }`, the task completed (or failed) with the reply as its artifact `reply`; GetTask and CancelTask: the task',
    }),
    error: z
      .object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() })
      .optional()
      .openapi({
        description:
          "A2A's errors: -32700 the body is not JSON, -32600 not a JSON-RPC request, -32601 a method not served, -32602 bad " +
          'params (no message or messageId, a contextId that cannot form the context key `a2a/{contextId}`, a text under 2 characters ' +
          'or over 256 KiB), -32001 task not found (unknown, or another caller’s or agent’s), -32002 task not cancelable (finished), ' +
          '-32003 push notifications not supported, -32004 unsupported operation (a message to an existing task, ListTasks, ' +
          'SubscribeToTask), -32005 content type not supported (a non-text part: the whole message refused), -32009 version not supported ' +
          '(an `A2A-Version` header other than `1.0`; without the header a request is served as 1.0)',
      }),
  })
  .openapi('A2aAnswer', { description: 'The JSON-RPC answer: `result` or `error`' });

// Examples on the media types, not in the schemas: a JSON-RPC `id` inside a schema reads as a
// draft-4 schema id to JSON Schema tools.
const REQUEST_EXAMPLE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'SendMessage',
  params: { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'What did we decide?' }] } },
};
const ANSWER_EXAMPLE = {
  jsonrpc: '2.0',
  id: 1,
  result: {
    task: {
      id: '6f1c0d7e-2b7a-4d55-9a43-2f0d6c1b9e11',
      contextId: 'b3f9e1aa-7c2d-4e0f-8d1b-5a6c7e8f9012',
      status: { state: 'TASK_STATE_COMPLETED' },
      artifacts: [{ artifactId: 'reply', name: 'reply', parts: [{ text: 'We chose the blue plan.', mediaType: 'text/plain' }] }],
    },
  },
};

export const agentA2a = createRoute({
  method: 'post',
  path: `${AGENT_PATH}/a2a`,
  operationId: 'agentA2a',
  tags: ['Replies'],
  summary: 'The agent to other agents: A2A v1.0 JSON-RPC',
  description:
    `Agent2Agent (A2A) v1.0 over JSON-RPC, for another agent or an A2A client such as \`@a2a-js/sdk\`'s (resolve the public ` +
    `card at \`GET …/.well-known/agent-card.json\`). Methods: \`SendMessage\` runs one reply exactly as POST …/context/{key}/reply ` +
    `does (prompt template, memory, tools with the key's allowlist, bounds, limits, usage, audit) with the message's text parts ` +
    `joined by a line break as the user message, in the context \`a2a/{contextId}\` (a new contextId when the message has none; ` +
    `created on first use), and answers the task completed, the reply's text as its artifact \`reply\` (a failed reply: the task ` +
    `\`failed\`, its status message naming the gateway's error code). \`SendStreamingMessage\` answers server-sent events, each ` +
    `\`data:\` one JSON-RPC answer: the task, \`working\`, the reply's text as artifact chunks as the model writes them (\`append\`), ` +
    `then \`completed\` or \`failed\`. \`GetTask\` reads a task of this agent made by the same caller (an agent key: that key; ` +
    `otherwise the wallet); any other id is -32001. \`CancelTask\` stops a running reply: the task \`canceled\`, the user message kept, ` +
    `nothing more stored; a finished task is -32002. A task takes one message; continue the conversation with a new message in ` +
    `the same contextId. Credentials: the owner's token, an agent key with scope \`reply\`, or an OAuth access token issued for this ` +
    `agent's A2A URL. Refused before any task is made, as the gateway's HTTP errors: a reached daily limit (429), missing LLM ` +
    `settings and the other refusals of the reply route. A body that is not JSON (-32700) or not one JSON object (-32600) is ` +
    `answered before the credential is read: it reaches nothing.`,
  security: agentRoute.security,
  request: {
    params: agentRoute.params,
    body: { content: { 'application/json': { schema: A2aRequestSchema, example: REQUEST_EXAMPLE } }, required: true },
  },
  responses: {
    200: {
      description:
        'The JSON-RPC answer (A2A errors inside it, with HTTP 200); for `SendStreamingMessage`, an event stream of JSON-RPC answers',
      content: {
        'application/json': { schema: A2aAnswerSchema, example: ANSWER_EXAMPLE },
        'text/event-stream': {
          schema: z
            .string()
            .openapi({ description: 'Server-sent events, each `data:` one JSON-RPC answer whose `result` is a stream response' }),
        },
      },
    },
    ...agentRoute.errors,
    400: errorResponse(
      '`validation_failed` (a bad path), `invalid_encoding`, `nul_character`, `agent_kind_not_supported`, `prompt_variable_missing`, `prompt_too_large`, `prompt_over_token_limit`: as for POST …/context/{key}/reply',
    ),
    401: {
      ...errorResponse(
        '`unauthorized` (no credential, or a malformed or invalid token), `token_expired`, `token_wrong_chain`; with an agent key: `key_invalid`, `key_revoked`, `key_expired`; with an OAuth token: `invalid_token`. Carries `WWW-Authenticate: Bearer`',
      ),
      headers: { 'WWW-Authenticate': { description: '`Bearer`, with the OAuth resource metadata when known', schema: { type: 'string' } } },
    },
    409: errorResponse(
      '`llm_not_configured`, `credential_reentry_required`, `llm_base_url_refused`, `llm_provider_unavailable`, `reply_in_progress` (another reply runs on this context)',
    ),
    429: {
      ...RATE_LIMITED_RESPONSE,
      description:
        '`rate_limited`, or `usage_limit_reached` (a daily token limit of the agent or of the key): no task made, the model not called; `Retry-After` to the next UTC midnight',
    },
  },
});
