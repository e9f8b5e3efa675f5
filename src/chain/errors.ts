import { AppError } from '../errors';

/** The public error for a chain RPC that does not answer: 503 with Retry-After. */
export function chainUnavailable(cause: unknown): AppError {
  return new AppError('dependency_unavailable', 'The chain RPC is not available, retry shortly', {
    cause,
    headers: { 'Retry-After': '5' },
  });
}
