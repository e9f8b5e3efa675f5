import { BaseError, ContractFunctionZeroDataError, type Address, type PublicClient } from 'viem';
import { erc721ReadAbi } from '../chain/erc721-abi';
import { chainUnavailable, isRevert } from '../chain/errors';
import { AppError } from '../errors';
import { hasMulticall3, readMany } from './chain-reads';

/** ERC-165 interface id of ERC-721 Enumerable (totalSupply, tokenByIndex, tokenOfOwnerByIndex). */
export const ERC721_ENUMERABLE_INTERFACE_ID = '0x780e9d63';
/** ERC-165 interface id of ERC-721. */
export const ERC721_INTERFACE_ID = '0x80ac58cd';
/** The most token ids one answer lists; `truncated` says there are more. */
export const OWNED_TOKENS_MAX = 100;

export interface OwnedTokens {
  /** ERC-165 says the collection is ERC-721 Enumerable; false: its holders cannot be listed. */
  enumerable: boolean;
  /** The owner's token ids, ascending; empty when not enumerable. */
  tokenIds: bigint[];
  /** The owner holds more than `max`: only the first `max` (by the contract's index) are listed. */
  truncated: boolean;
  /** Multicall3's address when the chain has it (the delegated list batches through it too). */
  multicall?: Address;
}

export interface OwnedTokensDeps {
  chain: PublicClient;
}

/**
 * The token ids `owner` holds in `collection`, read from the chain on every call: ERC-165 first
 * (ERC-721, ERC-721 Enumerable) with `balanceOf`, then `tokenOfOwnerByIndex` for each index below
 * min(balance, max), in one Multicall3 call where the chain has Multicall3, else in parallel calls
 * (at most READS_CONCURRENCY at once). An index that reverts (a transfer between the two
 * steps) is left out.
 * @throws AppError `collection_not_found` when no contract is at the address or ERC-165 says it is
 *   not ERC-721; `dependency_unavailable` when the RPC does not answer.
 */
export async function listOwnedTokens(
  deps: OwnedTokensDeps,
  collection: Address,
  owner: Address,
  max = OWNED_TOKENS_MAX,
): Promise<OwnedTokens> {
  const { chain } = deps;
  const supports = (interfaceId: `0x${string}`) =>
    chain.readContract({ address: collection, abi: erc721ReadAbi, functionName: 'supportsInterface', args: [interfaceId] });
  const [erc721, enumerable, balance, batched] = await Promise.allSettled([
    supports(ERC721_INTERFACE_ID),
    supports(ERC721_ENUMERABLE_INTERFACE_ID),
    chain.readContract({ address: collection, abi: erc721ReadAbi, functionName: 'balanceOf', args: [owner] }),
    hasMulticall3(chain),
  ]);
  if (erc721.status === 'rejected' && isNoContract(erc721.reason)) {
    throw new AppError('collection_not_found', 'No contract at this collection address on this chain');
  }
  for (const settled of [erc721, enumerable, balance, batched]) {
    if (settled.status === 'rejected' && !isRevert(settled.reason)) throw chainUnavailable(settled.reason);
  }
  // A revert of supportsInterface: no ERC-165, so nothing can be said about enumeration.
  if (erc721.status === 'fulfilled' && !erc721.value) {
    throw new AppError('collection_not_found', 'The contract at this collection address is not an ERC-721 collection (ERC-165)');
  }
  const multicall = batched.status === 'fulfilled' ? batched.value : undefined;
  if (enumerable.status !== 'fulfilled' || !enumerable.value || balance.status !== 'fulfilled') {
    return { enumerable: enumerable.status === 'fulfilled' && enumerable.value, tokenIds: [], truncated: false, multicall };
  }
  const count = balance.value < BigInt(max) ? Number(balance.value) : max;
  const tokenIds = await tokensOfOwner(chain, multicall, collection, owner, count);
  return { enumerable: true, tokenIds, truncated: balance.value > BigInt(max), multicall };
}

/**
 * The first `count` token ids of `owner` by the contract's index (`tokenOfOwnerByIndex`), in one
 * batch, ascending; an index that reverts (a transfer meanwhile) is left out.
 * @throws AppError `dependency_unavailable` when the RPC does not answer.
 */
export async function tokensOfOwner(
  chain: PublicClient,
  multicall: Address | undefined,
  collection: Address,
  owner: Address,
  count: number,
): Promise<bigint[]> {
  const calls = Array.from({ length: count }, (_, i) => ({
    address: collection,
    abi: erc721ReadAbi,
    functionName: 'tokenOfOwnerByIndex' as const,
    args: [owner, BigInt(i)] as const,
  }));
  const ids = (await readMany<bigint>(chain, multicall, calls)).flatMap((r) => (r.ok ? [r.value] : []));
  return ids.sort(ascending);
}

/** For Array.sort of token ids. */
export const ascending = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);

/** The call found no code at its address (viem could not decode an empty answer). */
export function isNoContract(err: unknown): boolean {
  return err instanceof BaseError && err.walk((e) => e instanceof ContractFunctionZeroDataError) !== null;
}
