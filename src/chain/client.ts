import { createPublicClient, http, type PublicClient } from 'viem';
import { DEPLOYMENTS } from '../chains';
import type { Config } from '../config';

/** RPC calls give up after this long: the gate answers 503 rather than hang. */
export const RPC_TIMEOUT_MS = 4_000;

/** A viem client for the deployment's chain, reading through `RPC_URL`. No retries: fail fast. */
export function chainClient(config: Config): PublicClient {
  return createPublicClient({
    chain: { ...DEPLOYMENTS[config.chainId].chain, id: config.chainId },
    transport: http(config.rpcUrl, { timeout: RPC_TIMEOUT_MS, retryCount: 0 }),
  });
}
