import type { Address } from 'viem';
import type { MessagePurpose } from './siwe';

/**
 * Nonces that say who issued them: `<issued at, ms, base36, 9>` `<random, 32 hex>` `<tag, 32 hex>`,
 * 73 alphanumeric characters. The tag is a MAC (HMAC-SHA-256, cut to 128 bits) of the purpose,
 * chain, wallet, time and random part under a key derived from the deployment's JWT secret. A
 * finish that sends such a nonce lets the gateway rebuild the exact message init handed out and
 * check the signature without reading the pending login back from KV (KV is eventually consistent and slower): the nonce is
 * proof that init issued it, for this wallet, at that time. Only the finish path uses it; the
 * single-use rule stays the database's.
 */
const TIME_CHARS = 9;
const RANDOM_BYTES = 16;
const TAG_BYTES = 16;
const FORMAT = /^([0-9a-z]{9})([0-9a-f]{32})([0-9a-f]{32})$/;
const KEY_LABEL = 'agent-gateway/login-nonce/v1';

/** Login and pairing, and the approval of an OAuth grant (src/oauth/approval.ts): a nonce of one never passes as another's. */
export type NoncePurpose = MessagePurpose | 'oauth_approval';

export interface NonceScope {
  purpose: NoncePurpose;
  chainId: number;
  wallet: Address;
}

const keys = new WeakMap<Uint8Array, Promise<CryptoKey>>();

/** The MAC key, derived once per secret: HMAC(secret, label), so it is never the JWT key itself. */
function nonceKey(secret: Uint8Array): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    key = (async () => {
      const master = await crypto.subtle.importKey('raw', secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
      const derived = await crypto.subtle.sign('HMAC', master, new TextEncoder().encode(KEY_LABEL));
      return crypto.subtle.importKey('raw', derived, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    })();
    keys.set(secret, key);
  }
  return key;
}

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

async function tag(secret: Uint8Array, scope: NonceScope, time: string, random: string): Promise<string> {
  const input = `${scope.purpose}:${scope.chainId}:${scope.wallet.toLowerCase()}:${time}:${random}`;
  const mac = await crypto.subtle.sign('HMAC', await nonceKey(secret), new TextEncoder().encode(input));
  return hex(new Uint8Array(mac, 0, TAG_BYTES));
}

/** A fresh nonce for `scope`, issued at `issuedAt`. */
export async function issueNonce(secret: Uint8Array, scope: NonceScope, issuedAt: Date): Promise<string> {
  const time = issuedAt.getTime().toString(36).padStart(TIME_CHARS, '0');
  const random = hex(crypto.getRandomValues(new Uint8Array(RANDOM_BYTES)));
  return `${time}${random}${await tag(secret, scope, time, random)}`;
}

/** When this gateway issued `nonce` for `scope`, or null when it did not (other format, other scope, forged). */
export async function issuedAt(secret: Uint8Array, scope: NonceScope, nonce: string): Promise<Date | null> {
  const match = FORMAT.exec(nonce);
  if (!match) return null;
  const [, time, random, claimed] = match as unknown as [string, string, string, string];
  const expected = await tag(secret, scope, time, random);
  let diff = 0;
  for (let i = 0; i < expected.length; i++) diff |= expected.charCodeAt(i) ^ claimed.charCodeAt(i);
  return diff === 0 ? new Date(Number.parseInt(time, 36)) : null;
}
