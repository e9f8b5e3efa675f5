import { createRoute } from '@hono/zod-openapi';
import { AGENT_PATH, agentRoute } from '../http/agent-route';
import { IdempotencyHeadersSchema } from '../contexts/contexts.routes';
import { headerRef } from '../http/openapi-responses';
import { errorResponse, RATE_LIMITED_RESPONSE } from '../errors';
import { jsonBody } from '../http/openapi';
import { ChatCompletionChunkSchema, ChatCompletionRequestSchema, ChatCompletionSchema } from './schemas';

export const createChatCompletion = createRoute({
  method: 'post',
  path: `${AGENT_PATH}/v1/chat/completions`,
  operationId: 'createChatCompletion',
  tags: ['Replies'],
  summary: "The agent answers in OpenAI's Chat Completions shape",
  description:
    `For OpenAI SDKs and chat UIs: set the base URL to \`{origin}/agent/{c}/{t}/v1\` and the API key to an ` +
    `agent key with scope \`reply\` (or the owner's token). The agent answers exactly as POST …/context/{key}/reply ` +
    `does (its prompt template, memory, tools, limits, usage, audit and traces), with the last \`user\` message ` +
    `of \`messages\` as the reply's message, in the context named by \`user\` (default \`openai/{keyId}\` ` +
    `for an agent key, \`openai/{wallet}\` for the owner's token; created on first use, so the conversation ` +
    `is kept and readable with …/context/{key}/messages). The rest of \`messages\` is neither stored nor ` +
    `sent: the agent's own memory stands in for it. \`model\` is ignored (the agent's LLM settings decide; ` +
    `the answer names their model); sampling fields (temperature, max_tokens, tools...) are ignored too. ` +
    `The agent's tool calls stay inside: the client sees the final text (an agent key with a \`tools\` allowlist has only those tools offered). \`stream: true\` answers with server-sent ` +
    `chunks whatever the Accept header. Send \`Idempotency-Key\` (OpenAI clients send none by themselves; ` +
    `with the openai client: \`{ headers: { 'Idempotency-Key': id } }\`) and a retry returns the first answer ` +
    `(streamed: as one delta) without calling the model or storing the message twice; without it, a retry ` +
    `(OpenAI clients retry 409, 429 and 5xx twice by default) is a new reply. Errors keep the gateway's shape ` +
    `(\`{ error: { code, message }, requestId }\`), which OpenAI clients read as their typed errors (\`error.message\`, ` +
    `\`error.code\`).`,
  security: agentRoute.security,
  request: { params: agentRoute.params, headers: IdempotencyHeadersSchema, body: jsonBody(ChatCompletionRequestSchema) },
  responses: {
    200: {
      description: 'A `chat.completion`, or with `stream: true` a stream of `chat.completion.chunk`s ending with `data: [DONE]`',
      headers: { 'Idempotent-Replayed': headerRef('Idempotent-Replayed') },
      content: {
        'application/json': { schema: ChatCompletionSchema },
        'text/event-stream': { schema: ChatCompletionChunkSchema },
      },
    },
    ...agentRoute.errors,
    400: errorResponse(
      '`idempotency_key_reused`, `agent_kind_not_supported` (a collection whose agents hold no contexts), `validation_failed` ' +
        '(body out of its rules: no `user` message in `messages`, its text under 2 characters or over 256 KiB, ' +
        'a `user` that is not a context key), `prompt_variable_missing` (the default prompt template has a `{{name}}`: ' +
        'this route passes no variables), `prompt_too_large`, `prompt_over_token_limit`',
    ),
    409: errorResponse(
      '`llm_not_configured`, `credential_reentry_required`, `llm_base_url_refused`, `llm_provider_unavailable`, `reply_in_progress` (another reply runs on this context): as for POST …/context/{key}/reply',
    ),
    429: {
      ...RATE_LIMITED_RESPONSE,
      description:
        '`rate_limited`, or `usage_limit_reached` (a daily token limit of the agent or of the key; the model not called, nothing stored ' +
        'unless concurrent replies took the room after the check, when the message stays; `Retry-After` to the next UTC midnight, ' +
        'and `x-should-retry: false` so OpenAI clients do not retry before then)',
    },
    424: errorResponse("`llm_credential_rejected`: the provider refused the API key of the agent's settings"),
    502: errorResponse('`llm_unavailable`: the provider could not be reached, failed (5xx) or refused the request'),
    503: errorResponse('`llm_rate_limited` (the provider rate limits the key; retry after Retry-After), or `dependency_unavailable`'),
    504: errorResponse('`llm_timeout`: the model was silent for LLM_TIMEOUT_MS, or the reply passed its deadline'),
  },
});
