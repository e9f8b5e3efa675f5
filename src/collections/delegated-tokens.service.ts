import { type Address, getAddress, isAddressEqual, type PublicClient, zeroHash } from 'viem';
import { AGENT_GATEWAY_RIGHT, DELEGATE_REGISTRY_ADDRESS, DELEGATION_TYPE, delegateRegistryAbi } from '../chain/delegate-registry-abi';
import { erc721ReadAbi } from '../chain/erc721-abi';
import { chainUnavailable, isRevert } from '../chain/errors';
import { type ReadOutcome, readMany } from './chain-reads';
import { ascending, isNoContract } from './owned-tokens.service';

/** The most delegations to the wallet one listing looks at (after keeping this collection's). */
export const DELEGATIONS_MAX = 100;

/** A delegation to the wallet as the registry lists it (the fields the listing reads). */
export interface IncomingDelegation {
  type_: number;
  from: Address;
  rights: `0x${string}`;
  contract_: Address;
  tokenId: bigint;
}

export interface DelegatedTokens {
  /** Agents the wallet may use as a delegate here, by token id ascending, each with its owner (EIP-55). */
  tokens: { tokenId: bigint; owner: Address }[];
  /** More than `max`, or a delegator's tokens that cannot be listed (not Enumerable), or more delegations than looked at. */
  truncated: boolean;
}

/**
 * The delegations that hold now to `wallet` in delegate.xyz v2's registry (`getIncomingDelegations`).
 * A chain without the registry (no code at its address) or a registry that reverts answers none:
 * delegations are an addition to the owner's list, never a reason to refuse it.
 * @throws AppError `dependency_unavailable` when the RPC does not answer.
 */
export async function incomingDelegations(chain: PublicClient, wallet: Address): Promise<readonly IncomingDelegation[]> {
  try {
    return await chain.readContract({
      address: DELEGATE_REGISTRY_ADDRESS,
      abi: delegateRegistryAbi,
      functionName: 'getIncomingDelegations',
      args: [wallet],
    });
  } catch (err) {
    if (isRevert(err) || isNoContract(err)) return [];
    throw chainUnavailable(err);
  }
}

/** Rights zero (a full delegation) or the gateway's own right: the ones the gate accepts. */
function countsHere(d: IncomingDelegation, collection: Address, wallet: Address): boolean {
  if (d.rights !== zeroHash && d.rights.toLowerCase() !== AGENT_GATEWAY_RIGHT.toLowerCase()) return false;
  if (isAddressEqual(d.from, wallet)) return false; // the wallet's own tokens are the owned list
  if (d.type_ === DELEGATION_TYPE.ALL) return true;
  return (d.type_ === DELEGATION_TYPE.CONTRACT || d.type_ === DELEGATION_TYPE.ERC721) && isAddressEqual(d.contract_, collection);
}

/**
 * The agents of `collection` that `wallet` may use as a delegate, from the delegations to it: a
 * token-level delegation names its token, kept while its delegator still owns it (`ownerOf`); a
 * contract- or wallet-wide one stands for the delegator's tokens of the collection (`balanceOf`,
 * then `tokenOfOwnerByIndex` where the collection is Enumerable, at most `max` index reads in all).
 * Two rounds of batched reads (Multicall3 where the chain has it). At most `max` tokens, the lowest ids first.
 * @throws AppError `dependency_unavailable` when the RPC does not answer.
 */
export async function listDelegatedTokens(
  chain: PublicClient,
  multicall: Address | undefined,
  collection: Address,
  wallet: Address,
  incoming: readonly IncomingDelegation[],
  enumerable: boolean,
  max: number,
): Promise<DelegatedTokens> {
  const relevant = incoming.filter((d) => countsHere(d, collection, wallet));
  let truncated = relevant.length > DELEGATIONS_MAX;
  const looked = relevant.slice(0, DELEGATIONS_MAX);
  const named = looked.filter((d) => d.type_ === DELEGATION_TYPE.ERC721);
  const wide = [...new Set(looked.filter((d) => d.type_ !== DELEGATION_TYPE.ERC721).map((d) => getAddress(d.from)))];

  // One batch: the named tokens' owners, then the wide delegators' balances.
  const firstRound = await readMany<Address | bigint>(chain, multicall, [
    ...named.map((d) => ({ address: collection, abi: erc721ReadAbi, functionName: 'ownerOf', args: [d.tokenId] })),
    ...wide.map((from) => ({ address: collection, abi: erc721ReadAbi, functionName: 'balanceOf', args: [from] })),
  ]);
  const ownerOutcomes = firstRound.slice(0, named.length) as ReadOutcome<Address>[];
  const balanceOutcomes = firstRound.slice(named.length) as ReadOutcome<bigint>[];

  const found = new Map<bigint, Address>();
  named.forEach((d, i) => {
    const owner = ownerOutcomes[i];
    if (owner?.ok && isAddressEqual(owner.value, d.from)) found.set(d.tokenId, getAddress(d.from));
  });

  // Index reads share one budget of `max`: the delegators' tokens never cost more than the owned list.
  const indexed: { from: Address; index: bigint }[] = [];
  wide.forEach((from, i) => {
    const balance = balanceOutcomes[i];
    if (!balance?.ok || balance.value === 0n) return;
    if (!enumerable) {
      truncated = true; // the delegator holds some here, but which cannot be listed
      return;
    }
    const room = max - indexed.length;
    if (balance.value > BigInt(room)) truncated = true;
    const count = balance.value < BigInt(room) ? Number(balance.value) : room;
    for (let index = 0; index < count; index++) indexed.push({ from, index: BigInt(index) });
  });
  const tokenIds = await readMany<bigint>(
    chain,
    multicall,
    indexed.map(({ from, index }) => ({
      address: collection,
      abi: erc721ReadAbi,
      functionName: 'tokenOfOwnerByIndex',
      args: [from, index],
    })),
  );
  indexed.forEach(({ from }, i) => {
    const id = tokenIds[i];
    if (id?.ok && !found.has(id.value)) found.set(id.value, from);
  });

  const ids = [...found.keys()].sort(ascending);
  if (ids.length > max) truncated = true;
  return { tokens: ids.slice(0, max).map((tokenId) => ({ tokenId, owner: found.get(tokenId) as Address })), truncated };
}
