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
