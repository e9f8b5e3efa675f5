/**
 * Reading one reply of the tool server: the body under a byte cap and the deadline, as JSON or as
 * an SSE stream, and picking the JSON-RPC response that answers our request id.
 */
import { readAtMost, type Chunk } from '../net/read-at-most';
import { upstreamText } from './credentials';
import { type Deadline, untilAborted } from './deadline';
import { isObject, McpError, type JsonObject } from './types';

/** Byte cap for the body of an error status (we only look for a JSON-RPC error in it). */
const ERROR_BODY_BYTES = 64 * 1024;

/** An McpError for a JSON-RPC error object; its message goes through `upstreamText`. */
export function rpcFailure(error: JsonObject, secrets: readonly string[], status?: number): McpError {
  const code = typeof error.code === 'number' && Number.isInteger(error.code) ? error.code : undefined;
  const text = typeof error.message === 'string' ? error.message : 'no message';
  return new McpError(
    'rpc_error',
    `tool server returned JSON-RPC error${code === undefined ? '' : ` ${code}`}: ${upstreamText(text, secrets)}`,
    {
      ...(code === undefined ? {} : { rpcCode: code }),
      ...(status === undefined ? {} : { status }),
    },
  );
}

/** Checks one parsed reply (or batch) against our id and returns its result. */
function pickResponse(reply: unknown, id: number, secrets: readonly string[]): JsonObject {
  let message = reply;
  if (Array.isArray(reply)) {
    message =
      reply.find((m) => isObject(m) && m.id === id) ??
      reply.find((m) => isObject(m) && m.id === null && 'error' in m) ??
      reply.find((m) => isObject(m) && ('result' in m || 'error' in m));
  }
  if (!isObject(message) || message.jsonrpc !== '2.0' || !('result' in message || 'error' in message)) {
    throw new McpError('bad_response', 'tool server reply is not a JSON-RPC 2.0 response');
  }
  if ('error' in message && message.error !== undefined && (message.id === id || message.id === null)) {
    if (!isObject(message.error)) throw new McpError('bad_response', 'tool server sent a malformed JSON-RPC error');
    throw rpcFailure(message.error, secrets);
  }
  if (message.id !== id) {
    throw new McpError('bad_id', 'tool server replied to another request id');
  }
  if (!isObject(message.result)) throw new McpError('bad_response', 'tool server reply has no result object');
  return message.result;
}

/**
 * Resumes an SSE reply the server closed before our response (it may, and then the client
 * reconnects): a GET of the endpoint with `Last-Event-ID`, the session's headers and the credential.
 */
export type ResumeStream = (lastEventId: string) => Promise<Response>;

/** How many times one reply's stream is resumed at most, and the wait when the server names none. */
const MAX_RESUMES = 3;
const DEFAULT_RETRY_MS = 1000;

/**
 * Reads a 2xx reply with a body, as an SSE stream or as JSON by its content type, and returns the
 * result of the JSON-RPC response with our id. An SSE stream that ends without it is resumed with
 * `resume` when the server gave its events ids.
 */
export async function readReply(
  res: Response,
  id: number,
  maxBytes: number,
  secrets: readonly string[],
  deadline: Deadline,
  resume?: ResumeStream,
): Promise<JsonObject> {
  const contentType = (res.headers.get('content-type') ?? '').toLowerCase();
  return contentType.startsWith('text/event-stream')
    ? await readSse(res, id, maxBytes, secrets, deadline, resume)
    : pickResponse(await readJson(res, contentType, maxBytes, deadline), id, secrets);
}

async function readJson(res: Response, contentType: string, maxBytes: number, deadline: Deadline): Promise<unknown> {
  const bytes = await readCapped(res, maxBytes, deadline);
  const text = new TextDecoder().decode(bytes);
  try {
    return JSON.parse(text);
  } catch {
    const what = contentType.includes('html') ? 'HTML' : contentType === '' ? 'an untyped body' : 'non-JSON';
    throw new McpError('bad_response', `tool server answered with ${what}, not a JSON-RPC reply`);
  }
}

/** Reads a small error body and parses it as JSON when it is; anything else gives undefined. */
export async function readErrorBody(res: Response, maxBytes: number, deadline: Deadline): Promise<unknown> {
  let bytes: Uint8Array;
  try {
    bytes = await readCapped(res, Math.min(ERROR_BODY_BYTES, maxBytes), deadline);
  } catch (err) {
    if (err instanceof McpError && err.kind === 'too_large') return undefined;
    throw err;
  }
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}

async function readCapped(res: Response, cap: number, deadline: Deadline): Promise<Uint8Array> {
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > cap) {
    await discard(res);
    throw tooLarge(cap);
  }
  if (res.body === null) return new Uint8Array(0);
  const reader = res.body.getReader();
  try {
    const read = await readAtMost(reader, cap, (r) => readChunk(r, deadline));
    if (!read.ok) {
      await cancel(reader);
      throw tooLarge(cap);
    }
    return read.bytes;
  } finally {
    reader.releaseLock();
  }
}

/**
 * Reads an SSE reply until the event carrying our response; notifications and requests are skipped.
 * A stream that ends first, after events with ids, is resumed (at most `MAX_RESUMES` times, after the
 * server's `retry` wait, within the deadline), and the byte cap counts every stream together.
 */
async function readSse(
  first: Response,
  id: number,
  maxBytes: number,
  secrets: readonly string[],
  deadline: Deadline,
  resume: ResumeStream | undefined,
): Promise<JsonObject> {
  let total = 0;
  let data: string[] = [];
  let eventType = '';
  let lastEventId = '';
  let retryMs = DEFAULT_RETRY_MS;
  let sawOtherResponse = false;
  let found: JsonObject | undefined;
  let failure: McpError | undefined;

  const dispatch = (): void => {
    if (data.length > 0 && (eventType === '' || eventType === 'message')) {
      let message: unknown;
      try {
        message = JSON.parse(data.join('\n'));
      } catch {
        message = undefined; // a keep-alive, a priming event or a foreign event: not ours
      }
      for (const m of Array.isArray(message) ? message : [message]) {
        if (isObject(m) && 'method' in m) deadline.noteProgress(m); // progress restarts a call's timeout
        if (!isObject(m) || !('result' in m || 'error' in m) || 'method' in m) continue;
        if (m.id === id || (m.id === null && 'error' in m)) {
          try {
            found = pickResponse(m, id, secrets);
          } catch (err) {
            failure = err as McpError;
          }
          return;
        }
        sawOtherResponse = true;
      }
    }
    data = [];
    eventType = '';
  };

  const onLine = (line: string): void => {
    if (line === '') {
      dispatch();
    } else if (!line.startsWith(':')) {
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      let value = colon === -1 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'data') data.push(value);
      else if (field === 'event') eventType = value;
      else if (field === 'id' && !value.includes('\0')) lastEventId = value;
      else if (field === 'retry' && /^\d{1,9}$/.test(value)) retryMs = Number(value);
    }
  };

  // Only new text is scanned for a line end: the pieces of a line not ended yet wait in `pending`
  // and are joined once, when it ends (an endless line costs its length, not its length squared).
  let pending: string[] = [];
  let afterCR = false; // a \n right after a \r (maybe in the previous chunk) ends nothing
  const feed = (text: string): void => {
    let start = 0;
    for (let i = 0; i < text.length && found === undefined && failure === undefined; i++) {
      const ch = text.charCodeAt(i);
      if (ch === 10 && afterCR) {
        afterCR = false;
        start = i + 1;
        continue;
      }
      afterCR = ch === 13;
      if (ch !== 10 && ch !== 13) continue;
      pending.push(text.slice(start, i));
      const line = pending.join('');
      pending = [];
      start = i + 1;
      onLine(line);
    }
    if (start < text.length) pending.push(text.slice(start));
  };

  const readStream = async (res: Response): Promise<void> => {
    if (res.body === null) throw new McpError('bad_response', 'tool server sent an empty event stream');
    // Each stream starts afresh: an event cut off by the end of the last one is dropped.
    data = [];
    eventType = '';
    pending = [];
    afterCR = false;
    const decoder = new TextDecoder();
    const reader = res.body.getReader();
    try {
      for (;;) {
        const { done, value } = await readChunk(reader, deadline);
        if (done) {
          feed(decoder.decode());
          if (pending.length > 0 && found === undefined && failure === undefined) feed('\n');
          if (found === undefined && failure === undefined) dispatch();
          return;
        }
        total += value.byteLength;
        if (total > maxBytes) {
          await cancel(reader);
          throw tooLarge(maxBytes);
        }
        feed(decoder.decode(value, { stream: true }));
        if (found !== undefined || failure !== undefined) {
          await cancel(reader);
          return;
        }
      }
    } finally {
      reader.releaseLock();
    }
  };

  let res = first;
  for (let resumes = 0; ; resumes++) {
    await readStream(res);
    if (failure !== undefined) throw failure;
    if (found !== undefined) return found;
    if (resume === undefined || lastEventId === '' || resumes >= MAX_RESUMES) break;
    await pause(retryMs, deadline);
    res = await resume(lastEventId);
    const type = (res.headers.get('content-type') ?? '').toLowerCase();
    if (res.status !== 200 || !type.startsWith('text/event-stream')) {
      await discard(res);
      throw new McpError(
        'bad_response',
        `tool server closed the event stream before its response and refused to resume it (HTTP ${res.status})`,
        {
          status: res.status,
        },
      );
    }
  }
  if (sawOtherResponse) throw new McpError('bad_id', 'tool server replied to another request id');
  throw new McpError('bad_response', 'tool server event stream carried no JSON-RPC response');
}

/** Waits `ms` (the server's `retry`), or until the deadline ends it. */
async function pause(ms: number, deadline: Deadline): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await untilAborted(
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, ms);
      }),
      deadline,
    );
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

async function readChunk(reader: ReadableStreamDefaultReader<Uint8Array>, deadline: Deadline): Promise<Chunk> {
  try {
    const chunk = await reader.read();
    if (chunk.done) return { done: true };
    return { done: false, value: chunk.value };
  } catch (err) {
    if (deadline.expired()) throw deadline.timeoutError();
    throw new McpError('unreachable', `connection to the tool server broke while reading the reply${networkCode(err)}`);
  }
}

function tooLarge(cap: number): McpError {
  return new McpError('too_large', `tool server reply is larger than ${cap} bytes`);
}

/** Drops a body we will not read. */
export async function discard(res: Response): Promise<void> {
  try {
    await res.body?.cancel();
  } catch {
    // already closed
  }
}

async function cancel(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  try {
    await reader.cancel();
  } catch {
    // already closed
  }
}

/** A short network error code (ECONNREFUSED, ENOTFOUND...) when the runtime gives one. */
export function networkCode(err: unknown): string {
  let current: unknown = err;
  for (let depth = 0; depth < 4 && current !== null && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]{1,40}$/.test(code)) return ` (${code})`;
    current = (current as { cause?: unknown }).cause;
  }
  return '';
}
