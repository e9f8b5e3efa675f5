import type { RouteHandler } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { AppError, renderError } from '../errors';
import { abandoned, outliving } from '../http/outliving';
import { replyCaller, replyDeps } from '../replies/request-deps';
import type { Prepared, ReplyAnswer, ReplyInput } from '../replies/reply.service';
import { readLlmSettings } from '../settings/llm-use.service';
import { idempotencyFor } from '../contexts/idempotency';
import type { AppBindings } from '../types';
import { chatCompletion, chunk, completionHeader, usageChunk } from './completion';
import { prepareConversationReply } from '../replies/conversation';
import { defaultConversation } from './conversation.service';
import type * as routes from './chat.routes';
import { type ChatCompletion, type ChatCompletionRequest, lastUserIndex, messageText } from './schemas';

/** The conversation's context: the request's `user`, else the caller's default (known once the owner check passed). */
async function conversationKey(c: Context<AppBindings>, user: string | undefined): Promise<string> {
  if (user !== undefined) return user;
  await c.var.ownerCheck;
  const key = c.var.agentKeyUse;
  return defaultConversation(key ? { keyId: key.id } : { wallet: c.var.wallet });
}

/**
 * A daily limit says `x-should-retry: false` beside its Retry-After: OpenAI clients would retry
 * it, pointlessly, before midnight. Every error keeps the gateway's shape, which OpenAI clients
 * read (`error.message`, `error.code`).
 */
function noRetryBeforeMidnight(err: unknown): unknown {
  if (err instanceof AppError && err.code === 'usage_limit_reached') err.headers['x-should-retry'] = 'false';
  return err;
}

/** The model a replayed answer names: the settings' model now (a replay does not remember it). */
async function currentModel(c: Context<AppBindings>, fallback: string | undefined): Promise<string> {
  try {
    return (await readLlmSettings({ db: c.var.db }, c.var.agent)).settings.model;
  } catch {
    return fallback ?? 'unknown';
  }
}

/** The reply, prepared as the reply route does, in the conversation's context (created on first use). */
async function prepare(
  c: Context<AppBindings>,
  body: ChatCompletionRequest,
  message: string,
  idempotencyKey: string | undefined,
): Promise<Prepared> {
  try {
    const contextKey = await conversationKey(c, body.user);
    // What is asked, not how it is delivered: a retry may stream where the first try did not.
    const { stream: _stream, stream_options: _options, ...asked } = body;
    const idempotency = await idempotencyFor(c, idempotencyKey, contextKey, asked);
    const input: ReplyInput = {
      contextKey,
      message,
      role: 'user',
      variables: {},
      tools: true,
      memoryTools: true,
      ...replyCaller(c),
      idempotency,
    };
    return await outliving(c, prepareConversationReply(replyDeps(c), c.var.agent, input));
  } catch (err) {
    throw noRetryBeforeMidnight(err);
  }
}

export const chatCompletionHandler: RouteHandler<typeof routes.createChatCompletion, AppBindings> = async (c) => {
  const asAnswer = (res: Response) => res as unknown as ReturnType<typeof c.json<ChatCompletion, 200>>;
  const body = c.req.valid('json');
  const message = messageText(body.messages[lastUserIndex(body.messages)]?.content);
  // The client's hang-up ends the reply and frees the context (as on the reply route).
  const gone = c.req.raw.signal;
  const prepared = await prepare(c, body, message, c.req.valid('header')['Idempotency-Key']);
  if ('remembered' in prepared) c.header('Idempotent-Replayed', 'true');
  const model = 'prepared' in prepared ? prepared.prepared.model : await currentModel(c, body.model);
  const header = completionHeader(c.var.requestId, model);
  // Tool calls stay inside: the client sees the text the model writes (a replay: the reply, as one delta).
  const run = (delta: (text: string) => void): Promise<ReplyAnswer> => {
    if ('remembered' in prepared) {
      if (prepared.remembered.reply) delta(prepared.remembered.reply.message);
      return Promise.resolve(prepared.remembered);
    }
    const ignore = () => undefined;
    return outliving(c, prepared.prepared.run({ delta, toolCall: ignore, toolResult: ignore }, gone));
  };
  if (!body.stream) {
    let answer: ReplyAnswer;
    try {
      answer = await run(() => undefined);
    } catch (err) {
      if (gone.aborted) return asAnswer(abandoned(c));
      throw err;
    }
    return c.json(chatCompletion(header, answer), 200);
  }
  c.header('Cache-Control', 'no-store');
  const streamed = streamSSE(c, async (stream) => {
    // Chunks in order: each write waits for the previous one.
    let chain: Promise<void> = Promise.resolve();
    const send = (data: unknown) => {
      chain = chain.then(() => stream.writeSSE({ data: typeof data === 'string' ? data : JSON.stringify(data) }));
    };
    send(chunk(header, { role: 'assistant', content: '' }));
    try {
      const answer = await run((text) => send(chunk(header, { content: text })));
      send(chunk(header, {}, answer.finishReason));
      if (body.stream_options?.include_usage) send(usageChunk(header, answer.usage));
      send('[DONE]');
    } catch (err) {
      if (gone.aborted) abandoned(c);
      else send(await renderError(c, err).json());
    }
    await chain;
  });
  return asAnswer(streamed);
};
