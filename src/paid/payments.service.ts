/**
 * The gateway's record of paid replies (gateway.paid_calls): an authorization is claimed before
 * its reply runs, so one payment never buys two replies; it is marked settled with its transaction
 * (and the audit trail told) once the transfer is on chain, or released when nothing was charged.
 * Knows nothing of HTTP.
 */
import { and, eq, sql } from 'drizzle-orm';
import { auditRow } from '../audit/entry';
import type { AgentIdentity } from '../identity/identity';
import { agentRef, agentRefText } from '../storage/agent-rows';
import { databaseError, type Database } from '../storage/db';
import { auditLog, llmSettings, paidCalls } from '../storage/schema';
import { ofAgent } from '../storage/agent-rows';
import { unitsToUsd } from '../settings/pricing';

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

/** The agent's price: USDC units of one paid reply and whether it may use memory tools; null: no paid replies. */
export async function readPrice(db: Database, agent: AgentIdentity): Promise<{ units: number; memoryTools: boolean } | null> {
  try {
    const [row] = await db.orm
      .select({ units: llmSettings.priceAskUnits, memoryTools: llmSettings.priceMemoryTools })
      .from(llmSettings)
      .where(ofAgent(llmSettings, agentRef(agent)))
      .limit(1);
    return row && row.units !== null ? { units: row.units, memoryTools: row.memoryTools } : null;
  } catch (err) {
    throw databaseError(err);
  }
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

/** The transfer is on chain: the claim is marked settled and the audit trail names the transaction, in one transaction. */
export async function recordSettlement(db: Database, claim: PaymentClaim, transaction: string): Promise<void> {
  try {
    await db.orm.transaction(async (tx) => {
      await tx.update(paidCalls).set({ state: 'settled', transaction, settledAt: sql`now()` }).where(claimed(claim));
      await tx.insert(auditLog).values(
        auditRow(claim.agent, {
          actor: { wallet: claim.payer, via: 'payer' },
          action: 'payment.settled',
          target: { transaction, amountUsd: unitsToUsd(claim.amountUnits), payTo: claim.payTo },
        }),
      );
    });
  } catch (err) {
    throw databaseError(err);
  }
}
