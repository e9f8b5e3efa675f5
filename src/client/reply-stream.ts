/**
 * The streamed reply's events as typed values: `text/event-stream` from fetch's body, parsed by
 * `sse.ts`, each event's JSON data checked for the event's documented shape.
 */
import { GatewayError } from './errors';
import { sseEvents } from './sse';
import type { ReplyEvent, ReplyStream } from './types';

const EVENT_NAMES = new Set<ReplyEvent['event']>(['delta', 'tool_call', 'tool_result', 'done', 'error']);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Enough of each shape that a consumer may rely on it (the full schemas are the route's). */
function hasShape(event: ReplyEvent['event'], data: unknown): boolean {
  if (!isObject(data)) return false;
  switch (event) {
    case 'delta':
      return typeof data.text === 'string';
    case 'tool_call':
      return typeof data.tool === 'string';
    case 'tool_result':
      return typeof data.tool === 'string' && typeof data.isError === 'boolean' && typeof data.durationMs === 'number';
    case 'done':
      return Array.isArray(data.steps) && isObject(data.usage) && typeof data.finishReason === 'string';
    case 'error':
      return isObject(data.error) && typeof data.error.code === 'string' && typeof data.error.message === 'string';
  }
}

/**
 * The reply events of an SSE body. Unknown event names are skipped (a newer gateway may add
 * some); it ends after `done` or `error`, and a stream that ends before either, or an event
 * whose data is not its documented JSON, throws `invalid_response`.
 */
export async function* replyEvents(
  body: ReadableStream<Uint8Array>,
  operation: string,
  signal?: AbortSignal,
): AsyncGenerator<ReplyEvent, void, undefined> {
  const invalid = (message: string) => new GatewayError({ status: 200, code: 'invalid_response', message, operation });
  for await (const { event, data } of sseEvents(body, signal)) {
    if (!EVENT_NAMES.has(event as ReplyEvent['event'])) continue;
    const name = event as ReplyEvent['event'];
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      throw invalid(`the ${name} event's data is not JSON`);
    }
    if (!hasShape(name, parsed)) throw invalid(`the ${name} event's data is not the documented shape`);
    yield { event: name, data: parsed } as ReplyEvent;
    if (name === 'done' || name === 'error') return;
  }
  throw invalid('the reply stream ended before its done or error event');
}

/** A `ReplyStream` over an SSE body, or over a JSON answer (a single `done`). */
export function replyStreamOf(
  answer: { body: unknown; stream?: ReadableStream<Uint8Array> | undefined; replayed: boolean },
  operation: string,
  signal?: AbortSignal,
): ReplyStream {
  const { stream } = answer;
  return {
    replayed: answer.replayed,
    [Symbol.asyncIterator]: stream
      ? () => replyEvents(stream, operation, signal)
      : async function* () {
          if (!hasShape('done', answer.body)) {
            throw new GatewayError({ status: 200, code: 'invalid_response', message: 'the answer is not a ReplyAnswer', operation });
          }
          yield { event: 'done', data: answer.body } as ReplyEvent;
        },
  };
}
