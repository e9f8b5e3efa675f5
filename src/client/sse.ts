/**
 * A parser of `text/event-stream` as the WHATWG HTML standard defines it (§9.2.6), for the
 * streamed reply: feed it text as it arrives, split anywhere (inside a line, between CR and LF),
 * and it hands back each complete event. Browser-safe: no Node imports.
 *
 * Lines end with LF, CR or CRLF; `data:` lines of one event join with LF; a line starting with
 * `:` is a comment; an event without data is not dispatched; `id` and `retry` are read past
 * (the reply stream uses neither); the field value loses one leading space.
 */

/** One dispatched event: its name (`message` when the stream named none) and its data. */
export interface SseEvent {
  event: string;
  data: string;
}

export interface SseParser {
  /** Parses more text; returns the events it completed. */
  push(text: string): SseEvent[];
  /** The stream ended: an event not followed by a blank line is dropped, as the standard says. */
  end(): SseEvent[];
}

export function createSseParser(): SseParser {
  let buffer = '';
  let started = false;
  /** The previous chunk ended with CR: an LF at the start of the next one belongs to it. */
  let afterCr = false;
  let event = '';
  let data: string[] = [];

  function line(text: string, out: SseEvent[]): void {
    if (text === '') {
      if (data.length > 0) out.push({ event: event || 'message', data: data.join('\n') });
      event = '';
      data = [];
      return;
    }
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }

  return {
    push(text) {
      const out: SseEvent[] = [];
      let chunk = text;
      if (!started && chunk.length > 0) {
        started = true;
        if (chunk.startsWith('\uFEFF')) chunk = chunk.slice(1);
      }
      if (afterCr && chunk.startsWith('\n')) chunk = chunk.slice(1);
      afterCr = false;
      buffer += chunk;
      let start = 0;
      for (let i = 0; i < buffer.length; i++) {
        const c = buffer[i];
        if (c !== '\n' && c !== '\r') continue;
        line(buffer.slice(start, i), out);
        if (c === '\r') {
          if (i + 1 === buffer.length) afterCr = true;
          else if (buffer[i + 1] === '\n') i++;
        }
        start = i + 1;
      }
      buffer = buffer.slice(start);
      return out;
    },
    end() {
      buffer = '';
      event = '';
      data = [];
      return [];
    },
  };
}

/** The events of a byte stream (a fetch body), decoded as UTF-8 across chunk boundaries. */
export async function* sseEvents(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<SseEvent, void, undefined> {
  const parser = createSseParser();
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      if (signal?.aborted) throw signal.reason;
      const { done, value } = await reader.read();
      if (done) {
        yield* parser.push(decoder.decode());
        yield* parser.end();
        return;
      }
      yield* parser.push(decoder.decode(value, { stream: true }));
    }
  } finally {
    // Stopped early (break, error, abort): let the connection go.
    await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
