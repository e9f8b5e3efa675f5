import { BaseError, ContractFunctionZeroDataError, type Address, type PublicClient } from 'viem';
import { erc721ReadAbi } from '../chain/erc721-abi';
import { chainUnavailable, isRevert } from '../chain/errors';
import { AppError } from '../errors';

/** ERC-165 interface id of ERC-721 Enumerable (totalSupply, tokenByIndex, tokenOfOwnerByIndex). */
export const ERC721_ENUMERABLE_INTERFACE_ID = '0x780e9d63';
/** ERC-165 interface id of ERC-721. */
export const ERC721_INTERFACE_ID = '0x80ac58cd';
/** The most token ids one answer lists; `truncated` says there are more. */
export const OWNED_TOKENS_MAX = 100;
/** Parallel eth_calls at most, on a chain without Multicall3. */
export const OWNED_TOKENS_CONCURRENCY = 8;

export interface OwnedTokens {
  /** ERC-165 says the collection is ERC-721 Enumerable; false: its holders cannot be listed. */
  enumerable: boolean;
  /** The owner's token ids, ascending; empty when not enumerable. */
  tokenIds: bigint[];
  /** The owner holds more than `max`: only the first `max` (by the contract's index) are listed. */
  truncated: boolean;
}

export interface OwnedTokensDeps {
  chain: PublicClient;
}

/**
 * The token ids `owner` holds in `collection`, read from the chain on every call: ERC-165 first
 * (ERC-721, ERC-721 Enumerable) with `balanceOf`, then `tokenOfOwnerByIndex` for each index below
 * min(balance, max), in one Multicall3 call where the chain has Multicall3, else in parallel calls
 * (at most OWNED_TOKENS_CONCURRENCY at once). An index that reverts (a transfer between the two
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
  if (enumerable.status !== 'fulfilled' || !enumerable.value || balance.status !== 'fulfilled') {
    return { enumerable: enumerable.status === 'fulfilled' && enumerable.value, tokenIds: [], truncated: false };
  }
  const count = balance.value < BigInt(max) ? Number(balance.value) : max;
  const indexes = Array.from({ length: count }, (_, i) => BigInt(i));
  const multicall = batched.status === 'fulfilled' ? batched.value : undefined;
  const tokenIds = multicall
    ? await byMulticall(chain, multicall, collection, owner, indexes)
    : await inParallel(chain, collection, owner, indexes);
  tokenIds.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { enumerable: true, tokenIds, truncated: balance.value > BigInt(max) };
}

async function byMulticall(
  chain: PublicClient,
  multicallAddress: Address,
  collection: Address,
  owner: Address,
  indexes: bigint[],
): Promise<bigint[]> {
  let results: Awaited<ReturnType<typeof readIndexes>>;
  try {
    results = await readIndexes(chain, multicallAddress, collection, owner, indexes);
  } catch (err) {
    throw chainUnavailable(err);
  }
  const ids: bigint[] = [];
  for (const result of results) {
    if (result.status === 'success') ids.push(result.result);
    else if (!isRevert(result.error)) throw chainUnavailable(result.error);
  }
  return ids;
}

/** One eth_call to Multicall3's aggregate3 (batchSize 0: never split), each call allowed to fail. */
function readIndexes(chain: PublicClient, multicallAddress: Address, collection: Address, owner: Address, indexes: bigint[]) {
  return chain.multicall({
    multicallAddress,
    batchSize: 0,
    allowFailure: true,
    contracts: indexes.map((index) => ({
      address: collection,
      abi: erc721ReadAbi,
      functionName: 'tokenOfOwnerByIndex' as const,
      args: [owner, index] as const,
    })),
  });
}

async function inParallel(chain: PublicClient, collection: Address, owner: Address, indexes: bigint[]): Promise<bigint[]> {
  const ids: bigint[] = [];
  let next = 0;
  const worker = async () => {
    while (next < indexes.length) {
      const index = indexes[next++] as bigint;
      try {
        ids.push(
          await chain.readContract({ address: collection, abi: erc721ReadAbi, functionName: 'tokenOfOwnerByIndex', args: [owner, index] }),
        );
      } catch (err) {
        if (!isRevert(err)) throw chainUnavailable(err);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(OWNED_TOKENS_CONCURRENCY, indexes.length) }, worker));
  return ids;
}

function isNoContract(err: unknown): boolean {
  return err instanceof BaseError && err.walk((e) => e instanceof ContractFunctionZeroDataError) !== null;
}

const multicall3 = new WeakMap<PublicClient, Promise<Address | undefined>>();

/**
 * Multicall3's address when the chain's definition names one and code is there (asked once per
 * isolate and client; a failed look-up is asked again next time), else undefined.
 */
function hasMulticall3(chain: PublicClient): Promise<Address | undefined> {
  const address = chain.chain?.contracts?.multicall3?.address;
  if (!address) return Promise.resolve(undefined);
  let known = multicall3.get(chain);
  if (!known) {
    known = chain.getCode({ address }).then((code) => (code && code !== '0x' ? address : undefined));
    known.catch(() => multicall3.delete(chain));
    multicall3.set(chain, known);
  }
  return known;
}
