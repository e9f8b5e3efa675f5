import { createPublicClient, fallback, http, type PublicClient } from 'viem';
import { DEPLOYMENTS } from '../chains';
import type { Config } from '../config';

/** Default deadline of one call to one RPC endpoint (`RPC_TIMEOUT_MS`): the gate answers 503 rather than hang. */
export const RPC_TIMEOUT_MS = 4_000;

const clients = new WeakMap<Config, PublicClient>();

/**
 * A viem client for the deployment's chain, reading through `RPC_URLS` (else `RPC_URL`). Each
 * call goes to the first endpoint; one that fails or passes `RPC_TIMEOUT_MS` hands the call to the
 * next (viem's `fallback`), and a revert is an answer, not a failure. No retries beyond that:
 * fail fast, so a call takes at most endpoints x timeout.
 * Built once per isolate: it holds no connection (each call is its own fetch), so requests share it.
 */
export function chainClient(config: Config): PublicClient {
  let client = clients.get(config);
  if (!client) {
    const timeout = config.rpcTimeoutMs;
    client = createPublicClient({
      chain: { ...DEPLOYMENTS[config.chainId].chain, id: config.chainId },
      transport: fallback(
        config.rpcUrls.map((url) => http(url, { timeout, retryCount: 0, batch: false })),
        { rank: false, retryCount: 0 },
      ),
    });
    clients.set(config, client);
  }
  return client;
}
