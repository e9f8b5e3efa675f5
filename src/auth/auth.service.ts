import type { Address, Hex, PublicClient } from 'viem';
import { chainUnavailable } from '../chain/errors';
import type { Config } from '../config';
import { AppError } from '../errors';
import type { Database } from '../storage/db';
import { issueAccessToken } from './jwt';
import { listPendingLogins, loadPendingLogin, savePendingLogin, type PendingLogin } from './login-store';
import { issuedAt, issueNonce } from './issued-nonce';
import { consumeNonce } from './nonces';
import { buildSiweMessage, checkSiweMessage, type MessagePurpose, type SiweCheckFailure } from './siwe';
import { recoversTo, verifiedOnChain } from './signature';

export interface AuthDeps {
  config: Config;
  kv: KVNamespace;
  db: Database;
  chain: PublicClient;
  now: () => Date;
  /**
   * Counts an attempt that costs more than one local signature check (listing a wallet's pending
   * messages, asking the chain) against the wallet's budget; throws `rate_limited` over it. A
   * finish with its nonce whose signature recovers locally never spends it, so nobody can lock an
   * owner out of a login by spending the budget of their wallet.
   */
  chargeCostlyCheck: () => Promise<void>;
}

/**
 * A finish without a nonce tries at most this many of the wallet's pending messages (newest
 * first) by local recovery (about 2 ms of CPU each), and asks the chain (smart wallets) about at
 * most MAX_CHAIN_TRIED. Twice the per-wallet init limit (30 a minute, fixed windows): from one
 * client address, a message is pushed out of reach only by more than 63 later inits for its wallet,
 * which takes three windows. Many addresses together can push it out sooner; a finish that sends
 * its nonce (the client and the CLI do) is never affected.
 */
export const MAX_PENDING_TRIED = 64;
export const MAX_CHAIN_TRIED = 3;

function requireDeploymentChain(config: Config, chainId: number): void {
  if (chainId !== config.chainId) {
    throw new AppError('validation_failed', `chainId must be ${config.chainId} on this deployment`, {
      details: { issues: [{ path: 'chainId', message: `this deployment serves chain ${config.chainId}` }] },
    });
  }
}

/**
 * Builds the EIP-4361 message the wallet must sign, with the statement of its purpose. A login
 * message is remembered in KV under its own key (finish never takes the text from the client); a
 * pairing message is not stored: the chat bridge hands it back to /wallet/verify with the signature.
 */
export async function startLogin(
  deps: AuthDeps,
  input: { wallet: Address; chainId: number; purpose: MessagePurpose },
): Promise<{ nonce: string; message: string }> {
  const { config } = deps;
  requireDeploymentChain(config, input.chainId);
  const now = deps.now();
  const nonce = await issueNonce(config.jwtSecret, { purpose: input.purpose, chainId: config.chainId, wallet: input.wallet }, now);
  const message = messageFor(config, input.purpose, input.wallet, nonce, now);
  if (input.purpose === 'login') {
    await savePendingLogin(deps.kv, config.chainId, input.wallet, { message, nonce, issuedAt: now.toISOString() }, config.nonceTtlSeconds);
  }
  return { nonce, message };
}

/** The message init hands out: a function of the deployment, the wallet, the nonce and the time only. */
function messageFor(config: Config, purpose: MessagePurpose, wallet: Address, nonce: string, at: Date): string {
  return buildSiweMessage(purpose, {
    domain: config.siweDomain,
    uri: config.siweUri,
    address: wallet,
    chainId: config.chainId,
    nonce,
    issuedAt: at,
    expirationTime: new Date(at.getTime() + config.nonceTtlSeconds * 1000),
  });
}

/**
 * The quick way through finish: the nonce proves that init issued it to this wallet
 * at a given time, so the message is rebuilt rather than read back from KV, and an ordinary
 * wallet's signature over it is checked locally. Null when that does not settle it (a nonce of
 * another shape, a lifetime changed since init, an expired message, a smart wallet, a wrong
 * signature): the pending message in KV decides then, as for every other finish.
 */
async function rebuiltSignedLogin(deps: AuthDeps, wallet: Address, nonce: string, signature: Hex, now: Date): Promise<boolean> {
  const { config } = deps;
  const at = await issuedAt(config.jwtSecret, { purpose: 'login', chainId: config.chainId, wallet }, nonce);
  if (!at) return false;
  const message = messageFor(config, 'login', wallet, nonce, at);
  const check = checkSiweMessage(message, {
    purpose: 'login',
    domain: config.siweDomain,
    uri: config.siweUri,
    chainId: config.chainId,
    address: wallet,
    nonce,
    now,
  });
  return check.ok && (await recoversTo({ address: wallet, message, signature }));
}

/**
 * Finishes a login: finds which of the wallet's pending login messages the signature is over
 * (local recovery first, the chain only for smart wallets), and only then consumes that nonce, so
 * a wrong signature consumes nothing. Returns an access token.
 */
export async function finishLogin(
  deps: AuthDeps,
  input: { wallet: Address; chainId: number; signature: Hex; nonce?: string | undefined },
): Promise<{ token: string }> {
  return tokenFor(deps, input.wallet, await signedNonce(deps, input));
}

/**
 * The same proof as finish (a signature over a pending login message, its nonce consumed once),
 * without a token: the OAuth authorize page (src/oauth) logs the wallet in for one grant.
 */
export async function proveLogin(
  deps: AuthDeps,
  input: { wallet: Address; chainId: number; signature: Hex; nonce: string },
): Promise<Address> {
  await consumeOrReject(deps, await signedNonce(deps, input));
  return input.wallet;
}

/** The nonce of the pending login message the signature is over; throws the login's 401s. */
async function signedNonce(
  deps: AuthDeps,
  input: { wallet: Address; chainId: number; signature: Hex; nonce?: string | undefined },
): Promise<string> {
  const { config } = deps;
  requireDeploymentChain(config, input.chainId);
  if (input.nonce !== undefined && (await rebuiltSignedLogin(deps, input.wallet, input.nonce, input.signature, deps.now()))) {
    return input.nonce;
  }
  if (input.nonce === undefined) await deps.chargeCostlyCheck();
  const pending =
    input.nonce === undefined
      ? await listPendingLogins(deps.kv, config.chainId, input.wallet, MAX_PENDING_TRIED)
      : [await loadPendingLogin(deps.kv, config.chainId, input.wallet, input.nonce)].filter((p): p is PendingLogin => p !== null);
  // Without a nonce, every way of not finding a signed pending message is one answer: otherwise
  // anyone could ask whether a wallet has a login pending (issue 18).
  const notSigned = () => new AppError('signature_invalid', "The signature is not the wallet's over a pending login message");
  if (pending.length === 0) {
    if (input.nonce === undefined) throw notSigned();
    throw new AppError('login_not_started', 'No login in progress for this wallet: call /auth/jwt/init first');
  }
  const now = deps.now();
  const failures: SiweCheckFailure[] = [];
  const live = pending.filter((login) => {
    const check = checkSiweMessage(login.message, {
      purpose: 'login',
      domain: config.siweDomain,
      uri: config.siweUri,
      chainId: config.chainId,
      address: input.wallet,
      nonce: login.nonce,
      now,
    });
    if (!check.ok) failures.push(check.reason);
    return check.ok;
  });
  if (live.length === 0) throw input.nonce === undefined ? notSigned() : messageRejected(failures[0] ?? 'malformed');
  const signed = await findSignedLogin(deps, input.wallet, live, input.signature);
  if (!signed) throw notSigned();
  return signed.nonce;
}

/** Consumes the nonce (once, in the database) while the token is signed; the token leaves only if the nonce was fresh. */
async function tokenFor(deps: AuthDeps, wallet: Address, nonce: string): Promise<{ token: string }> {
  const { config } = deps;
  const [, issued] = await Promise.all([
    consumeOrReject(deps, nonce),
    issueAccessToken({
      secret: config.jwtSecret,
      wallet,
      chainId: config.chainId,
      lifetimeSeconds: config.jwtLifetimeSeconds,
      now: deps.now(),
    }),
  ]);
  return { token: issued.token };
}

async function findSignedLogin(deps: AuthDeps, wallet: Address, logins: PendingLogin[], signature: Hex): Promise<PendingLogin | null> {
  for (const login of logins) {
    if (await recoversTo({ address: wallet, message: login.message, signature })) return login;
  }
  await deps.chargeCostlyCheck();
  for (const login of logins.slice(0, MAX_CHAIN_TRIED)) {
    if (await askChain(deps.chain, wallet, login.message, signature)) return login;
  }
  return null;
}

/**
 * Chat pairing: proves that `wallet` signed a fresh pairing message for this deployment (the
 * pairing statement, our domain and URI, our chain, issued within the nonce lifetime, nonce never
 * used for anything), without issuing a token. The signature is checked before the nonce is consumed.
 */
export async function verifyWallet(
  deps: AuthDeps,
  input: { wallet: Address; chainId: number; message: string; signature: Hex },
): Promise<{ verified: true; walletAddress: Address; chainId: number }> {
  const { config } = deps;
  requireDeploymentChain(config, input.chainId);
  const check = checkSiweMessage(input.message, {
    purpose: 'pairing',
    domain: config.siweDomain,
    uri: config.siweUri,
    chainId: config.chainId,
    address: input.wallet,
    now: deps.now(),
    maxAgeSeconds: config.nonceTtlSeconds,
  });
  if (!check.ok) throw messageRejected(check.reason);
  const nonce = check.message.nonce ?? '';
  if (nonce.length < 16) {
    throw new AppError('login_message_invalid', 'The message nonce must have at least 16 alphanumeric characters');
  }
  let signed = await recoversTo({ address: input.wallet, message: input.message, signature: input.signature });
  if (!signed) {
    await deps.chargeCostlyCheck();
    signed = await askChain(deps.chain, input.wallet, input.message, input.signature);
  }
  if (!signed) throw new AppError('signature_invalid', 'The signature does not match the wallet and message');
  await consumeOrReject(deps, nonce);
  return { verified: true, walletAddress: input.wallet, chainId: config.chainId };
}

async function consumeOrReject(deps: AuthDeps, nonce: string): Promise<void> {
  if (!(await consumeNonce(deps.db, deps.config.chainId, nonce))) {
    throw new AppError('nonce_used', 'This nonce has already been used: start again');
  }
}

/** A smart-wallet check; a chain that cannot be asked is 503, never "invalid". */
async function askChain(chain: PublicClient, wallet: Address, message: string, signature: Hex): Promise<boolean> {
  try {
    return await verifiedOnChain(chain, { address: wallet, message, signature });
  } catch (err) {
    throw chainUnavailable(err);
  }
}

function messageRejected(reason: SiweCheckFailure): AppError {
  switch (reason) {
    case 'wrong_purpose':
      return new AppError(
        'message_purpose_mismatch',
        'This message was issued for another purpose (login or chat pairing) and is not accepted here',
      );
    case 'expired':
      return new AppError('login_expired', 'The sign-in message has expired: start again');
    case 'malformed':
    case 'wrong_domain':
    case 'wrong_uri':
    case 'wrong_chain':
    case 'wrong_address':
    case 'wrong_nonce':
    case 'not_yet_valid':
      return new AppError('login_message_invalid', `The sign-in message is not valid here (${reason.replace(/_/g, ' ')})`);
    default: {
      const unhandled: never = reason;
      return new AppError('login_message_invalid', String(unhandled));
    }
  }
}
