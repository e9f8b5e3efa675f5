import { createPublicClient, fallback, http, type PublicClient } from 'viem';
import { DEPLOYMENTS } from '../chains';
import type { Config } from '../config';
import { readAtMost } from '../net/read-at-most';

/** Default deadline of one call to one RPC endpoint (`RPC_TIMEOUT_MS`): the gate answers 503 rather than hang. */
export const RPC_TIMEOUT_MS = 4_000;

/** The largest RPC answer read: our calls (ownerOf, a signature check, the chain id) answer in bytes. */
export const RPC_MAX_RESPONSE_BYTES = 1024 * 1024;

/**
 * fetch for the RPC with the answer bounded. viem's own bound reads every answer through a stream
 * reader (about a tenth of a gated request's CPU); here an answer that declares its length, as
 * RPC providers do, is handed over as it is when within the bound and refused when over it (a
 * transport failure: the next endpoint, or 503). An undeclared length, or a compressed answer
 * (its declared length counts compressed bytes, and a few KB of gzip can decode to gigabytes),
 * is read chunk by chunk, the bound counting the decoded bytes.
 */
async function boundedFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const res = await fetch(input, init);
  const declared = res.headers.get('content-length');
  const encoding = (res.headers.get('content-encoding') ?? '').trim().toLowerCase();
  const encoded = encoding !== '' && encoding !== 'identity';
  const tooLarge = () => new Error(`the RPC answer is larger than ${RPC_MAX_RESPONSE_BYTES} bytes`);
  if (!encoded && declared !== null) {
    if (/^\d+$/.test(declared) && Number(declared) <= RPC_MAX_RESPONSE_BYTES) return res;
    await res.body?.cancel();
    throw tooLarge();
  }
  if (!res.body) return res;
  const reader = res.body.getReader();
  const read = await readAtMost(reader, RPC_MAX_RESPONSE_BYTES);
  if (!read.ok) {
    await reader.cancel();
    throw tooLarge();
  }
  const headers = new Headers(res.headers);
  headers.delete('content-encoding'); // what we hand on is the decoded answer
  headers.delete('content-length');
  return new Response(read.bytes, { status: res.status, statusText: res.statusText, headers });
}

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
        config.rpcUrls.map((url) => http(url, { timeout, retryCount: 0, batch: false, maxResponseBodySize: false, fetchFn: boundedFetch })),
        { rank: false, retryCount: 0 },
      ),
    });
    clients.set(config, client);
  }
  return client;
}
