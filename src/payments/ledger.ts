/**
 * The gateway's record of paid replies (gateway.paid_calls): an authorization is claimed before
 * its reply runs, so one payment never buys two replies; it is marked settled with its transaction
 * (and the audit trail told) once the transfer is on chain, released when nothing was charged, or
 * marked unsettled when the reconciliation found it never used. Knows nothing of HTTP or x402:
 * the paid route and the scheduled reconciliation both write through it.
 */
import { and, eq, lt, sql } from 'drizzle-orm';
import { auditRow } from '../audit/entry';
import { unitsToUsd } from '../encoding/usd-units';
import type { AgentIdentity } from '../identity/identity';
import { agentOfRefText, agentRef, agentRefText } from '../storage/agent-rows';
import { databaseError, type Database } from '../storage/db';
import { auditLog, paidCalls } from '../storage/schema';

/** One payment authorization as the paid route claims it. */
export interface PaymentClaim {
  chainId: number;
  /** Lower-case payer (the authorization's `from`). */
  payer: string;
  /** The authorization's nonce, lower-case hex. */
  nonce: string;
  agent: AgentIdentity;
  /** Lower-case owner paid. */
  payTo: string;
  amountUnits: number;
}

/**
 * Claims the authorization: true when this request may run its reply, false when the same
 * authorization is running or was settled already (a replay).
 */
export async function claimPayment(db: Database, claim: PaymentClaim): Promise<boolean> {
  try {
    const rows = await db.orm
      .insert(paidCalls)
      .values({
        chainId: claim.chainId,
        payer: claim.payer,
        nonce: claim.nonce,
        agentRef: agentRefText(agentRef(claim.agent)),
        payTo: claim.payTo,
        amountUnits: claim.amountUnits,
        state: 'running',
      })
      .onConflictDoNothing()
      .returning({ nonce: paidCalls.nonce });
    return rows.length === 1;
  } catch (err) {
    throw databaseError(err);
  }
}

const claimed = (claim: PaymentClaim) =>
  and(
    eq(paidCalls.chainId, claim.chainId),
    eq(paidCalls.payer, claim.payer),
    eq(paidCalls.nonce, claim.nonce),
    eq(paidCalls.state, 'running'),
  );

/** Nothing was charged (the reply failed, or the payment could not be settled): the authorization may be used again. */
export async function releasePayment(db: Database, claim: PaymentClaim): Promise<void> {
  try {
    await db.orm.delete(paidCalls).where(claimed(claim));
  } catch (err) {
    throw databaseError(err);
  }
}

/**
 * The transfer is on chain: the claim (while still running) is marked settled and the audit trail
 * names the transaction, in one transaction. `transaction` is null when the transfer is known to
 * have landed but not in which transaction (the reconciliation did not find it); `settledAt` is
 * the time of its block when known, else now. True when this call settled the claim.
 */
export async function recordSettlement(db: Database, claim: PaymentClaim, transaction: string | null, settledAt?: Date): Promise<boolean> {
  try {
    return await db.orm.transaction(async (tx) => {
      const rows = await tx
        .update(paidCalls)
        .set({ state: 'settled', transaction, settledAt: settledAt ?? sql`now()` })
        .where(claimed(claim))
        .returning({ nonce: paidCalls.nonce });
      if (rows.length === 0) return false; // settled or marked by another run meanwhile
      await tx.insert(auditLog).values(
        auditRow(claim.agent, {
          actor: { wallet: claim.payer, via: 'payer' },
          action: 'payment.settled',
          target: { ...(transaction === null ? {} : { transaction }), amountUsd: unitsToUsd(claim.amountUnits), payTo: claim.payTo },
        }),
      );
      return true;
    });
  } catch (err) {
    throw databaseError(err);
  }
}

/**
 * The authorization was never used on chain: the reply was given and nothing was paid. The claim
 * (while still running) stays as `unsettled`, so the authorization still buys no other reply.
 * True when this call marked it.
 */
export async function markUnsettled(db: Database, claim: PaymentClaim): Promise<boolean> {
  try {
    const rows = await db.orm.update(paidCalls).set({ state: 'unsettled' }).where(claimed(claim)).returning({ nonce: paidCalls.nonce });
    return rows.length === 1;
  } catch (err) {
    throw databaseError(err);
  }
}

/** Claims of `chainId` still running that were made before `claimedBefore`, oldest first, at most `limit`. */
export async function staleClaims(db: Database, chainId: number, claimedBefore: Date, limit: number): Promise<PaymentClaim[]> {
  try {
    const rows = await db.orm
      .select()
      .from(paidCalls)
      .where(and(eq(paidCalls.chainId, chainId), eq(paidCalls.state, 'running'), lt(paidCalls.claimedAt, claimedBefore)))
      .orderBy(paidCalls.claimedAt)
      .limit(limit);
    return rows.map((r) => ({
      chainId: r.chainId,
      payer: r.payer,
      nonce: r.nonce,
      agent: agentOfRefText(r.agentRef),
      payTo: r.payTo,
      amountUnits: r.amountUnits,
    }));
  } catch (err) {
    throw databaseError(err);
  }
}
