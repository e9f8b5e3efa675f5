import type { RouteHandler } from '@hono/zod-openapi';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, decodePaymentSignatureHeader } from '@x402/core/http';
import type { Context } from 'hono';
import { getAddress } from 'viem';
import { collectionKind } from '../agents/registry';
import { ownerOf } from '../agents/ownership';
import { chainClient } from '../chain/client';
import { type ChainId, isChainId } from '../chains';
import { AppError, errorBody, renderError } from '../errors';
import { abandoned, outliving } from '../http/outliving';
import { limitRequest } from '../http/rate-limit';
import type { AgentIdentity } from '../identity/identity';
import { RECONCILE_AFTER_MS } from '../payments/reconcile';
import { claimPayment, type PaymentClaim, recordSettlement, releasePayment } from '../payments/ledger';
import { readPrice } from '../payments/price';
import { prepareConversationReply } from '../replies/conversation';
import { replyDeps } from '../replies/request-deps';
import type { ReplyAnswer } from '../replies/reply-types';
import { agentRef, agentRefText } from '../storage/agent-rows';
import { MEMORY_READ, MEMORY_SEARCH } from '../tools/memory';
import type { ToolRight } from '../tools/rights';
import type { AppBindings } from '../types';
import { payerCredential } from '../usage/record.service';
import type * as routes from './paid.routes';
import { facilitatorUnavailable, paymentFor, resourceServer } from './x402';

const quiet = { delta: () => undefined, toolCall: () => undefined, toolResult: () => undefined };

/** The agent of the path, registered and minted, with its price and current owner (each read at once, side by side). */
async function paidAgent(c: Context<AppBindings>, identity: AgentIdentity) {
  const { config, db } = c.var;
  const [kind, price, owner] = await Promise.all([
    collectionKind(db, config.chainId, identity.collection),
    readPrice(db, identity),
    ownerOf(chainClient(config), identity.collection, identity.tokenId),
  ]);
  if (kind === null || owner === null) throw new AppError('agent_not_found', 'Agent not found');
  if (price === null) throw new AppError('pricing_not_set', "The agent's owner sets no price: it takes no paid replies");
  return { kind, price, owner: getAddress(owner) };
}

/**
 * The reply a verified payment buys, run inside x402's middleware: the authorization is claimed
 * (a replay is refused before the model), the reply runs, and any failure answers its error with
 * the claim released (the middleware then settles nothing).
 */
async function paidReply(
  c: Context<AppBindings>,
  agent: Parameters<typeof prepareConversationReply>[1],
  claimOf: (payer: string, nonce: string) => PaymentClaim,
  message: string,
  memoryTools: boolean,
  settled: { claim?: PaymentClaim },
): Promise<Response> {
  let claim: PaymentClaim;
  try {
    const authorization = readAuthorization(c.req.header('payment-signature'));
    validityWindow(authorization.validBefore, Date.now() / 1000);
    claim = claimOf(authorization.from, authorization.nonce);
    // Counted once the payment is verified: unpaid requests spend only their client address's budget,
    // so a stranger cannot use up an agent's paid budget without paying.
    await limitRequest(c, 'AGENT_RATE_LIMITER', `payer:${claim.chainId}:${claim.payer}`);
    await limitRequest(c, 'AGENT_RATE_LIMITER', `paid:${agentRefText(agentRef(claim.agent))}`);
    if (!(await claimPayment(c.var.db, claim))) {
      throw new AppError('payment_replayed', 'This payment authorization was used already: sign a new one');
    }
  } catch (err) {
    return renderError(c, err);
  }
  settled.claim = claim;
  const rights = new Set<ToolRight>(memoryTools ? ['memory:read'] : []);
  const gone = c.req.raw.signal;
  try {
    const prepared = await outliving(
      c,
      prepareConversationReply(replyDeps(c), agent, {
        contextKey: `paid/${claim.payer}`,
        message,
        role: 'user',
        variables: {},
        tools: memoryTools,
        memoryTools,
        rights: () => rights,
        allowedTools: () => (memoryTools ? [MEMORY_SEARCH, MEMORY_READ] : []),
        actor: () => ({ wallet: claim.payer, via: 'payer' }),
        caller: () => ({ credential: payerCredential(claim.payer), tokensPerDay: null }),
      }),
    );
    const answer: ReplyAnswer = 'remembered' in prepared ? prepared.remembered : await outliving(c, prepared.prepared.run(quiet, gone));
    return c.json(answer, 200);
  } catch (err) {
    settled.claim = undefined;
    await releasePayment(c.var.db, claim).catch(() => undefined);
    return gone.aborted ? abandoned(c) : renderError(c, err);
  }
}

/**
 * How long, seconds, a verified authorization must stay valid when its reply starts: a reply and its
 * settlement fit in it (x402 clients sign for the terms' PAYMENT_TIMEOUT_SECONDS), so the owner's model
 * is not spent on a payment that would expire before it is settled.
 */
export const MIN_VALID_SECONDS = 120;

/**
 * How long, seconds, it may stay valid at most: half the age at which a claim left running is
 * reconciled with the chain, so an authorization has expired by then and `unsettled` is final.
 */
export const MAX_VALID_SECONDS = RECONCILE_AFTER_MS / 1_000 / 2;

/**
 * Refuses an authorization valid for less than MIN_VALID_SECONDS or more than MAX_VALID_SECONDS
 * from `now` (unix seconds): 402 `payment_invalid`, before the claim (nothing spent: sign again).
 */
function validityWindow(validBefore: number, now: number): void {
  const left = validBefore - now;
  if (left >= MIN_VALID_SECONDS && left <= MAX_VALID_SECONDS) return;
  const [reason, rule] =
    left < MIN_VALID_SECONDS
      ? ['authorization_expires_too_soon', `at least ${MIN_VALID_SECONDS} s more, for the reply and its settlement`]
      : ['authorization_valid_too_long', `at most ${MAX_VALID_SECONDS} s more`];
  throw new AppError('payment_invalid', `The payment was refused: its authorization (validBefore) must stay valid for ${rule}`, {
    details: { reason },
  });
}

/** The payer, the nonce and the end of validity (unix seconds) of the verified payment (its `exact` EVM authorization). */
function readAuthorization(header: string | undefined): { from: string; nonce: string; validBefore: number } {
  const payload = decodePaymentSignatureHeader(header ?? '');
  const authorization = (payload.payload as { authorization?: { from?: unknown; nonce?: unknown; validBefore?: unknown } }).authorization;
  const validBefore = Number(authorization?.validBefore);
  if (typeof authorization?.from !== 'string' || typeof authorization.nonce !== 'string' || !Number.isFinite(validBefore)) {
    throw new AppError('payment_invalid', 'The payment is not an exact EVM authorization');
  }
  return { from: authorization.from.toLowerCase(), nonce: authorization.nonce.toLowerCase(), validBefore };
}

/**
 * x402's reason as the caller may see it: its reason codes (`invalid_exact_evm_payload_signature`…)
 * pass; any other text (an error message from the facilitator, which may name its RPC) does not.
 */
function safeReason(reason: string | undefined): string | undefined {
  if (!reason) return undefined;
  return /^[A-Za-z0-9_.:-]{1,80}$/.test(reason) ? reason : 'facilitator_error';
}

/**
 * x402's own answers in the gateway's error shape (its 402s carry an empty body, or a paywall page
 * for a browser): no payment → `payment_required`; a refused payment, or its 412 (a Permit2 payment
 * this route does not take) → 402 `payment_invalid` with x402's reason code from PAYMENT-REQUIRED;
 * a settlement that threw after the reply ran → `payment_settlement_failed`; its facilitator
 * failures (502) → 503 `facilitator_unavailable`; its own crash (500) → `internal_error`. Answers
 * already in the gateway's shape pass unchanged.
 */
async function inHouseShape(c: Context<AppBindings>, res: Response, replied: boolean): Promise<Response> {
  if (res.status === 502) return renderError(c, facilitatorUnavailable(await res.text().catch(() => '')));
  if (![402, 412, 500].includes(res.status)) return res;
  const html = res.headers.get('content-type')?.includes('text/html') === true;
  if (!html) {
    const body = (await res
      .clone()
      .json()
      .catch(() => ({}))) as { error?: unknown };
    if (typeof body.error === 'object' && body.error !== null) return res;
  }
  const shaped = renderError(c, x402Problem(res, html, replied));
  for (const name of ['payment-required', 'payment-response']) {
    const value = res.headers.get(name);
    if (value) shaped.headers.set(name, value);
  }
  return shaped;
}

/** What one of x402's own answers (see inHouseShape) means, as the gateway's error. */
function x402Problem(res: Response, html: boolean, replied: boolean): Error {
  if (res.status === 500) return new Error("x402's payment middleware failed");
  if (html) return unpaid();
  let reason: string | undefined;
  try {
    reason = safeReason(decodePaymentRequiredHeader(res.headers.get('payment-required') ?? '').error);
  } catch {
    reason = undefined;
  }
  if (replied) return settlementFailed(reason);
  return new AppError('payment_invalid', `The payment was refused${reason ? `: ${reason}` : ''}`, {
    details: reason ? { reason } : undefined,
  });
}

const settlementFailed = (reason: string | undefined) =>
  new AppError('payment_settlement_failed', `The payment could not be settled${reason ? `: ${reason}` : ''}; nothing was charged`, {
    details: reason ? { reason } : undefined,
  });

const unpaid = () =>
  new AppError('payment_required', 'This reply is paid: sign the payment of PAYMENT-REQUIRED and send it as PAYMENT-SIGNATURE');

export const paidAskHandler: RouteHandler<typeof routes.paidAsk, AppBindings> = async (c) => {
  const { config } = c.var;
  const { agentCollectionAddress: collection, agentTokenId: tokenId } = c.req.valid('param');
  const { message } = c.req.valid('json');
  const chainId = config.chainId;
  if (!isChainId(chainId)) throw new Error(`paid replies: chain ${chainId} is not a deployment`);
  const identity: AgentIdentity = { chainId, collection, tokenId };
  const facilitatorUrl = config.x402FacilitatorUrl;
  if (!facilitatorUrl) throw new AppError('payments_unavailable', 'This deployment takes no payments (no X402_FACILITATOR_URL)');
  const { kind, price, owner } = await paidAgent(c, identity);
  // The reply runs for the owner of now, on their model key; who asked is the payer.
  const agent = { ...identity, kind, owner, actor: undefined };
  c.set('agent', agent);
  c.set('ownerCheck', Promise.resolve());
  const server = await resourceServer(facilitatorUrl, chainId);
  const payTo = owner.toLowerCase();
  const settled: { claim?: PaymentClaim } = {};
  const payment = paymentFor(server, {
    chainId: chainId as ChainId,
    payTo: owner,
    units: price.units,
    resource: new URL(c.req.url).toString(),
    description: `A reply of agent ${tokenId} of ${collection}`,
    unpaidBody: () => errorBody(c.var.requestId, unpaid()),
    settleFailedBody: (raw) => errorBody(c.var.requestId, settlementFailed(safeReason(raw))),
  });
  const claimOf = (payer: string, nonce: string): PaymentClaim => ({
    chainId,
    payer,
    nonce,
    agent: identity,
    payTo,
    amountUnits: price.units,
  });
  const returned = await payment(c, async () => {
    c.res = await paidReply(c, agent, claimOf, message, price.memoryTools, settled);
  });
  const res = await inHouseShape(c, returned instanceof Response ? returned : c.res, settled.claim !== undefined);
  const claim = settled.claim;
  if (claim) {
    const header = res.headers.get('payment-response');
    const settlement = header && res.status === 200 ? decodePaymentResponseHeader(header) : undefined;
    if (settlement?.success && settlement.transaction) {
      // The payer was charged: the reply goes out even if the record cannot be written now.
      await recordSettlement(c.var.db, claim, settlement.transaction).catch((err: unknown) => {
        console.error(
          JSON.stringify({
            level: 'error',
            requestId: c.var.requestId,
            event: 'payment_record_failed',
            transaction: settlement.transaction,
            reason: String(err).slice(0, 200),
          }),
        );
      });
    }
    // A settlement that failed after the reply ran (the USDC moved away, the authorization expired or
    // was cancelled, the facilitator failed) keeps the claim: that authorization never buys another reply.
  }
  return res as unknown as ReturnType<typeof c.json<ReplyAnswer, 200>>;
};
