/**
 * The CLI reads the sign-in message before its wallet signs it: the message must be for the
 * gateway the CLI talks to (domain and URI), for the wallet and chain it asked for, and fresh.
 * Otherwise a server could hand out a message of another site and collect a signature that logs
 * in there. Parsed and checked by the gateway's own SIWE code (src/auth/siwe.ts), so client and
 * server read the message the same way.
 */
import { parseSiweMessage } from 'viem/siwe';
import type { Address } from 'viem';
import { checkSiweMessage, type SiweCheckFailure } from '../auth/siwe';
import type { LoginAccount } from '../client/client';
import { CliError, EXIT_REFUSED } from './output';

/** A sign-in message older than this is refused (the gateway's messages live 5 minutes by default). */
const MAX_AGE_SECONDS = 600;

const REASON_TEXT: Record<SiweCheckFailure, string> = {
  malformed: 'it is not an EIP-4361 sign-in message',
  wrong_purpose: 'it is not a login message (its statement is not the login statement)',
  wrong_domain: 'it is for another domain',
  wrong_uri: 'it is for another URI',
  wrong_chain: 'it is for another chain',
  wrong_address: 'it is for another wallet',
  wrong_nonce: 'its nonce is not the expected one',
  expired: "it has expired (or was issued too long ago: check this computer's clock)",
  not_yet_valid: "it is not valid yet (check this computer's clock)",
};

/** The URIs a message for `baseUrl` may carry: the base URL or its origin, with or without a slash. */
function acceptedUris(baseUrl: string): Set<string> {
  const origin = new URL(baseUrl).origin;
  return new Set([origin, `${origin}/`, baseUrl, `${baseUrl}/`]);
}

/** Why `message` must not be signed for this login, or null when it may be. */
export function signInProblem(message: string, expected: { baseUrl: string; chainId: number; address: string; now: Date }): string | null {
  let uri: string | undefined;
  try {
    uri = parseSiweMessage(message).uri;
  } catch {
    uri = undefined;
  }
  const uris = acceptedUris(expected.baseUrl);
  const result = checkSiweMessage(message, {
    purpose: 'login',
    domain: new URL(expected.baseUrl).host,
    uri: uri !== undefined && uris.has(uri) ? uri : new URL(expected.baseUrl).origin,
    chainId: expected.chainId,
    address: expected.address as Address,
    now: expected.now,
    maxAgeSeconds: MAX_AGE_SECONDS,
  });
  if (result.ok) return null;
  let shown = '';
  if (result.reason === 'wrong_domain' || result.reason === 'wrong_uri') {
    try {
      const parsed = parseSiweMessage(message);
      shown = ` (${result.reason === 'wrong_domain' ? `domain ${JSON.stringify(parsed.domain?.slice(0, 100))}` : `URI ${JSON.stringify(parsed.uri?.slice(0, 200))}`})`;
    } catch {
      shown = '';
    }
  }
  return `${REASON_TEXT[result.reason]}${shown}`;
}

/**
 * `account` with a `signMessage` that first checks the message against the login the CLI asked
 * for, and refuses (exit code 3) rather than sign a message meant for anything else.
 */
export function checkedSigner(
  account: LoginAccount,
  expected: { baseUrl: string; chainId: number },
  now: () => Date = () => new Date(),
): LoginAccount {
  return {
    address: account.address,
    async signMessage({ message }) {
      const problem = signInProblem(message, { ...expected, address: account.address, now: now() });
      if (problem) {
        throw new CliError(
          `refusing to sign the sign-in message of ${expected.baseUrl}: ${problem}; expected domain ${new URL(expected.baseUrl).host}, chain ${expected.chainId}, wallet ${account.address}. Nothing was signed.`,
          EXIT_REFUSED,
        );
      }
      return account.signMessage({ message });
    },
  };
}
