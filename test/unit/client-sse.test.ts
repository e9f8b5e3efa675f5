/**
 * The streamed reply as the client reads it: the SSE parser (src/client/sse.ts) fed the same
 * stream split at every position, with CRLF, CR and LF line ends, multi-line data, comments and
 * a UTF-8 character cut between chunks; then the typed reply events (reply-stream.ts): the end
 * after done or error, unknown events skipped, a truncated stream or malformed data refused.
 */
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/client/errors';
import { replyEvents } from '../../src/client/reply-stream';
import { createSseParser, sseEvents, type SseEvent } from '../../src/client/sse';

function parseAll(chunks: string[]): SseEvent[] {
  const parser = createSseParser();
  return [...chunks.flatMap((c) => parser.push(c)), ...parser.end()];
}

function bytes(chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(typeof c === 'string' ? encoder.encode(c) : c);
      controller.close();
    },
  });
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

const STREAM = [
  ': a comment, then a BOM-less stream',
  'event: delta',
  'data: {"text":"Hel"}',
  '',
  'event: delta',
  'data: {"text":"lo, wörld"}',
  '',
  'data: first line',
  'data:second line',
  'data',
  '',
  'event: empty-is-not-dispatched',
  '',
  'event: done',
  'data: {"ok":true}',
  '',
];
const EXPECTED: SseEvent[] = [
  { event: 'delta', data: '{"text":"Hel"}' },
  { event: 'delta', data: '{"text":"lo, wörld"}' },
  { event: 'message', data: 'first line\nsecond line\n' },
  { event: 'done', data: '{"ok":true}' },
];

describe('SSE parser', () => {
  for (const [name, eol] of [
    ['LF', '\n'],
    ['CRLF', '\r\n'],
    ['CR', '\r'],
  ] as const) {
    it(`reads ${name} line ends, whole and split at every position`, () => {
      const text = STREAM.join(eol) + eol;
      expect(parseAll([text])).toEqual(EXPECTED);
      for (let i = 0; i <= text.length; i++) expect(parseAll([text.slice(0, i), text.slice(i)]), `split at ${i}`).toEqual(EXPECTED);
      expect(parseAll([...text])).toEqual(EXPECTED); // one character a chunk
    });
  }

  it('drops a leading BOM and an event the stream ended before its blank line', () => {
    expect(parseAll(['\uFEFFdata: a\n\n', 'data: cut off'])).toEqual([{ event: 'message', data: 'a' }]);
  });

  it('decodes UTF-8 cut between byte chunks', async () => {
    const encoded = new TextEncoder().encode('event: delta\ndata: {"text":"€"}\n\n');
    const cut = encoded.indexOf(0xe2) + 1; // inside the three bytes of €
    const events = await collect(sseEvents(bytes([encoded.slice(0, cut), encoded.slice(cut)])));
    expect(events).toEqual([{ event: 'delta', data: '{"text":"€"}' }]);
  });
});

const DONE = { reply: null, steps: [], usage: { inputTokens: 1, outputTokens: 0 }, finishReason: 'stop' };

describe('reply events', () => {
  it('are typed values in order; unknown events skipped; nothing read after done', async () => {
    const events = await collect(
      replyEvents(
        bytes([
          'event: delta\r\ndata: {"text":"hi"}\r\n\r\n',
          'event: tool_call\ndata: {"tool":"echo","connectionId":"c1","arguments":{"text":"x"}}\n\n',
          'event: progress\ndata: {"later":"versions may add events"}\n\n',
          'event: tool_result\ndata: {"tool":"echo","connectionId":"c1","isError":false,"durationMs":3}\n\n',
          `event: done\ndata: ${JSON.stringify(DONE)}\n\n`,
          'event: delta\ndata: {"text":"never read"}\n\n',
        ]),
        'POST /reply',
      ),
    );
    expect(events.map((e) => e.event)).toEqual(['delta', 'tool_call', 'tool_result', 'done']);
    expect(events[0]).toEqual({ event: 'delta', data: { text: 'hi' } });
    expect(events[3]).toEqual({ event: 'done', data: DONE });
  });

  it('end with an error event, which carries the error body', async () => {
    const body = { error: { code: 'llm_unavailable', message: 'down' }, requestId: 'r1' };
    const events = await collect(replyEvents(bytes([`event: error\ndata: ${JSON.stringify(body)}\n\n`]), 'POST /reply'));
    expect(events).toEqual([{ event: 'error', data: body }]);
  });

  it('refuse a stream that ends before done or error, and data that is not the documented JSON', async () => {
    const cases: [string, RegExp][] = [
      ['event: delta\ndata: {"text":"hi"}\n\n', /ended before/],
      ['event: delta\ndata: not json\n\n', /not JSON/],
      ['event: delta\ndata: {"txt":"hi"}\n\n', /documented shape/],
      ['event: done\ndata: {"reply":null}\n\n', /documented shape/],
    ];
    for (const [stream, message] of cases) {
      const failure = await collect(replyEvents(bytes([stream]), 'POST /reply')).catch((err: unknown) => err);
      expect(failure, stream).toBeInstanceOf(GatewayError);
      expect((failure as GatewayError).code).toBe('invalid_response');
      expect((failure as GatewayError).message).toMatch(message);
    }
  });
});
