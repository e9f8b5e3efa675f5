/** Retries of calls that may succeed later: 502, 503, 504, 429, network errors and timeouts; never 4xx. */
import { GatewayError } from '../client/errors';

/** The one retry policy of the CLI: every retrying call site uses these numbers. */
export const RETRY = { attempts: 8, baseDelayMs: 500, maxDelayMs: 10_000 } as const;

/**
 * The policy in words, as `--help` and the docs say it (docs/memory.md, docs/keys-and-automation.md;
 * a unit test keeps them in step). Writes are retried only where a repeat cannot store twice
 * (Idempotency-Key, batch create).
 */
export const RETRY_POLICY = `Retries: 429, 502, 503, 504 and network errors are retried, up to 8 attempts
in all, waiting 0.5 s, then twice as long each time (with jitter) up to 10 s, or the Retry-After
the gateway sent (at most 10 s); other 4xx never are.`;

export interface RetryOptions {
  /** Attempts in all, including the first (default RETRY.attempts). */
  attempts?: number;
  /** First delay, ms (default 500); doubles each time, with jitter, up to `maxDelayMs`. */
  baseDelayMs?: number;
  /** Default 10,000. */
  maxDelayMs?: number;
  /** Told before each wait. */
  onRetry?: (err: GatewayError, attempt: number, delayMs: number) => void;
  sleep?: (ms: number) => Promise<void>;
}

export function isRetryable(err: unknown): err is GatewayError {
  return err instanceof GatewayError && err.transient;
}

export async function withRetry<T>(work: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const attempts = options.attempts ?? RETRY.attempts;
  const base = options.baseDelayMs ?? RETRY.baseDelayMs;
  const max = options.maxDelayMs ?? RETRY.maxDelayMs;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (!isRetryable(err) || attempt >= attempts) throw err;
      const backoff = Math.min(max, base * 2 ** (attempt - 1)) * (0.75 + Math.random() * 0.5);
      const delay = Math.round(Math.min(max, Math.max(backoff, (err.retryAfterSeconds ?? 0) * 1000)));
      options.onRetry?.(err, attempt, delay);
      await sleep(delay);
    }
  }
}

const RETRY_STATUSES = new Set([429, 502, 503, 504]);

/**
 * Reads, and the two login steps: a repeated init only hands out another message, and a repeated
 * finish either succeeds or is refused because the first one used the nonce; neither stores twice.
 */
function isSafeToRepeat(method: string, url: string): boolean {
  if (method === 'GET') return true;
  return method === 'POST' && /\/auth\/jwt\/(init|finish)$/.test(new URL(url).pathname);
}

/**
 * A `fetch` for the gateway client that retries reads (GET) and the login steps (a re-login in
 * the middle of a command) answered 429/502/503/504 or failing on the network, honouring
 * Retry-After, with bounded attempts and delays: a page walk (`contexts list`, `messages
 * export`) or a pre-check survives a short outage. Writes are retried by their callers
 * (`withRetry`), which know whether a repeat is safe.
 */
export function retryingFetch(
  options: {
    attempts?: number;
    baseDelayMs?: number;
    maxDelayMs?: number;
    onRetry?: (what: string, attempt: number, delayMs: number) => void;
  } = {},
  inner: (input: string, init: RequestInit) => Promise<Response> = (input, init) => globalThis.fetch(input, init),
): (input: string, init: RequestInit) => Promise<Response> {
  const attempts = options.attempts ?? RETRY.attempts;
  const base = options.baseDelayMs ?? RETRY.baseDelayMs;
  const max = options.maxDelayMs ?? RETRY.maxDelayMs;
  return async function fetchWithRetries(input, init) {
    if (!isSafeToRepeat((init.method ?? 'GET').toUpperCase(), input)) return inner(input, init);
    for (let attempt = 1; ; attempt++) {
      let what: string;
      let retryAfterSeconds = 0;
      try {
        const res = await inner(input, init);
        if (!RETRY_STATUSES.has(res.status) || attempt >= attempts) return res;
        what = `HTTP ${res.status}`;
        const header = Number(res.headers.get('retry-after'));
        if (Number.isFinite(header) && header > 0) retryAfterSeconds = header;
        await res.body?.cancel();
      } catch (err) {
        if (init.signal?.aborted || attempt >= attempts) throw err;
        what = 'network error';
      }
      const backoff = Math.min(max, base * 2 ** (attempt - 1)) * (0.75 + Math.random() * 0.5);
      const delay = Math.round(Math.min(max, Math.max(backoff, retryAfterSeconds * 1000)));
      options.onRetry?.(what, attempt, delay);
      await abortableSleep(delay, init.signal ?? undefined);
    }
  };
}

function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
