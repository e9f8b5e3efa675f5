import type { Abi, Address, ContractFunctionParameters, PublicClient } from 'viem';
import { chainUnavailable, isRevert } from '../chain/errors';

/** Parallel eth_calls at most, on a chain without Multicall3. */
export const READS_CONCURRENCY = 8;

/** One read's outcome: its value, or `reverted` (the chain's definite "no", e.g. a burnt token). */
export type ReadOutcome<T> = { ok: true; value: T } | { ok: false };

/**
 * Many view calls at once: in one Multicall3 call (aggregate3, never split, each call allowed to
 * fail) when `multicall` names it, else in parallel calls (at most READS_CONCURRENCY at once).
 * A call that reverts is `{ ok: false }`; the outcomes keep the calls' order.
 * @throws AppError `dependency_unavailable` when the RPC does not answer.
 */
export async function readMany<T>(
  chain: PublicClient,
  multicall: Address | undefined,
  calls: ContractFunctionParameters<Abi>[],
): Promise<ReadOutcome<T>[]> {
  if (calls.length === 0) return [];
  if (multicall) {
    let results: { status: 'success' | 'failure'; result?: unknown; error?: unknown }[];
    try {
      results = await chain.multicall({ multicallAddress: multicall, batchSize: 0, allowFailure: true, contracts: calls });
    } catch (err) {
      throw chainUnavailable(err);
    }
    return results.map((r) => {
      if (r.status === 'success') return { ok: true, value: r.result as T };
      if (!isRevert(r.error)) throw chainUnavailable(r.error);
      return { ok: false };
    });
  }
  const outcomes: ReadOutcome<T>[] = new Array(calls.length);
  let next = 0;
  const worker = async () => {
    while (next < calls.length) {
      const i = next++;
      try {
        outcomes[i] = { ok: true, value: (await chain.readContract(calls[i] as ContractFunctionParameters<Abi>)) as T };
      } catch (err) {
        if (!isRevert(err)) throw chainUnavailable(err);
        outcomes[i] = { ok: false };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(READS_CONCURRENCY, calls.length) }, worker));
  return outcomes;
}

const multicall3 = new WeakMap<PublicClient, Promise<Address | undefined>>();

/**
 * Multicall3's address when the chain's definition names one and code is there (asked once per
 * isolate and client; a failed look-up is asked again next time), else undefined.
 */
export function hasMulticall3(chain: PublicClient): Promise<Address | undefined> {
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
