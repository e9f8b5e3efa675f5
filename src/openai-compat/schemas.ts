/**
 * OpenAI's Chat Completions shapes, as far as the gateway reads and answers them:
 * unknown fields are allowed (OpenAI clients send many) and ignored.
 */
import { z } from '@hono/zod-openapi';
import { MessageTextSchema, NewKeySchema } from '../contexts/schemas';

const ContentPartSchema = z
  .object({ type: z.string(), text: z.string().optional() })
  .openapi({ description: 'A content part; only `text` parts are read' });

const ChatMessageSchema = z
  .object({
    role: z.string().openapi({ example: 'user', description: '`user`, `system`, `developer`, `assistant`, `tool`...' }),
    content: z
      .union([z.string(), z.array(ContentPartSchema)])
      .nullable()
      .optional()
      .openapi({ example: 'What did I ask you yesterday?' }),
  })
  .openapi('ChatCompletionMessage');

/** The text of a message: its string, or its `text` parts joined by a line break. */
export function messageText(content: z.infer<typeof ChatMessageSchema>['content']): string {
  if (typeof content === 'string') return content;
  return (content ?? []).flatMap((part) => (part.type === 'text' && part.text !== undefined ? [part.text] : [])).join('\n');
}

/** The index of the last `user` message, or -1. */
export function lastUserIndex(messages: readonly { role: string }[]): number {
  return messages.findLastIndex((m) => m.role === 'user');
}

export const ChatCompletionRequestSchema = z
  .object({
    model: z.string().max(256).optional().openapi({
      example: 'agent',
      description: "Ignored: the agent's LLM settings decide the model (the answer's `model` names it)",
    }),
    messages: z.array(ChatMessageSchema).min(1).openapi({
      description:
        "Only the last `user` message is read: it is appended to the context and answered. The rest is neither stored nor sent to the model: the agent's own memory (the context's messages) and prompt template stand in for it.",
    }),
    stream: z.boolean().nullable().optional().openapi({
      description: 'true: server-sent `chat.completion.chunk`s ending with `data: [DONE]`, whatever the Accept header',
    }),
    stream_options: z
      .object({ include_usage: z.boolean().nullable().optional() })
      .nullable()
      .optional()
      .openapi({ description: '`include_usage`: a last chunk with `usage` and no choices before `[DONE]`' }),
    user: NewKeySchema.optional().openapi({
      example: 'customer:42',
      description:
        "The context the conversation lives in (a context key; created on first use). Default `openai/{keyId}` for an agent key, `openai/{wallet}` for the owner's token",
    }),
  })
  .superRefine((body, ctx) => {
    const last = lastUserIndex(body.messages);
    if (last < 0) {
      ctx.addIssue({ code: 'custom', path: ['messages'], message: 'messages must hold a user message: the last one is answered' });
      return;
    }
    const checked = MessageTextSchema.safeParse(messageText(body.messages[last]?.content));
    for (const issue of checked.success ? [] : checked.error.issues) {
      ctx.addIssue({ code: 'custom', path: ['messages', last, 'content'], message: issue.message });
    }
  })
  .openapi('ChatCompletionRequest');

export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequestSchema>;

/** What OpenAI's `finish_reason` says; a reply ending at its model-call bound (`max_iterations`) is `length`. */
export const FinishReasonSchema = z.enum(['stop', 'length', 'content_filter']).openapi('ChatCompletionFinishReason');

export const ChatCompletionUsageSchema = z
  .object({
    prompt_tokens: z.number().int().openapi({ example: 120 }),
    completion_tokens: z.number().int().openapi({ example: 24 }),
    total_tokens: z.number().int().openapi({ example: 144 }),
  })
  .openapi('ChatCompletionUsage', {
    description: "The reply's usage: every model call of it (tool steps included), as the provider reported it",
  });

const common = {
  id: z.string().openapi({ example: 'chatcmpl-3f2b0c9e6d0a4b1c', description: '`chatcmpl-` and the request id (X-Request-Id)' }),
  created: z.number().int().openapi({ example: 1764100000, description: 'Unix seconds' }),
  model: z.string().openapi({ example: 'gpt-4o-mini', description: "The model of the agent's LLM settings" }),
};

export const ChatCompletionSchema = z
  .object({
    ...common,
    object: z.literal('chat.completion'),
    choices: z.array(
      z.object({
        index: z.literal(0),
        message: z.object({
          role: z.literal('assistant'),
          content: z.string().nullable().openapi({ description: 'The stored reply; null when the model said nothing' }),
          refusal: z.null(),
        }),
        finish_reason: FinishReasonSchema,
        logprobs: z.null(),
      }),
    ),
    usage: ChatCompletionUsageSchema,
  })
  .openapi('ChatCompletion');

export const ChatCompletionChunkSchema = z
  .object({
    ...common,
    object: z.literal('chat.completion.chunk'),
    choices: z.array(
      z.object({
        index: z.literal(0),
        delta: z.object({ role: z.literal('assistant').optional(), content: z.string().optional() }),
        finish_reason: FinishReasonSchema.nullable(),
        logprobs: z.null(),
      }),
    ),
    usage: ChatCompletionUsageSchema.nullable().optional(),
  })
  .openapi('ChatCompletionChunk', {
    description:
      'With `stream: true`, each event is `data: <chunk>`: a first chunk with `delta.role`, one per piece of ' +
      'text the model writes (every model step of the reply, in order; tool calls stay inside), a last one ' +
      'with `finish_reason`, then a chunk with `usage` and no choices when `stream_options.include_usage`, ' +
      'then `data: [DONE]`. A failure after the stream began is one `data: {"error": {code, message}, "requestId"}` ' +
      'event, and the stream ends without `[DONE]`.',
  });

export type ChatCompletion = z.infer<typeof ChatCompletionSchema>;
export type ChatCompletionChunk = z.infer<typeof ChatCompletionChunkSchema>;
