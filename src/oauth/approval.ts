/**
 * The approval of an OAuth grant is signed as its own purpose: a SIWE message whose statement
 * names the client, the agent and its door (MCP server or A2A endpoint), whose `resources` list
 * that door's URL, and whose nonce says
 * it was issued for an approval. A login signature cannot approve a grant (its text and its nonce
 * are a login's), and an approval cannot log in (finish only takes a login nonce and text).
 */
import type { Address, Hex } from 'viem';
import { createSiweMessage } from 'viem/siwe';
import type { AuthDeps } from '../auth/auth.service';
import { issuedAt, issueNonce } from '../auth/issued-nonce';
import { consumeNonce } from '../auth/nonces';
import { recoversTo, verifiedOnChain } from '../auth/signature';
import { chainUnavailable } from '../chain/errors';
import { AppError } from '../errors';
import type { AgentSurface } from './resource';

export const APPROVAL_PURPOSE = 'oauth_approval' as const;

/** What the approval is for: the client as the page names it, and the agent by its MCP or A2A URL. */
export interface ApprovalSubject {
  client: string;
  agent: { collection: Address; tokenId: bigint };
  resource: string;
  /** Which of the agent's doors `resource` is. */
  surface: AgentSurface;
  /** A registered client's self-given name, for the audit entry (the statement may leave it out). */
  clientName?: string;
}

/** A client's self-given name goes in the statement only when it is one printable line. */
const PRINTABLE_NAME = /^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}"]{1,100}$/u;

/**
 * The client as the approval names it: a metadata-document client by its document's host (what
 * vouches for it), a registered client by its name, marked unverified, and its id.
 */
export function approvalClientLabel(clientId: string, document: boolean, clientName?: string | null): string {
  if (document) return `the app at ${new URL(clientId).host}`;
  const name = clientName?.trim();
  if (name && PRINTABLE_NAME.test(name)) return `the app "${name}" (unverified name, client id ${clientId})`;
  return `the app with client id ${clientId}`;
}

export function approvalStatement(subject: ApprovalSubject): string {
  const { client, agent } = subject;
  const door = subject.surface === 'a2a' ? 'its A2A endpoint' : 'its MCP server';
  return (
    `Allow ${client} to use agent #${agent.tokenId} of collection ${agent.collection} through ${door}, as this wallet, while it owns the agent. ` +
    'This does not sign you in, will not trigger a blockchain transaction and costs no gas fees.'
  );
}

function approvalMessage(deps: AuthDeps, wallet: Address, nonce: string, at: Date, subject: ApprovalSubject): string {
  const { config } = deps;
  return createSiweMessage({
    domain: config.siweDomain,
    uri: config.siweUri,
    address: wallet,
    chainId: config.chainId,
    nonce,
    issuedAt: at,
    expirationTime: new Date(at.getTime() + config.nonceTtlSeconds * 1000),
    version: '1',
    statement: approvalStatement(subject),
    resources: [subject.resource],
  });
}

function requireDeploymentChain(deps: AuthDeps, chainId: number): void {
  if (chainId !== deps.config.chainId) {
    throw new AppError('validation_failed', `chainId must be ${deps.config.chainId} on this deployment`, {
      details: { issues: [{ path: 'chainId', message: `this deployment serves chain ${deps.config.chainId}` }] },
    });
  }
}

/** The approval message for `wallet` to sign, and its nonce (which tells the approval its time). Nothing is stored. */
export async function startApproval(
  deps: AuthDeps,
  input: { wallet: Address; chainId: number; subject: ApprovalSubject },
): Promise<{ nonce: string; message: string }> {
  requireDeploymentChain(deps, input.chainId);
  const now = deps.now();
  const nonce = await issueNonce(
    deps.config.jwtSecret,
    { purpose: APPROVAL_PURPOSE, chainId: deps.config.chainId, wallet: input.wallet },
    now,
  );
  return { nonce, message: approvalMessage(deps, input.wallet, nonce, now, input.subject) };
}

/**
 * Proves that `wallet` signed the approval of exactly this subject: the message is rebuilt from the
 * nonce (an approval nonce this gateway issued to this wallet, still fresh) and the consent being
 * approved, the signature checked over it (locally, then on chain for a smart wallet), and only
 * then the nonce consumed, once, across every purpose.
 */
export async function proveApproval(
  deps: AuthDeps,
  input: { wallet: Address; chainId: number; nonce: string; signature: Hex; subject: ApprovalSubject },
): Promise<Address> {
  requireDeploymentChain(deps, input.chainId);
  const { config } = deps;
  const scope = { chainId: config.chainId, wallet: input.wallet };
  const at = await issuedAt(config.jwtSecret, { ...scope, purpose: APPROVAL_PURPOSE }, input.nonce);
  if (!at) {
    if (await issuedAt(config.jwtSecret, { ...scope, purpose: 'login' }, input.nonce)) {
      throw new AppError(
        'message_purpose_mismatch',
        'This is a sign-in message: approving an app takes the approval message from POST /oauth/authorize/message',
      );
    }
    throw new AppError('login_message_invalid', 'The nonce is not an approval nonce this gateway issued to this wallet');
  }
  const now = deps.now().getTime();
  if (at.getTime() + config.nonceTtlSeconds * 1000 <= now)
    throw new AppError('login_expired', 'The approval message has expired: start again');
  if (at.getTime() > now + 30_000) throw new AppError('login_message_invalid', 'The approval message is not valid yet');
  const message = approvalMessage(deps, input.wallet, input.nonce, at, input.subject);
  const signed = { address: input.wallet, message, signature: input.signature };
  let ok = await recoversTo(signed);
  if (!ok) {
    await deps.chargeCostlyCheck();
    try {
      ok = await verifiedOnChain(deps.chain, signed);
    } catch (err) {
      throw chainUnavailable(err);
    }
  }
  if (!ok) throw new AppError('signature_invalid', "The signature is not the wallet's over the approval of this app and agent");
  if (!(await consumeNonce(deps.db, config.chainId, input.nonce))) {
    throw new AppError('nonce_used', 'This nonce has already been used: start again');
  }
  return input.wallet;
}
