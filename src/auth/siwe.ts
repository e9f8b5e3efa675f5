import { createSiweMessage, parseSiweMessage, type SiweMessage } from 'viem/siwe';
import type { Address } from 'viem';

/** What a signed message is for. A message of one purpose is refused where the other is expected. */
export type MessagePurpose = 'login' | 'pairing';

/**
 * The EIP-4361 statement line of each purpose: the wallet shows it to the user, and it is the only
 * part of the text that tells a login from a pairing, so each endpoint checks it exactly.
 */
export const STATEMENTS: Readonly<Record<MessagePurpose, string>> = Object.freeze({
  login: 'Sign in to agent-gateway. This request will not trigger a blockchain transaction or cost any gas fees.',
  pairing:
    'Link this wallet to a chat on agent-gateway. This does not sign you in, will not trigger a blockchain transaction and costs no gas fees.',
});

export interface LoginMessageInput {
  domain: string;
  uri: string;
  address: Address;
  chainId: number;
  nonce: string;
  issuedAt: Date;
  expirationTime: Date;
}

/**
 * Builds the EIP-4361 text the wallet signs, with the statement of its purpose. Domain and URI
 * come from config, never the request.
 */
export function buildSiweMessage(purpose: MessagePurpose, input: LoginMessageInput): string {
  return createSiweMessage({ ...input, version: '1', statement: STATEMENTS[purpose] });
}

/** Builds a login message (the login statement). */
export function buildLoginMessage(input: LoginMessageInput): string {
  return buildSiweMessage('login', input);
}

export type SiweCheckFailure =
  | 'wrong_purpose'
  | 'malformed'
  | 'wrong_domain'
  | 'wrong_uri'
  | 'wrong_chain'
  | 'wrong_address'
  | 'wrong_nonce'
  | 'expired'
  | 'not_yet_valid';

/**
 * Checks a SIWE message against what this deployment expects. viem verifies signatures but not
 * the chain id or URI, so every field that matters is checked here.
 */
export function checkSiweMessage(
  text: string,
  expected: {
    /** The statement must be this purpose's, exactly (a login message is refused as a pairing, and the reverse). */
    purpose: MessagePurpose;
    domain: string;
    uri: string;
    chainId: number;
    address: Address;
    nonce?: string;
    now: Date;
    maxAgeSeconds?: number;
  },
  toleranceSeconds = 30,
): { ok: true; message: Partial<SiweMessage> } | { ok: false; reason: SiweCheckFailure } {
  let message: Partial<SiweMessage>;
  try {
    message = parseSiweMessage(text);
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (!message.domain || !message.address || !message.uri || !message.nonce || message.version !== '1' || !message.issuedAt) {
    return { ok: false, reason: 'malformed' };
  }
  for (const date of [message.issuedAt, message.expirationTime, message.notBefore]) {
    if (date !== undefined && Number.isNaN(date.getTime())) return { ok: false, reason: 'malformed' };
  }
  if (message.statement !== STATEMENTS[expected.purpose]) return { ok: false, reason: 'wrong_purpose' };
  if (message.domain !== expected.domain) return { ok: false, reason: 'wrong_domain' };
  if (message.uri !== expected.uri) return { ok: false, reason: 'wrong_uri' };
  if (message.chainId !== expected.chainId) return { ok: false, reason: 'wrong_chain' };
  if (message.address.toLowerCase() !== expected.address.toLowerCase()) return { ok: false, reason: 'wrong_address' };
  if (expected.nonce !== undefined && message.nonce !== expected.nonce) return { ok: false, reason: 'wrong_nonce' };
  const now = expected.now.getTime();
  const tolerance = toleranceSeconds * 1000;
  if (message.issuedAt.getTime() > now + tolerance) return { ok: false, reason: 'not_yet_valid' };
  if (message.notBefore && message.notBefore.getTime() > now + tolerance) return { ok: false, reason: 'not_yet_valid' };
  if (message.expirationTime && message.expirationTime.getTime() <= now) return { ok: false, reason: 'expired' };
  if (expected.maxAgeSeconds !== undefined && message.issuedAt.getTime() + expected.maxAgeSeconds * 1000 <= now) {
    return { ok: false, reason: 'expired' };
  }
  return { ok: true, message };
}
