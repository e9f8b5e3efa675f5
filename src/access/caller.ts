import { type Address, getAddress, type PublicClient, zeroAddress } from 'viem';
import { type AgentAccess, type AgentRole, readAgentAccess } from '../chain/agent-access';
import { AppError } from '../errors';
import type { AgentIdentity } from '../identity/identity';
import type { VerifiedKey } from '../keys/verify';
import { choiceFor, readAccessChoice, type StoredAccessChoice } from '../settings/access.service';
import type { Database } from '../storage/db';
import { type AccessLevel, grantedLevel, levelCovers, notOwner } from './roles';

/** Wallets recently let in as a delegate or a renter, per agent (a hint only, never a verdict; bounded per isolate). */
const recentGuests = new Set<string>();
const RECENT_GUESTS = 1_000;

const hintKey = (agent: AgentIdentity, wallet: Address) =>
  `${agent.chainId}:${agent.collection.toLowerCase()}:${agent.tokenId}:${wallet.toLowerCase()}`;

function rememberGuest(key: string, guest: boolean): void {
  if (!guest) {
    recentGuests.delete(key);
    return;
  }
  if (recentGuests.has(key)) return;
  if (recentGuests.size >= RECENT_GUESTS) recentGuests.delete(recentGuests.values().next().value ?? '');
  recentGuests.add(key);
}

/** Who passed the gate: the caller's wallet, its role, and the agent's on-chain owner. */
export interface CallerVerdict {
  wallet: Address;
  role: AgentRole;
  owner: Address;
  /** The owner's leave for a delegate or a renter (undefined for the owner). */
  level?: AccessLevel;
}

export interface CheckCallerInput {
  chain: PublicClient;
  db: Database;
  identity: AgentIdentity;
  /** The bearer token's wallet; undefined for an agent key (its maker is known once `key` resolves). */
  wallet: Address | undefined;
  key: Promise<VerifiedKey> | undefined;
  /** The level a delegate or a renter needs for this route; undefined: the owner's alone. */
  needed: 'use' | 'admin' | undefined;
}

/**
 * The gate's third check. The chain is asked once (src/chain/agent-access.ts) for the owner and the
 * caller's delegation and rental. A caller who is not the owner then needs the owner's leave for
 * this route: its level in ROLE_ROUTE_ACCESS and the owner's `access` choice (one database read,
 * for such callers only). An agent key's maker is known only after the key's own query: the chain
 * is asked beside it for the owner, and a second time only for a key a delegate made.
 * @throws AppError 404 `agent_not_found`, 403 `not_owner`, 503 `dependency_unavailable`; a key's own 401/403 first.
 */
export async function checkCaller(input: CheckCallerInput): Promise<CallerVerdict> {
  const { chain, identity } = input;
  const read = (caller: Address) => readAgentAccess(chain, identity.collection, identity.tokenId, caller);
  let access: AgentAccess;
  let wallet: Address;
  let prefetched: Promise<StoredAccessChoice> | undefined;
  if (input.key) {
    const first = read(zeroAddress);
    first.catch(() => undefined); // awaited below, after the key's own verdict
    const key = await input.key;
    wallet = key.wallet;
    access = await first;
    if (access.owner !== null && getAddress(access.owner) !== wallet) {
      // Only a key a delegate made serves a wallet that is not the owner, while it still is a delegate
      // of the owner it was made for: after a sale it serves no one, even if its maker is the new owner's delegate.
      const forThisOwner = key.createdVia === 'delegate' && key.actingFor === access.owner.toLowerCase();
      access = forThisOwner ? await read(wallet) : { owner: access.owner, role: null };
      if (access.role !== 'delegate') access = { owner: access.owner, role: null };
    } else if (access.owner !== null) {
      access = { owner: access.owner, role: 'owner' };
    }
  } else {
    if (input.wallet === undefined) throw new Error('checkCaller: neither a wallet nor an agent key');
    wallet = input.wallet;
    // A wallet that came in as a delegate or a renter last time has the owner's choice read beside
    // the chain (fresh, never the earlier answer), so its reads cost max(RPC, DB) too; the owner's
    // requests never read it.
    const hint = hintKey(identity, wallet);
    if (input.needed !== undefined && recentGuests.has(hint)) {
      prefetched = readAccessChoice(input.db, identity);
      prefetched.catch(() => undefined); // used below only if the chain says delegate or renter
    }
    access = await read(wallet);
    rememberGuest(hint, access.role === 'delegate' || access.role === 'renter');
  }
  if (access.owner === null) throw new AppError('agent_not_found', 'Agent not found');
  if (access.role === null) throw notOwner();
  if (access.role !== 'owner') {
    if (input.needed === undefined) throw notOwner();
    const choice = choiceFor(await (prefetched ?? readAccessChoice(input.db, identity)), access.owner);
    const level = grantedLevel(access.role, choice);
    if (!levelCovers(level, input.needed)) {
      throw new AppError('not_owner', `The agent's owner does not let ${access.role}s do this`);
    }
    return { wallet, role: access.role, owner: access.owner, level };
  }
  return { wallet, role: access.role, owner: access.owner };
}
