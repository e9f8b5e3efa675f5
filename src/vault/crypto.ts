import { parseKekSpec } from '../encoding/kek-spec';

/**
 * Envelope encryption with WebCrypto: each secret gets a fresh 256-bit data key
 * (AES-GCM); the data key is wrapped by the key encryption key (KEK) from the secret VAULT_KEK.
 * Additional data binds the ciphertext to its entry, agent, owner record and owner wallet, so a
 * ciphertext copied to another row, agent or connection, or a row edited to name another wallet,
 * fails to decrypt. Rotating the KEK re-wraps data
 * keys only; secrets are never re-encrypted and never leave this module in the clear except as
 * the return value of `openSecret`.
 */

export interface Kek {
  version: number;
  key: CryptoKey;
}

/** The KEKs a deployment holds: the current one, and the previous one during a rotation. */
export interface KeyRing {
  current: Kek;
  previous?: Kek;
}

/** What a sealed secret is bound to (part of the additional authenticated data). */
export interface SecretContext {
  entryId: string;
  /** `chainId:collection:tokenId` of the agent. */
  agent: string;
  /** The record that owns the secret, e.g. `mcp_connection:<id>` or `llm_settings`. */
  owner: string;
  /**
   * Lower-case address of the wallet that entered the secret. `null` only for entries sealed
   * before wallets were recorded (additional data v1, without a wallet): they can still be
   * re-wrapped by a rotation, but the store never opens them for a request.
   */
  ownerWallet: string | null;
}

export interface SealedSecret {
  kekVersion: number;
  /** IV (12 bytes) followed by the AES-GCM-wrapped data key. */
  wrappedKey: Uint8Array;
  /** IV (12 bytes) followed by the AES-GCM ciphertext of the secret. */
  ciphertext: Uint8Array;
}

export async function importKek(spec: string): Promise<Kek> {
  const parsed = parseKekSpec(spec);
  if (!parsed) throw new Error('a KEK must be v<version>:<base64 of 32 bytes>');
  const key = await crypto.subtle.importKey('raw', parsed.bytes, 'AES-GCM', false, ['encrypt', 'decrypt']);
  return { version: parsed.version, key };
}

const encoder = new TextEncoder();

/** v2 binds the owner wallet; v1 (no wallet) is what entries sealed before it carry. */
function boundTo(ctx: SecretContext): string {
  return ctx.ownerWallet === null
    ? `v1|${ctx.entryId}|${ctx.agent}|${ctx.owner}`
    : `v2|${ctx.entryId}|${ctx.agent}|${ctx.owner}|wallet:${ctx.ownerWallet}`;
}

function dataAad(ctx: SecretContext): Uint8Array {
  return encoder.encode(`agent-gateway/vault/data/${boundTo(ctx)}`);
}

function keyAad(ctx: SecretContext, kekVersion: number): Uint8Array {
  return encoder.encode(`agent-gateway/vault/key/${boundTo(ctx)}|kek:${kekVersion}`);
}

async function gcmEncrypt(key: CryptoKey, plaintext: Uint8Array, aad: Uint8Array): Promise<Uint8Array> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ct = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: aad }, key, plaintext));
  const out = new Uint8Array(12 + ct.length);
  out.set(iv);
  out.set(ct, 12);
  return out;
}

async function gcmDecrypt(key: CryptoKey, sealed: Uint8Array, aad: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(
    await crypto.subtle.decrypt({ name: 'AES-GCM', iv: sealed.slice(0, 12), additionalData: aad }, key, sealed.slice(12)),
  );
}

/** Thrown when a secret cannot be opened: wrong KEK, tampered data or another row's ciphertext. */
export class VaultDecryptError extends Error {
  override readonly name = 'VaultDecryptError';
}

/** Seals a new secret; every new entry names the wallet that entered it. */
export async function sealSecret(ring: KeyRing, ctx: SecretContext & { ownerWallet: string }, plaintext: string): Promise<SealedSecret> {
  const dataKeyBytes = crypto.getRandomValues(new Uint8Array(32));
  const dataKey = await crypto.subtle.importKey('raw', dataKeyBytes, 'AES-GCM', false, ['encrypt']);
  const ciphertext = await gcmEncrypt(dataKey, encoder.encode(plaintext), dataAad(ctx));
  const wrappedKey = await gcmEncrypt(ring.current.key, dataKeyBytes, keyAad(ctx, ring.current.version));
  dataKeyBytes.fill(0);
  return { kekVersion: ring.current.version, wrappedKey, ciphertext };
}

function kekFor(ring: KeyRing, version: number): Kek {
  if (ring.current.version === version) return ring.current;
  if (ring.previous?.version === version) return ring.previous;
  throw new VaultDecryptError(`no key encryption key of version ${version} is configured`);
}

async function unwrapDataKey(ring: KeyRing, ctx: SecretContext, sealed: SealedSecret): Promise<Uint8Array> {
  try {
    return await gcmDecrypt(kekFor(ring, sealed.kekVersion).key, sealed.wrappedKey, keyAad(ctx, sealed.kekVersion));
  } catch (err) {
    if (err instanceof VaultDecryptError) throw err;
    throw new VaultDecryptError('the secret cannot be opened with this key and context');
  }
}

export async function openSecret(ring: KeyRing, ctx: SecretContext, sealed: SealedSecret): Promise<string> {
  const dataKeyBytes = await unwrapDataKey(ring, ctx, sealed);
  try {
    const dataKey = await crypto.subtle.importKey('raw', dataKeyBytes, 'AES-GCM', false, ['decrypt']);
    return new TextDecoder().decode(await gcmDecrypt(dataKey, sealed.ciphertext, dataAad(ctx)));
  } catch {
    throw new VaultDecryptError('the secret cannot be opened with this key and context');
  } finally {
    dataKeyBytes.fill(0);
  }
}

/** Re-wraps the data key under the current KEK; the secret's ciphertext stays as it is. */
export async function rewrapSecret(ring: KeyRing, ctx: SecretContext, sealed: SealedSecret): Promise<SealedSecret> {
  if (sealed.kekVersion === ring.current.version) return sealed;
  const dataKeyBytes = await unwrapDataKey(ring, ctx, sealed);
  try {
    const wrappedKey = await gcmEncrypt(ring.current.key, dataKeyBytes, keyAad(ctx, ring.current.version));
    return { kekVersion: ring.current.version, wrappedKey, ciphertext: sealed.ciphertext };
  } finally {
    dataKeyBytes.fill(0);
  }
}
