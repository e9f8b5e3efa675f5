import { readAtMost, type Chunk } from './read-at-most';

/**
 * What one bounded GET came to: the body of a 2xx answer, or why there is none. `status` is a
 * non-2xx, non-3xx answer's; `redirect` any 3xx (never followed).
 */
export type BoundedFetch =
  | { ok: true; status: number; headers: Headers; bytes: Uint8Array }
  | { ok: false; reason: 'timeout' | 'unreachable' | 'redirect' | 'status' | 'too_large'; status?: number };

export interface BoundedFetchOptions {
  /** One deadline over the connection, the headers and the whole body. */
  timeoutMs: number;
  /** The body's cap in bytes, declared (`Content-Length`) or counted as it arrives. */
  maxBytes: number;
  headers?: Record<string, string>;
}

/**
 * GETs a small document from a URL the caller has already put through the outbound policy
 * (outbound-policy.ts): no redirect is followed (a 3xx is an answer of its own, so a checked host
 * cannot hand the request on to an unchecked one), no cookie or credential is sent, and the whole
 * exchange stops at the deadline or as soon as the body passes its cap.
 */
export async function fetchBounded(url: string, options: BoundedFetchOptions): Promise<BoundedFetch> {
  const controller = new AbortController();
  let timedOut = false;
  let onAbort: () => void = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new Error('deadline passed'));
  });
  aborted.catch(() => {});
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
    onAbort();
  }, options.timeoutMs);
  let response: Response | undefined;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  try {
    response = await Promise.race([
      fetch(url, { method: 'GET', headers: options.headers ?? {}, redirect: 'manual', signal: controller.signal }),
      aborted,
    ]);
    if (response.status >= 300 && response.status < 400) return { ok: false, reason: 'redirect', status: response.status };
    if (response.status < 200 || response.status >= 300) return { ok: false, reason: 'status', status: response.status };
    const declared = Number(response.headers.get('content-length') ?? '0');
    if (declared > options.maxBytes) return { ok: false, reason: 'too_large' };
    if (!response.body) return { ok: true, status: response.status, headers: response.headers, bytes: new Uint8Array(0) };
    reader = response.body.getReader();
    const next = (r: ReadableStreamDefaultReader<Uint8Array>) => Promise.race([r.read() as Promise<Chunk>, aborted]);
    const read = await readAtMost(reader, options.maxBytes, next);
    if (!read.ok) return { ok: false, reason: 'too_large' };
    return { ok: true, status: response.status, headers: response.headers, bytes: read.bytes };
  } catch {
    return { ok: false, reason: timedOut ? 'timeout' : 'unreachable' };
  } finally {
    clearTimeout(timer);
    // Whatever was not read is dropped (a refused answer's body, the rest of an oversized or late one).
    if (reader) void reader.cancel().catch(() => {});
    else if (response?.body) void response.body.cancel().catch(() => {});
  }
}
