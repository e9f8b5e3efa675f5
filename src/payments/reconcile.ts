/**
 * The reconciliation of paid replies whose settlement never reported back: a claim stays
 * `running` when the facilitator failed during settlement, and it may or may not have sent the
 * transfer. The chain knows: USDC's EIP-3009 `authorizationState(authorizer, nonce)` says whether
 * the authorization was used, and its `AuthorizationUsed` log names the transaction. Run by the
 * scheduled clean-up, never on requests.
 */
import { type Hex, type PublicClient, parseAbi } from 'viem';
import { type ChainId, USDC } from '../chains';
import type { Database } from '../storage/db';
import { markUnsettled, type PaymentClaim, recordSettlement, staleClaims } from './ledger';

/**
 * A running claim is looked at once it is this old: far longer than any paid reply and its
 * settlement (a reply's own deadline is minutes, the facilitator's settlement seconds), so a claim
 * this old is no longer on its way to `settled` by the paid route itself.
 */
export const RECONCILE_AFTER_MS = 60 * 60 * 1_000;

/** Running claims one run reconciles at most (bounds the RPC calls of one run: three per claim at most). */
export const CLAIMS_PER_RUN = 50;

/**
 * How far back from the chain's head the transaction of a used authorization is searched, in
 * blocks: about 5.5 hours of Polygon's 2-second blocks, which covers a claim an hourly run
 * reconciles soon after the bound above; also the span RPC providers commonly allow one log
 * query. A transfer older than that is settled with its transaction unknown.
 */
export const LOG_WINDOW_BLOCKS = 10_000n;

/** What one reconciliation did: claims marked settled, marked unsettled, and left running for the next run. */
export interface ReconcileReport {
  settled: number;
  unsettled: number;
  left: number;
}

const EIP3009 = parseAbi([
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
  'event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)',
]);

type Outcome = { used: false } | { used: true; transaction: Hex | null; at: Date | undefined };

/**
 * Reconciles up to CLAIMS_PER_RUN claims of `chainId` running for longer than RECONCILE_AFTER_MS,
 * oldest first: a used authorization is settled (with its transaction and block time when its log
 * is found, and the audit entry the paid route writes), an unused one (or one its payer cancelled)
 * is marked unsettled. The first RPC failure ends the run's chain reads: that claim and the rest
 * stay running for the next run. A database failure throws, as the rest of the clean-up does.
 */
export async function reconcileClaims(db: Database, chain: PublicClient, chainId: ChainId, now = Date.now()): Promise<ReconcileReport> {
  const claims = await staleClaims(db, chainId, new Date(now - RECONCILE_AFTER_MS), CLAIMS_PER_RUN);
  const report: ReconcileReport = { settled: 0, unsettled: 0, left: 0 };
  if (claims.length === 0) return report;
  let head: bigint;
  try {
    head = await chain.getBlockNumber();
  } catch {
    return { ...report, left: claims.length };
  }
  const fromBlock = head > LOG_WINDOW_BLOCKS ? head - LOG_WINDOW_BLOCKS : 0n;
  for (const [i, claim] of claims.entries()) {
    let outcome: Outcome;
    try {
      outcome = await readOutcome(chain, USDC[chainId].address, claim, fromBlock);
    } catch {
      report.left += claims.length - i;
      break;
    }
    if (!outcome.used) {
      if (await markUnsettled(db, claim)) report.unsettled += 1;
    } else if (await recordSettlement(db, claim, outcome.transaction, outcome.at)) {
      report.settled += 1;
    }
  }
  return report;
}

/** What the chain says of the claim's authorization; throws when the RPC fails. */
async function readOutcome(chain: PublicClient, usdc: Hex, claim: PaymentClaim, fromBlock: bigint): Promise<Outcome> {
  // The paid route stores what x402 verified; a row of another form names no authorization on chain.
  if (!/^0x[0-9a-f]{40}$/.test(claim.payer) || !/^0x[0-9a-f]{64}$/.test(claim.nonce)) return { used: false };
  const args = { authorizer: claim.payer as Hex, nonce: claim.nonce as Hex };
  const used = await chain.readContract({
    address: usdc,
    abi: EIP3009,
    functionName: 'authorizationState',
    args: [args.authorizer, args.nonce],
  });
  if (!used) return { used: false };
  // authorizationState is also true for an authorization its payer cancelled: nothing moved then.
  const [transfers, cancels] = await Promise.all([
    chain.getLogs({ address: usdc, event: EIP3009[1], args, fromBlock, toBlock: 'latest' }),
    chain.getLogs({ address: usdc, event: EIP3009[2], args, fromBlock, toBlock: 'latest' }),
  ]);
  const log = transfers[0];
  if (!log) return cancels.length > 0 ? { used: false } : { used: true, transaction: null, at: undefined };
  const block = await chain.getBlock({ blockHash: log.blockHash }).catch(() => undefined);
  return { used: true, transaction: log.transactionHash, at: block ? new Date(Number(block.timestamp) * 1_000) : undefined };
}
