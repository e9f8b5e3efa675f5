/** Retries of calls that may succeed later: 502, 503, 504, 429, network errors and timeouts; never 4xx. */
import { GatewayError } from '../client/errors';

export interface RetryOptions {
  /** Attempts in all, including the first (default 8). */
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
  const attempts = options.attempts ?? 8;
  const base = options.baseDelayMs ?? 500;
  const max = options.maxDelayMs ?? 10_000;
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
