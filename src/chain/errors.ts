import { BaseError, ContractFunctionRevertedError, ExecutionRevertedError } from 'viem';
import { AppError } from '../errors';

/** The public error for a chain RPC that does not answer: 503 with Retry-After. */
export function chainUnavailable(cause: unknown): AppError {
  return new AppError('dependency_unavailable', 'The chain RPC is not available, retry shortly', {
    cause,
    headers: { 'Retry-After': '5' },
  });
}

/**
 * True when the node answered and the call reverted (a definite "no" from the chain). Anything
 * else (no answer, timeout, HTTP error, an RPC error that is not a revert) is a fault of the chain
 * path, never a verdict.
 */
export function isRevert(err: unknown): boolean {
  if (!(err instanceof BaseError)) return false;
  return err.walk((e) => e instanceof ExecutionRevertedError || e instanceof ContractFunctionRevertedError) !== null;
}
