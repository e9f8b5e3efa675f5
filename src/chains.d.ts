import { polygon, polygonAmoy } from 'viem/chains';
import type { Chain } from 'viem';
interface Deployment<Name extends string, C extends Chain> {
  readonly name: Name;
  readonly chain: C;
}
/** The deployments this gateway knows: one Worker per chain. */
export declare const DEPLOYMENTS: {
  readonly 137: Deployment<'mainnet', typeof polygon>;
  readonly 80002: Deployment<'testnet', typeof polygonAmoy>;
};
export type ChainId = keyof typeof DEPLOYMENTS;
export declare const CHAIN_IDS: ChainId[];
export declare function isChainId(value: number): value is ChainId;
