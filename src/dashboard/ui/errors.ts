import { GatewayError } from '../../client';
import { WalletError } from '../wallet';

/** What a failure shows: its message in words and its stable code. */
export interface Problem {
  code: string;
  message: string;
  /** The gateway's request id, to quote to an operator. */
  requestId?: string | undefined;
}

/** Any thrown value as a `Problem`: the gateway's and the wallet's codes kept, anything else `unexpected`. */
export function problemOf(err: unknown): Problem {
  if (err instanceof GatewayError) return { code: err.code, message: err.message, requestId: err.requestId };
  if (err instanceof WalletError) return { code: err.code, message: err.message };
  if (err instanceof Error) return { code: 'unexpected', message: err.message };
  return { code: 'unexpected', message: String(err) };
}

/** A user's Stop (an aborted call): not a failure to show. */
export function isAbort(err: unknown): boolean {
  return (err instanceof GatewayError && err.code === 'aborted') || (err instanceof DOMException && err.name === 'AbortError');
}
