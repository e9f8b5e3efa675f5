import { type Address, decodeAbiParameters, encodeDeployData, getAddress, type PublicClient } from 'viem';
import { ACCESS_LENS_CREATION_CODE } from './access-lens-code';
import { AGENT_GATEWAY_RIGHT, DELEGATE_REGISTRY_ADDRESS } from './delegate-registry-abi';
import { chainUnavailable } from './errors';

/** How the caller reaches an agent: its owner, the owner's delegate (delegate.xyz v2), or its ERC-4907 user. */
export type AgentRole = 'owner' | 'delegate' | 'renter';

/** What the chain says about one caller and one agent NFT, in one eth_call. */
export interface AgentAccess {
  /** The token's current owner; null when the token does not exist (any revert, no code, zero owner). */
  owner: Address | null;
  /** The caller's role; null when the caller is none of them (or the token does not exist). */
  role: AgentRole | null;
}

/** A rental longer than this past the chain's now is a collection's lie, not a rental. */
export const MAX_RENTAL_SECONDS = 100n * 366n * 24n * 3600n;

const lensConstructor = [
  {
    type: 'constructor',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'collection', type: 'address' },
      { name: 'tokenId', type: 'uint256' },
      { name: 'caller', type: 'address' },
      { name: 'registry', type: 'address' },
      { name: 'right', type: 'bytes32' },
    ],
  },
] as const;

const lensAnswer = [
  { name: 'exists', type: 'bool' },
  { name: 'owner', type: 'address' },
  { name: 'delegate', type: 'bool' },
  { name: 'rentable', type: 'bool' },
  { name: 'user', type: 'address' },
  { name: 'userExpires', type: 'uint256' },
  { name: 'timestamp', type: 'uint256' },
] as const;

/**
 * Reads, in ONE eth_call, the agent NFT's owner and whether `caller` is the owner, a delegate or a
 * renter: the creation code of contracts/AgentAccessLens.sol runs without a `to` (nothing is
 * deployed) and its constructor answers. A delegate holds a delegation from the current owner in
 * delegate.xyz v2's registry for this token (or its collection, or all of the owner's tokens) with
 * full rights or the gateway's own right. A renter is the token's ERC-4907 user while the rental
 * runs by the chain's latest block time. Any fault reading delegation or rental is "neither"; the
 * owner's answer stands alone. Never cached: a transfer, a revoked delegation or an ended rental
 * counts on the next request.
 * @throws AppError `dependency_unavailable` when the RPC cannot be reached, times out or errs.
 */
export async function readAgentAccess(chain: PublicClient, collection: Address, tokenId: bigint, caller: Address): Promise<AgentAccess> {
  const data = encodeDeployData({
    abi: lensConstructor,
    bytecode: ACCESS_LENS_CREATION_CODE,
    args: [collection, tokenId, caller, DELEGATE_REGISTRY_ADDRESS, AGENT_GATEWAY_RIGHT],
  });
  let answer: readonly [boolean, Address, boolean, boolean, Address, bigint, bigint];
  try {
    const result = await chain.call({ data });
    answer = decodeAbiParameters(lensAnswer, result.data ?? '0x');
  } catch (err) {
    throw chainUnavailable(err);
  }
  return accessFrom(answer, caller);
}

/** The role from the lens's answer (exported for unit tests: the rules on expiry and roles). */
export function accessFrom(answer: readonly [boolean, Address, boolean, boolean, Address, bigint, bigint], caller: Address): AgentAccess {
  const [exists, owner, delegate, rentable, user, userExpires, now] = answer;
  if (!exists) return { owner: null, role: null };
  const wallet = getAddress(caller);
  const current = getAddress(owner);
  if (current === wallet) return { owner: current, role: 'owner' };
  if (delegate) return { owner: current, role: 'delegate' };
  const renting = rentable && getAddress(user) === wallet && userExpires > now && userExpires - now <= MAX_RENTAL_SECONDS;
  return { owner: current, role: renting ? 'renter' : null };
}
