import { createRoute } from '@hono/zod-openapi';
import { AGENT_PATH, agentRoute } from '../http/agent-route';
import { ContextParamsSchema, IdempotencyHeadersSchema } from '../contexts/contexts.routes';
import { errorResponse } from '../errors';
import { jsonBody } from '../http/openapi';
import { headerRef } from '../http/openapi-responses';
import { RATE_LIMITED_RESPONSE } from '../errors';
import { ReplyAnswerSchema, ReplyEventSchema, ReplyRequestSchema } from './schemas';

export const replyToContext = createRoute({
  method: 'post',
  path: `${AGENT_PATH}/context/{contextKey}/reply`,
  operationId: 'replyToContext',
  tags: ['Replies'],
  summary: 'The agent answers: run its model over the context, prompt and tools',
  description:
    `Appends \`message\` (if given) and has the agent answer: the prompt template rendered as the system message, then the ` +
    `context's summary if it has one (a system message of its own; see …/context/{key}/summary), then the context's messages ` +
    `oldest first (after the summary's range). Every model request, tool calls and results of earlier steps included, stays ` +
    `within TOKEN__MAX_TOKENS_PER_REQUEST (counted conservatively: ceil(UTF-8 bytes / 3) per text, 8 per message and per ` +
    `tool call or result, the tools' schemas, and the settings' maxTokens reserved for the answer, lowered down to half of ` +
    `what the system message and tools leave when the messages need it): older messages are dropped from the oldest, then ` +
    `earlier results cut from the oldest, then the newest message cut, then earlier steps dropped; what is stored stays ` +
    `whole. Every tool of the agent's connections is offered (to an agent key with a \`tools\` allowlist, only what it names); each call takes the path of \`…/tools/call\`, and a failing ` +
    `tool is an error result the model reads (with the upstream status), never a failed reply. Unless \`memoryTools\` is ` +
    `false, and only for the owner or an agent key with \`contexts:read\`, the built-in tools \`memory_search\` \`{ query, ` +
    `contextKey?, limit? }\` and \`memory_read\` \`{ contextKey, beforeId?, limit? }\` (newest first) read this agent's ` +
    `memory: each message's text verbatim, cut only at its end, a result at most 16 KiB, steps with \`connectionId: null\`; ` +
    `an MCP tool of a built-in's name (these two, \`memory_append\` or \`ask\` of the MCP server) is offered as ` +
    `\`<connection>_<name>\`, as the MCP server lists it. At most 16 calls of one model step run, 4 at once, 64 ` +
    `in a reply; a call over a bound is an error result naming it (a step with \`isError\`). Streamed tool-call arguments ` +
    `and reasoning are cut at 64 K characters a step, as text is (\`finishReason: length\`). At most ` +
    `INFERENCE_LOOP__MAX_ITERATIONS model calls (then \`finishReason: max_iterations\`). The reply is stored as one ` +
    `\`assistant\` message. When the first request had to leave older messages out, the same model summarises them after the ` +
    `reply (not delaying it; LLM settings \`summaries\`, default true): one more model call.

Checks that need no model (settings, key, template, variables) run before anything is stored. Once the model is called, ` +
    `the message stays whatever follows, and a failed reply stores no assistant message. One reply at a time per context. ` +
    `Send \`Idempotency-Key\`: a retry returns the first answer and never calls the model twice. With \`Accept: ` +
    `text/event-stream\` the answer streams (see ReplyEvent).`,
  security: agentRoute.security,
  request: { params: ContextParamsSchema, headers: IdempotencyHeadersSchema, body: jsonBody(ReplyRequestSchema) },
  responses: {
    200: {
      description: 'The answer: JSON, or with `Accept: text/event-stream` a stream of events ending with `done` or `error`',
      headers: { 'Idempotent-Replayed': headerRef('Idempotent-Replayed') },
      content: {
        'application/json': { schema: ReplyAnswerSchema },
        'text/event-stream': { schema: ReplyEventSchema },
      },
    },
    ...agentRoute.errors,
    400: errorResponse(
      '`validation_failed` (body or path out of its rules), `prompt_variable_missing` (a `{{name}}` of the template without a ' +
        'variable; the model is not called), `prompt_too_large` (the rendered template would pass 256 KiB of UTF-8; counted ' +
        'before it is built, nothing stored), `prompt_over_token_limit` (the system message and the tools leave under 32 tokens ' +
        'of TOKEN__MAX_TOKENS_PER_REQUEST; nothing stored, the model not called), `idempotency_key_reused`',
    ),
    404: errorResponse(
      '`context_not_found`: Context not found; `prompt_template_not_found` (a named template that does not exist); `agent_not_found`',
    ),
    409: errorResponse(
      '`llm_not_configured` (no LLM settings), `credential_reentry_required` (the API key was entered by an earlier owner: ' +
        'never used for you; or for another provider or `baseUrl`, or dropped by a change of either: never sent to this one), ' +
        '`llm_base_url_refused` (the outbound policy in force refuses the stored `baseUrl`; nothing is sent), ' +
        '`llm_provider_unavailable` (a provider replies cannot run on, or workers-ai without the AI binding), ' +
        '`reply_in_progress` (another reply runs on this context, or an earlier try with this `Idempotency-Key` answered a moment ago: ' +
        'retry after `Retry-After` to get its answer)',
    ),
    429: {
      ...RATE_LIMITED_RESPONSE,
      description:
        "`rate_limited` (too many requests for this wallet, key or client address), or `usage_limit_reached`: the UTC day's " +
        "input + output tokens reached a daily limit (the agent's, in its LLM settings, or the agent key's own; `details.limit` " +
        'says which, with `tokensPerDay`, `usedTokens`, `day`, `resetsAt`). Checked when a reply starts: the model is not called ' +
        'and nothing is stored; `Retry-After` is the seconds to the next UTC midnight. Each model call also reserves its estimate ' +
        '(request characters / 4 + `maxTokens`) against the limits: a first call that finds one reached (other replies took the ' +
        'room meanwhile) is this 429 too, its message kept; a later step ends the reply with `finishReason: length`.',
    },
    424: errorResponse('`llm_credential_rejected`: the provider refused the API key (401/403; `details.upstreamStatus`)'),
    502: errorResponse('`llm_unavailable`: the provider could not be reached, failed (5xx) or refused the request'),
    503: errorResponse('`llm_rate_limited` (the provider rate limits the key; retry after Retry-After), or `dependency_unavailable`'),
    504: errorResponse(
      '`llm_timeout`: the model was silent for LLM_TIMEOUT_MS (before its answer or between two chunks of it), or the reply passed its deadline',
    ),
  },
});
