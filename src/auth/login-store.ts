import type { Address } from 'viem';

/**
 * KV layout (namespace NONCES):
 *   key      `login:<chainId>:<wallet lower-case>:<nonce>`: one key per message handed out
 *   value    JSON `{ message, nonce, issuedAt }`: the exact EIP-4361 text we asked the wallet to sign
 *   metadata the same record when it fits KV's 1 KiB metadata (so a list needs no reads), else `{ nonce, issuedAt }`
 *   TTL      NONCE_TTL_SECONDS, but at least 60 s (KV's floor); expiry is also checked from the text
 * Several logins of one wallet may be pending at once: an init never replaces another's message.
 * Each key is written once (by init) and never rewritten or deleted: it expires. KV takes one
 * write per second per key, and a finish within a second of its init must not need a second write.
 */
export interface PendingLogin {
  message: string;
  nonce: string;
  issuedAt: string;
}

const KV_MIN_TTL_SECONDS = 60;
const KV_MAX_METADATA_BYTES = 1_024;
/** One list call reads at most this many keys (KV's own ceiling per call). */
const KV_LIST_LIMIT = 1_000;

function walletPrefix(chainId: number, wallet: Address): string {
  return `login:${chainId}:${wallet.toLowerCase()}:`;
}

function isPendingLogin(value: unknown): value is PendingLogin {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return typeof record.message === 'string' && typeof record.nonce === 'string' && typeof record.issuedAt === 'string';
}

export async function savePendingLogin(
  kv: KVNamespace,
  chainId: number,
  wallet: Address,
  login: PendingLogin,
  ttlSeconds: number,
): Promise<void> {
  const value = JSON.stringify(login);
  const fits = new TextEncoder().encode(value).byteLength <= KV_MAX_METADATA_BYTES;
  await kv.put(walletPrefix(chainId, wallet) + login.nonce, value, {
    expirationTtl: Math.max(KV_MIN_TTL_SECONDS, ttlSeconds),
    metadata: fits ? login : { nonce: login.nonce, issuedAt: login.issuedAt },
  });
}

/** The pending login of `wallet` with this nonce (a direct read: as consistent as KV gets). */
export async function loadPendingLogin(kv: KVNamespace, chainId: number, wallet: Address, nonce: string): Promise<PendingLogin | null> {
  const value = await kv.get<unknown>(walletPrefix(chainId, wallet) + nonce, 'json');
  return isPendingLogin(value) && value.nonce === nonce ? value : null;
}

/**
 * The wallet's pending logins, newest first, at most `limit`. KV lists are eventually consistent:
 * a message handed out a moment ago in another location may be missing for up to a minute, which
 * is why clients that can should send the nonce (`loadPendingLogin`).
 */
export async function listPendingLogins(kv: KVNamespace, chainId: number, wallet: Address, limit: number): Promise<PendingLogin[]> {
  const prefix = walletPrefix(chainId, wallet);
  const listed = await kv.list<Partial<PendingLogin>>({ prefix, limit: KV_LIST_LIMIT });
  const newest = listed.keys
    .map((key) => ({ key: key.name, meta: key.metadata }))
    .sort((a, b) => (b.meta?.issuedAt ?? '').localeCompare(a.meta?.issuedAt ?? ''))
    .slice(0, limit);
  const logins = await Promise.all(
    newest.map(async ({ key, meta }) => {
      if (isPendingLogin(meta)) return meta;
      const nonce = key.slice(prefix.length);
      return loadPendingLogin(kv, chainId, wallet, nonce);
    }),
  );
  return logins.filter((login): login is PendingLogin => login !== null);
}
