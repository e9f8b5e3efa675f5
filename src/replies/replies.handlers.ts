import type { RouteHandler } from '@hono/zod-openapi';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';
import { idempotencyFor } from '../contexts/idempotency';
import { renderError } from '../errors';
import { abandoned, outliving } from '../http/outliving';
import type { AppBindings } from '../types';
import type { LoopEvents } from './loop';
import { replyCaller, replyDeps } from './request-deps';
import { prepareReply, type ReplyAnswer } from './reply.service';
import type * as routes from './replies.routes';

const quiet: LoopEvents = { delta: () => undefined, toolCall: () => undefined, toolResult: () => undefined };

/** Events in order over SSE: each write waits for the previous one. */
function sseEvents(stream: SSEStreamingApi) {
  let chain: Promise<void> = Promise.resolve();
  const send = (event: string, data: unknown) => {
    chain = chain.then(() => stream.writeSSE({ event, data: JSON.stringify(data) }));
  };
  const events: LoopEvents = {
    delta: (text) => send('delta', { text }),
    toolCall: (e) => send('tool_call', e),
    toolResult: (e) => send('tool_result', e),
  };
  return { events, send, flushed: () => chain };
}

export const replyHandler: RouteHandler<typeof routes.replyToContext, AppBindings> = async (c) => {
  const body = c.req.valid('json');
  const { contextKey } = c.req.valid('param');
  const idempotency = await idempotencyFor(c, c.req.valid('header')['Idempotency-Key'], contextKey, body);
  // The client's hang-up (workerd's `enable_request_signal`) ends the reply and frees the context.
  const gone = c.req.raw.signal;
  const input = { contextKey, ...body, ...replyCaller(c), idempotency };
  const prepared = await outliving(c, prepareReply(replyDeps(c), c.var.agent, input));
  const streaming = (c.req.header('accept') ?? '').includes('text/event-stream');
  if ('remembered' in prepared) c.header('Idempotent-Replayed', 'true');
  if (!streaming) {
    let answer: ReplyAnswer;
    try {
      answer = 'remembered' in prepared ? prepared.remembered : await outliving(c, prepared.prepared.run(quiet, gone));
    } catch (err) {
      if (gone.aborted) return abandoned(c) as unknown as ReturnType<typeof c.json<ReplyAnswer, 200>>;
      throw err;
    }
    return c.json(answer, 200);
  }
  c.header('Cache-Control', 'no-store');
  return streamSSE(c, async (stream) => {
    const { events, send, flushed } = sseEvents(stream);
    try {
      send('done', 'remembered' in prepared ? prepared.remembered : await outliving(c, prepared.prepared.run(events, gone)));
    } catch (err) {
      if (gone.aborted) abandoned(c);
      else send('error', await renderError(c, err).json());
    }
    await flushed();
  }) as unknown as ReturnType<typeof c.json<ReplyAnswer, 200>>;
};
