import { polygon, polygonAmoy } from 'viem/chains';
import type { Chain } from 'viem';

interface Deployment<Name extends string, C extends Chain> {
  readonly name: Name;
  readonly chain: C;
}

/** The deployments this gateway knows: one Worker per chain. */
export const DEPLOYMENTS: {
  readonly 137: Deployment<'mainnet', typeof polygon>;
  readonly 80002: Deployment<'testnet', typeof polygonAmoy>;
} = {
  137: { name: 'mainnet', chain: polygon },
  80002: { name: 'testnet', chain: polygonAmoy },
};

export type ChainId = keyof typeof DEPLOYMENTS;

export const CHAIN_IDS = Object.keys(DEPLOYMENTS).map(Number) as ChainId[];

export function isChainId(value: number): value is ChainId {
  return Object.hasOwn(DEPLOYMENTS, value);
}

/** A USDC contract: what paid calls are priced in (EIP-3009 transfers signed over its EIP-712 domain). */
export interface UsdcToken {
  readonly address: `0x${string}`;
  /** The EIP-712 domain's name and version, as the contract itself answers them. */
  readonly name: string;
  readonly version: string;
  readonly decimals: 6;
}

/**
 * Circle's USDC on each chain (native USDC on Polygon; Circle's test USDC on Amoy). The local
 * stack places its own stand-in's code at these same addresses, so no setting differs there.
 */
export const USDC: { readonly [K in ChainId]: UsdcToken } = {
  137: { address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', name: 'USD Coin', version: '2', decimals: 6 },
  80002: { address: '0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582', name: 'USDC', version: '2', decimals: 6 },
};
