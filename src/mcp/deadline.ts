/**
 * The deadline of one public client operation (handshake, retry and every page included): an
 * abort signal for fetch and body reads, and the `timeout` failure it turns into.
 */
import { McpError } from './types';

export interface Deadline {
  signal: AbortSignal;
  expired(): boolean;
  /** The operation's whole budget, named in the timeout message. */
  timeoutMs: number;
}

export function timeoutError(timeoutMs: number): McpError {
  return new McpError('timeout', `tool server did not answer within ${timeoutMs} ms`);
}

/**
 * Runs `run` under a deadline of `timeoutMs`. Once the deadline has passed, any failure becomes
 * `timeout`, except an McpError that says something more precise than a broken connection or body.
 */
export async function withDeadline<T>(timeoutMs: number, run: (deadline: Deadline) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    controller.abort(new Error('MCP call timed out'));
  }, timeoutMs);
  const deadline: Deadline = { signal: controller.signal, expired: () => expired, timeoutMs };
  try {
    return await run(deadline);
  } catch (err) {
    if (expired && !(err instanceof McpError && err.kind !== 'unreachable' && err.kind !== 'bad_response')) {
      throw timeoutError(timeoutMs);
    }
    throw err;
  } finally {
    clearTimeout(timer);
  }
}
