import { base32 } from '../encoding/base32';
import { sha256Hex } from '../encoding/sha256-hex';

/** Random bytes in a key: 160 bits, as 32 base32 characters. */
const KEY_BYTES = 20;
const KEY_CHARS = 32;

/** An agent key as sent: `agk_` + 32 characters of `a-z2-7` (160 random bits). */
export const AGENT_KEY_PATTERN = /^agk_[a-z2-7]{32}$/;

/** A new agent key: `agk_` + 160 bits from `crypto.getRandomValues`. Shown once, never stored. */
export function newAgentKey(): string {
  return `agk_${base32(crypto.getRandomValues(new Uint8Array(KEY_BYTES)), KEY_CHARS)}`;
}

/**
 * What the database keeps of a key: lower-case hex SHA-256 of its text. A fast hash is right for a
 * 160-bit random secret (nothing to guess; a slow hash would only slow every request).
 */
export function hashAgentKey(key: string): Promise<string> {
  return sha256Hex(key);
}
