/**
 * Envelope encryption with WebCrypto (DESIGN §7): each secret gets a fresh 256-bit data key
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
/** `v<version>:<base64 of 32 bytes>`, e.g. `v1:3q2+7w...=`. */
export declare const KEK_FORMAT: RegExp;
export declare function parseKekSpec(spec: string): {
  version: number;
  bytes: Uint8Array;
} | null;
export declare function importKek(spec: string): Promise<Kek>;
/** Thrown when a secret cannot be opened: wrong KEK, tampered data or another row's ciphertext. */
export declare class VaultDecryptError extends Error {
  readonly name = 'VaultDecryptError';
}
/** Seals a new secret; every new entry names the wallet that entered it. */
export declare function sealSecret(
  ring: KeyRing,
  ctx: SecretContext & {
    ownerWallet: string;
  },
  plaintext: string,
): Promise<SealedSecret>;
export declare function openSecret(ring: KeyRing, ctx: SecretContext, sealed: SealedSecret): Promise<string>;
/** Re-wraps the data key under the current KEK; the secret's ciphertext stays as it is. */
export declare function rewrapSecret(ring: KeyRing, ctx: SecretContext, sealed: SealedSecret): Promise<SealedSecret>;
