import type { RouteHandler } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { AppError, renderError } from '../errors';
import { abandoned, outliving, replyCaller, replyDeps } from '../replies/replies.handlers';
import type { ReplyAnswer, ReplyInput } from '../replies/reply.service';
import type { AppBindings } from '../types';
import { chatCompletion, chunk, completionHeader, usageChunk } from './completion';
import { defaultConversation, prepareConversationReply } from './conversation.service';
import type * as routes from './chat.routes';
import { type ChatCompletion, lastUserIndex, messageText } from './schemas';

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

export const chatCompletionHandler: RouteHandler<typeof routes.createChatCompletion, AppBindings> = async (c) => {
  const asAnswer = (res: Response) => res as unknown as ReturnType<typeof c.json<ChatCompletion, 200>>;
  const body = c.req.valid('json');
  const message = messageText(body.messages[lastUserIndex(body.messages)]?.content);
  // The client's hang-up ends the reply and frees the context (as on the reply route).
  const gone = c.req.raw.signal;
  let prepared: Awaited<ReturnType<typeof prepareConversationReply>>;
  try {
    const input: ReplyInput = {
      contextKey: await conversationKey(c, body.user),
      message,
      role: 'user',
      variables: {},
      tools: true,
      memoryTools: true,
      ...replyCaller(c),
    };
    prepared = await outliving(c, prepareConversationReply(replyDeps(c), c.var.agent, input));
  } catch (err) {
    throw noRetryBeforeMidnight(err);
  }
  // No Idempotency-Key on this route: nothing is remembered, so a reply is always prepared.
  if ('remembered' in prepared) throw new Error('a chat completion is never remembered');
  const reply = prepared.prepared;
  const header = completionHeader(c.var.requestId, reply.model);
  const ignore = () => undefined;
  if (!body.stream) {
    let answer: ReplyAnswer;
    try {
      answer = await outliving(c, reply.run({ delta: ignore, toolCall: ignore, toolResult: ignore }, gone));
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
      // Tool calls stay inside: the client sees the text the model writes.
      const answer = await outliving(
        c,
        reply.run({ delta: (text) => send(chunk(header, { content: text })), toolCall: ignore, toolResult: ignore }, gone),
      );
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
