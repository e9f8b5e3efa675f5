import type { Address, Hex, PublicClient } from 'viem';
import { chainUnavailable } from '../chain/errors';
import type { Config } from '../config';
import { AppError } from '../errors';
import type { Database } from '../storage/db';
import { issueAccessToken } from './jwt';
import { loadPendingLogin, savePendingLogin } from './login-store';
import { consumeNonce, pruneConsumedNonces, type NoncePurpose } from './nonces';
import { buildLoginMessage, checkSiweMessage, newNonce, type SiweCheckFailure } from './siwe';
import { verifyWalletSignature } from './signature';

export interface AuthDeps {
  config: Config;
  kv: KVNamespace;
  db: Database;
  chain: PublicClient;
  now: () => Date;
  /** Runs work after the response (`waitUntil`). */
  defer: (work: Promise<unknown>) => void;
}

/** Nonce records are pruned once they are older than the longest nonce lifetime, and then some. */
const PRUNE_AFTER_SECONDS = 2 * 3_600;

function requireDeploymentChain(config: Config, chainId: number): void {
  if (chainId !== config.chainId) {
    throw new AppError('validation_failed', `chainId must be ${config.chainId} on this deployment`, {
      details: { issues: [{ path: 'chainId', message: `this deployment serves chain ${config.chainId}` }] },
    });
  }
}

/** Starts a login: builds and remembers the EIP-4361 message the wallet must sign. */
export async function startLogin(deps: AuthDeps, input: { wallet: Address; chainId: number }): Promise<{ nonce: string; message: string }> {
  const { config } = deps;
  requireDeploymentChain(config, input.chainId);
  const now = deps.now();
  const nonce = newNonce();
  const message = buildLoginMessage({
    domain: config.siweDomain,
    uri: config.siweUri,
    address: input.wallet,
    chainId: config.chainId,
    nonce,
    issuedAt: now,
    expirationTime: new Date(now.getTime() + config.nonceTtlSeconds * 1000),
  });
  await savePendingLogin(deps.kv, config.chainId, input.wallet, { message, nonce, issuedAt: now.toISOString() }, config.nonceTtlSeconds);
  return { nonce, message };
}

/**
 * Finishes a login: the pending message is consumed on this first attempt whatever its outcome,
 * then its fields and the signature over it are checked, and an access token is issued.
 */
export async function finishLogin(deps: AuthDeps, input: { wallet: Address; chainId: number; signature: Hex }): Promise<{ token: string }> {
  const { config } = deps;
  requireDeploymentChain(config, input.chainId);
  const pending = await loadPendingLogin(deps.kv, config.chainId, input.wallet);
  if (!pending) throw new AppError('login_not_started', 'No login in progress for this wallet: call /auth/jwt/init first');
  // Consumed for good on this first attempt. The KV entry is left to expire: a replay then finds
  // it and is refused as `nonce_used`, whichever location it reaches.
  await consumeOrReject(deps, 'login', pending.nonce);
  const now = deps.now();
  const check = checkSiweMessage(pending.message, {
    domain: config.siweDomain,
    uri: config.siweUri,
    chainId: config.chainId,
    address: input.wallet,
    nonce: pending.nonce,
    now,
  });
  if (!check.ok) throw messageRejected(check.reason);
  await requireSignature(deps, input.wallet, pending.message, input.signature);
  const { token } = await issueAccessToken({
    secret: config.jwtSecret,
    wallet: input.wallet,
    chainId: config.chainId,
    lifetimeSeconds: config.jwtLifetimeSeconds,
    now,
  });
  if (Math.random() < 0.02) deps.defer(pruneConsumedNonces(deps.db, PRUNE_AFTER_SECONDS).catch(() => undefined));
  return { token };
}

/**
 * Chat pairing: proves that `wallet` signed a fresh EIP-4361 message for this deployment (our
 * domain and URI, our chain, issued within the nonce lifetime, nonce never seen before), without
 * issuing a token.
 */
export async function verifyWallet(
  deps: AuthDeps,
  input: { wallet: Address; chainId: number; message: string; signature: Hex },
): Promise<{ verified: true; walletAddress: Address; chainId: number }> {
  const { config } = deps;
  requireDeploymentChain(config, input.chainId);
  const check = checkSiweMessage(input.message, {
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
  await consumeOrReject(deps, 'verify', nonce);
  await requireSignature(deps, input.wallet, input.message, input.signature);
  return { verified: true, walletAddress: input.wallet, chainId: config.chainId };
}

async function consumeOrReject(deps: AuthDeps, purpose: NoncePurpose, nonce: string): Promise<void> {
  if (!(await consumeNonce(deps.db, purpose, deps.config.chainId, nonce))) {
    throw new AppError('nonce_used', 'This nonce has already been used: start again');
  }
}

async function requireSignature(deps: AuthDeps, wallet: Address, message: string, signature: Hex): Promise<void> {
  let valid: boolean;
  try {
    valid = await verifyWalletSignature({ address: wallet, message, signature, chain: deps.chain });
  } catch (err) {
    throw chainUnavailable(err);
  }
  if (!valid) throw new AppError('signature_invalid', 'The signature does not match the wallet and message');
}

function messageRejected(reason: SiweCheckFailure): AppError {
  switch (reason) {
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
