import type { ClientErrorCode, ErrorCode } from './types';

/**
 * Any failure of a gateway call. `status` is the HTTP status (0 when no answer came: network
 * error, timeout, abort), `code` the gateway's error code (or one of the client's own codes),
 * `requestId` the `X-Request-Id` of the answer when there was one, `details` the error body's
 * details.
 *
 * It never holds the access token: the request's headers are not kept, and any occurrence of
 * the token in a message the server sent is replaced by `***`.
 */
export class GatewayError extends Error {
  override readonly name = 'GatewayError';
  readonly status: number;
  readonly code: ErrorCode | ClientErrorCode | (string & {});
  readonly requestId: string | undefined;
  readonly details: unknown;
  /** `METHOD /path` of the failed call (no query string, no headers). */
  readonly operation: string | undefined;
  /** Seconds from `Retry-After` (503), when the gateway sent one. */
  readonly retryAfterSeconds: number | undefined;

  constructor(init: {
    status: number;
    code: GatewayError['code'];
    message: string;
    requestId?: string | undefined;
    details?: unknown;
    operation?: string | undefined;
    retryAfterSeconds?: number | undefined;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.details = init.details;
    this.operation = init.operation;
    this.retryAfterSeconds = init.retryAfterSeconds;
  }

  /** No HTTP answer (network error or timeout) or 502/503/504: worth retrying (safely with an Idempotency-Key). */
  get transient(): boolean {
    return (
      this.code === 'network_error' ||
      this.code === 'timeout' ||
      this.status === 429 ||
      this.status === 502 ||
      this.status === 503 ||
      this.status === 504
    );
  }

  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      status: this.status,
      code: this.code,
      message: this.message,
      requestId: this.requestId,
      details: this.details,
      operation: this.operation,
    };
  }
}

export function isGatewayError(value: unknown): value is GatewayError {
  return value instanceof GatewayError;
}

/**
 * Where the owner authorizes an OAuth tool server again, from a 424 `tool_authorization_required`
 * (its `details.authorizeUrl`); undefined for any other error, or for a caller that is not the
 * owner (a key holder gets the code only).
 */
export function toolAuthorizationUrl(error: unknown): string | undefined {
  if (!isGatewayError(error) || error.code !== 'tool_authorization_required') return undefined;
  const details = error.details;
  if (typeof details !== 'object' || details === null || !('authorizeUrl' in details)) return undefined;
  return typeof details.authorizeUrl === 'string' ? details.authorizeUrl : undefined;
}
