/** The reply's request, answer and stream events, as the OpenAPI document shows them. */
import { z } from '@hono/zod-openapi';
import { StoredMessageSchema } from '../contexts/contexts.routes';
import { MessageTextSchema } from '../contexts/schemas';
import { ErrorBodySchema } from '../errors';

const VARIABLE_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

export const ReplyRequestSchema = z
  .object({
    message: MessageTextSchema.optional().openapi({
      description: 'Appended to the context first (kept whatever follows); omit to have the agent answer the context as it is',
      example: 'What did the customer ask for last week?',
    }),
    role: z.enum(['user', 'system']).default('user').openapi({ description: "The message's role (default user)" }),
    promptTemplateKey: z
      .string()
      .regex(/^[A-Za-z0-9._\-:@]{1,128}$/, 'promptTemplateKey must be 1..128 characters of A-Z a-z 0-9 . _ - : @')
      .optional()
      .openapi({
        description: 'The prompt template rendered as the system message (default `default`, which may be absent)',
        example: 'default',
      }),
    variables: z
      .record(z.string().regex(VARIABLE_NAME, 'variable names are 1..64 characters of A-Z a-z 0-9 _ . -'), z.string().max(65_536))
      .refine((v) => Object.keys(v).length <= 100, 'at most 100 variables')
      .default({})
      .openapi({ description: "Values of the template's `{{name}}` placeholders", example: { customer: 'ACME' } }),
    tools: z
      .boolean()
      .default(true)
      .openapi({ description: "Offer the agent's tools to the model (default true); false offers none, memory tools included" }),
    memoryTools: z.boolean().default(true).openapi({
      description:
        "Offer the memory tools `memory_search` and `memory_read` (default true): they read this agent's memory only, and only for a caller that may read its contexts (the owner, or an agent key with `contexts:read`)",
    }),
  })
  .openapi('ReplyRequest');

export const ReplyStepSchema = z
  .object({
    tool: z.string().openapi({ example: 'echo', description: 'The name the model used' }),
    connectionId: z.string().nullable().openapi({
      description: "The tool's connection; null for a built-in tool (memory_search, memory_read) or a tool the agent does not have",
    }),
    arguments: z.unknown(),
    isError: z.boolean(),
    upstreamStatus: z.number().int().optional().openapi({ example: 424, description: "The tool server's HTTP status when it failed" }),
    durationMs: z.number().int(),
  })
  .openapi('ReplyStep');

export const ReplyAnswerSchema = z
  .object({
    reply: StoredMessageSchema.nullable().openapi({ description: 'The stored assistant message; null when the model said nothing' }),
    steps: z.array(ReplyStepSchema),
    usage: z.object({ inputTokens: z.number().int(), outputTokens: z.number().int() }),
    finishReason: z.enum(['stop', 'length', 'max_iterations', 'content_filter']),
  })
  .openapi('ReplyAnswer');

/** One SSE event: its name and data. */
export const ReplyEventSchema = z
  .discriminatedUnion('event', [
    z.object({ event: z.literal('delta'), data: z.object({ text: z.string() }) }),
    z.object({
      event: z.literal('tool_call'),
      data: z.object({ tool: z.string(), connectionId: z.string().nullable(), arguments: z.unknown() }),
    }),
    z.object({
      event: z.literal('tool_result'),
      data: ReplyStepSchema.omit({ arguments: true }).extend({ content: z.string().optional() }),
    }),
    z.object({ event: z.literal('done'), data: ReplyAnswerSchema }),
    z.object({ event: z.literal('error'), data: ErrorBodySchema }),
  ])
  .openapi('ReplyEvent', {
    description:
      'With `Accept: text/event-stream`, the answer is a stream of server-sent events, each `event: <name>` with `data: ' +
      '<JSON>`: `delta` {text} as the model writes; `tool_call` {tool, connectionId, arguments} when a tool is called; ' +
      '`tool_result` {tool, connectionId, isError, upstreamStatus?, durationMs, content?} when it answered; then exactly one ' +
      'of `done` (the JSON answer, sent after the reply is stored) or `error` (the error body: a failure after the stream ' +
      'began).',
  });
