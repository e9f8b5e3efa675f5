import {
  BaseError,
  ContractFunctionRevertedError,
  ContractFunctionZeroDataError,
  zeroAddress,
  type Address,
  type PublicClient,
} from 'viem';
import { erc721ReadAbi } from '../chain/erc721-abi';
import { chainUnavailable } from '../chain/errors';

/**
 * The current on-chain owner of an agent NFT, read by eth_call on every request (never cached:
 * a transfer must lock the old owner out at once). Null when the token does not exist (any
 * revert, or a collection address without code).
 * @throws AppError `dependency_unavailable` when the RPC cannot be reached or times out.
 */
export async function ownerOf(chain: PublicClient, collection: Address, tokenId: bigint): Promise<Address | null> {
  try {
    const owner = await chain.readContract({ address: collection, abi: erc721ReadAbi, functionName: 'ownerOf', args: [tokenId] });
    return owner === zeroAddress ? null : owner;
  } catch (err) {
    const missing =
      err instanceof BaseError && err.walk((e) => e instanceof ContractFunctionRevertedError || e instanceof ContractFunctionZeroDataError);
    if (missing) return null;
    throw chainUnavailable(err);
  }
}
