/**
 * One outbound request of the OAuth flow (protected resource and authorization server metadata,
 * registration, token): the URL through the tool servers' outbound policy first, no redirect
 * followed, one deadline, a byte cap, and a JSON object back or a failure in words. Never the
 * request's body or a token in a message.
 */
import { type Chunk, readAtMost } from '../../net/read-at-most';
import type { OutboundOptions } from '../../net/outbound-policy';
import { canonicalToolServerUrl } from '../url';
import { isObject } from '../types';

/** A metadata document or token answer is small; more is not an answer we want. */
export const MAX_OAUTH_RESPONSE_BYTES = 64 * 1024;

export type FetchFailure =
  | 'refused_url'
  | 'timeout'
  | 'unreachable'
  | 'redirect'
  | 'too_large'
  | 'not_json'
  | 'invalid_json'
  | 'not_found'
  | 'status';

export type JsonAnswer =
  | { ok: true; status: number; headers: Headers; json: Record<string, unknown> }
  | { ok: false; reason: FetchFailure; status?: number; message: string; json?: Record<string, unknown> };

export interface OAuthFetchDeps {
  fetch?: typeof fetch;
  outbound: OutboundOptions;
  timeoutMs: number;
}

/**
 * Sends the request and reads a JSON object. A 4xx with a JSON object body is handed back
 * (`status`, `json`: an OAuth error answer); 404 and 410 are `not_found`, for discovery to try the
 * next place.
 */
export async function fetchJson(
  deps: OAuthFetchDeps,
  url: string,
  init: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string } = {},
): Promise<JsonAnswer> {
  const allowed = canonicalToolServerUrl(url, deps.outbound);
  if (!allowed.ok) return { ok: false, reason: 'refused_url', message: `the URL is refused by the outbound policy: ${allowed.message}` };
  const doFetch = deps.fetch ?? ((input: RequestInfo | URL, i?: RequestInit) => fetch(input, i));
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), deps.timeoutMs);
  let res: Response;
  try {
    res = await doFetch(url, {
      method: init.method ?? 'GET',
      headers: { Accept: 'application/json', ...init.headers },
      ...(init.body === undefined ? {} : { body: init.body }),
      redirect: 'manual',
      signal: controller.signal,
    });
  } catch {
    clearTimeout(timer);
    return controller.signal.aborted
      ? { ok: false, reason: 'timeout', message: `no answer within ${deps.timeoutMs} ms` }
      : { ok: false, reason: 'unreachable', message: 'it could not be reached' };
  }
  try {
    return await readJson(res, controller.signal);
  } catch {
    return controller.signal.aborted
      ? { ok: false, reason: 'timeout', message: `no complete answer within ${deps.timeoutMs} ms` }
      : { ok: false, reason: 'unreachable', message: 'the connection failed while reading the answer' };
  } finally {
    clearTimeout(timer);
    if (res.body && !res.bodyUsed) void res.body.cancel().catch(() => {});
  }
}

async function readJson(res: Response, signal: AbortSignal): Promise<JsonAnswer> {
  const status = res.status;
  if ((res.type as string) === 'opaqueredirect' || (status >= 300 && status < 400)) {
    return { ok: false, reason: 'redirect', status, message: `it answered with a redirect (HTTP ${status}); redirects are not followed` };
  }
  if (status === 404 || status === 410) return { ok: false, reason: 'not_found', status, message: `not found (HTTP ${status})` };
  const type = (res.headers.get('content-type') ?? '').toLowerCase();
  const json = /^application\/([a-z0-9.+-]*\+)?json\b/.test(type);
  if (!json) {
    if (status >= 400) return { ok: false, reason: 'status', status, message: `it answered HTTP ${status}` };
    return { ok: false, reason: 'not_json', status, message: `it answered ${type.split(';')[0] || 'no content type'}, not JSON` };
  }
  if (Number(res.headers.get('content-length') ?? '0') > MAX_OAUTH_RESPONSE_BYTES) return tooLarge(status);
  if (!res.body) return { ok: false, reason: 'invalid_json', status, message: 'its answer is empty' };
  const reader = res.body.getReader();
  const abort = new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(new Error('deadline')), { once: true }));
  abort.catch(() => {});
  const read = await readAtMost(reader, MAX_OAUTH_RESPONSE_BYTES, (r) => Promise.race([r.read() as Promise<Chunk>, abort]));
  if (!read.ok) {
    void reader.cancel().catch(() => {});
    return tooLarge(status);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(read.bytes));
  } catch {
    return { ok: false, reason: 'invalid_json', status, message: 'its answer is not valid JSON' };
  }
  if (!isObject(parsed)) return { ok: false, reason: 'invalid_json', status, message: 'its answer is not a JSON object' };
  if (status < 200 || status >= 300) return { ok: false, reason: 'status', status, message: `it answered HTTP ${status}`, json: parsed };
  return { ok: true, status, headers: res.headers, json: parsed };
}

const tooLarge = (status: number): JsonAnswer => ({
  ok: false,
  reason: 'too_large',
  status,
  message: `its answer is larger than ${MAX_OAUTH_RESPONSE_BYTES / 1024} KiB`,
});
