/**
 * The deadline of one public client operation (handshake, retry and every page included): an
 * abort signal for fetch and body reads, and the `timeout` failure it turns into.
 *
 * A tools/call deadline is an inactivity timer: each `notifications/progress` for the call's
 * progress token restarts it (`noteProgress`), never past an absolute ceiling (MCP_CALL_CEILING_MS).
 * The caller's own `signal` (a reply's deadline) ends the operation at once, whatever is left.
 */
import { isObject, McpError } from './types';

export interface Deadline {
  signal: AbortSignal;
  expired(): boolean;
  /** The operation's inactivity budget, named in the timeout message. */
  timeoutMs: number;
  /** The failure this deadline turns into once it has passed. */
  timeoutError(): McpError;
  /** A notification arrived on the reply: progress for our token restarts the timer. */
  noteProgress(notification: Record<string, unknown>): void;
}

export interface DeadlineOptions {
  /** Restarts happen only for `notifications/progress` carrying this token. */
  progressToken?: string;
  /** Absolute limit from the start, ms; progress never extends the deadline past it. Default: `timeoutMs`. */
  ceilingMs?: number;
  /** The caller stopped waiting (a reply that ended): the operation is abandoned at once, as a `timeout`. */
  signal?: AbortSignal;
}

export function timeoutError(timeoutMs: number): McpError {
  return new McpError('timeout', `tool server did not answer within ${timeoutMs} ms`);
}

/**
 * Runs `run` under a deadline of `timeoutMs`. Once the deadline has passed, any failure becomes
 * `timeout`, except an McpError that says something more precise than a broken connection or body.
 */
export async function withDeadline<T>(
  timeoutMs: number,
  run: (deadline: Deadline) => Promise<T>,
  options: DeadlineOptions = {},
): Promise<T> {
  const controller = new AbortController();
  const started = Date.now();
  const ceilingMs = Math.max(timeoutMs, options.ceilingMs ?? timeoutMs);
  let expired = false;
  let atCeiling = false;
  let abandoned = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = (): void => {
    if (expired) return;
    if (timer !== undefined) clearTimeout(timer);
    const left = ceilingMs - (Date.now() - started);
    const wait = Math.min(timeoutMs, left);
    timer = setTimeout(
      () => {
        expired = true;
        atCeiling = wait === left;
        controller.abort(new Error('MCP call timed out'));
      },
      Math.max(0, wait),
    );
  };
  // The request is aborted, so the tool server sees its connection close rather than a call nobody reads.
  const abandon = (): void => {
    if (expired) return;
    expired = true;
    abandoned = true;
    if (timer !== undefined) clearTimeout(timer);
    controller.abort(new Error('MCP call abandoned'));
  };
  const failure = (): McpError =>
    abandoned
      ? new McpError('timeout', 'tool call abandoned: its caller stopped waiting')
      : atCeiling && ceilingMs > timeoutMs
        ? new McpError(
            'timeout',
            `tool call still running at the ceiling of ${ceilingMs} ms (progress restarts the ${timeoutMs} ms timeout up to it)`,
          )
        : timeoutError(timeoutMs);
  const deadline: Deadline = {
    signal: controller.signal,
    expired: () => expired,
    timeoutMs,
    timeoutError: failure,
    noteProgress(notification) {
      if (options.progressToken === undefined || notification.method !== 'notifications/progress') return;
      const params = notification.params;
      if (isObject(params) && params.progressToken === options.progressToken) arm();
    },
  };
  arm();
  const outer = options.signal;
  if (outer?.aborted) abandon();
  outer?.addEventListener('abort', abandon, { once: true });
  try {
    return await run(deadline);
  } catch (err) {
    if (expired && !(err instanceof McpError && err.kind !== 'unreachable' && err.kind !== 'bad_response')) {
      throw failure();
    }
    throw err;
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    outer?.removeEventListener('abort', abandon);
  }
}

/** `work`, or the deadline's failure as soon as it passes (a shared handshake runs on another call's deadline). */
export function untilAborted<T>(work: Promise<T>, deadline: Deadline): Promise<T> {
  const signal = deadline.signal;
  if (signal.aborted) return Promise.reject(deadline.timeoutError());
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(deadline.timeoutError());
    signal.addEventListener('abort', stop, { once: true });
    void work.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
  });
}
