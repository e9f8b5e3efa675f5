import { createPublicClient, http, type PublicClient } from 'viem';
import { DEPLOYMENTS } from '../chains';
import type { Config } from '../config';

/** RPC calls give up after this long: the gate answers 503 rather than hang. */
export const RPC_TIMEOUT_MS = 4_000;

const clients = new WeakMap<Config, PublicClient>();

/**
 * A viem client for the deployment's chain, reading through `RPC_URL`. No retries: fail fast.
 * Built once per isolate: it holds no connection (each call is its own fetch), so requests share it.
 */
export function chainClient(config: Config): PublicClient {
  let client = clients.get(config);
  if (!client) {
    client = createPublicClient({
      chain: { ...DEPLOYMENTS[config.chainId].chain, id: config.chainId },
      transport: http(config.rpcUrl, { timeout: RPC_TIMEOUT_MS, retryCount: 0, batch: false }),
    });
    clients.set(config, client);
  }
  return client;
}
