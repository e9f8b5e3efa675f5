import type { Address } from 'viem';

/**
 * KV layout (namespace NONCES):
 *   key   `login:<chainId>:<wallet lower-case>`
 *   value JSON `{ message, nonce, issuedAt }`: the exact EIP-4361 text we asked the wallet to sign
 *   TTL   NONCE_TTL_SECONDS, but at least 60 s (KV's floor); expiry is also checked from the text
 * A newer init for the same wallet and chain replaces the older one.
 */
export interface PendingLogin {
  message: string;
  nonce: string;
  issuedAt: string;
}

const KV_MIN_TTL_SECONDS = 60;

function key(chainId: number, wallet: Address): string {
  return `login:${chainId}:${wallet.toLowerCase()}`;
}

export async function savePendingLogin(kv: KVNamespace, chainId: number, wallet: Address, login: PendingLogin, ttlSeconds: number): Promise<void> {
  await kv.put(key(chainId, wallet), JSON.stringify(login), { expirationTtl: Math.max(KV_MIN_TTL_SECONDS, ttlSeconds) });
}

export async function loadPendingLogin(kv: KVNamespace, chainId: number, wallet: Address): Promise<PendingLogin | null> {
  const value = await kv.get<PendingLogin>(key(chainId, wallet), 'json');
  return value && typeof value.message === 'string' && typeof value.nonce === 'string' ? value : null;
}
