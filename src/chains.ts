import { polygon, polygonAmoy } from 'viem/chains';
import type { Chain } from 'viem';

/** The deployments this gateway knows: one Worker per chain. */
export const DEPLOYMENTS = {
  137: { name: 'mainnet', chain: polygon },
  80002: { name: 'testnet', chain: polygonAmoy },
} as const satisfies Record<number, { name: string; chain: Chain }>;

export type ChainId = keyof typeof DEPLOYMENTS;

export const CHAIN_IDS = Object.keys(DEPLOYMENTS).map(Number) as ChainId[];

export function isChainId(value: number): value is ChainId {
  return Object.hasOwn(DEPLOYMENTS, value);
}
