import type { Hex } from 'viem';

export interface DeploymentInfo {
  chainId: number;
  baseUrl: string;
  rpcUrl: string;
  collection: string;
  /** The rentable (ERC-4907) demo collection, registered like `collection`. */
  rentableCollection: string;
  /** delegate.xyz v2's registry address; the harness placed our stand-in's code there. */
  delegateRegistry: string;
}

/** What the integration harness started, handed to every test file through `inject('stack')`. */
export interface StackInfo {
  scriptPath: string;
  databaseUrl: string;
  postgresAdminUrl: string;
  bridgeProxy: string;
  jwtSecret: string;
  vaultKek: string;
  accounts: { address: string; privateKey: Hex }[];
  mainnet: DeploymentInfo;
  testnet: DeploymentInfo;
  /** The loopback x402 facilitator serving both chains, and USDC's address on each (our stand-in's code). */
  x402: { facilitatorUrl: string; usdc: { mainnet: string; testnet: string } };
}

declare module 'vitest' {
  export interface ProvidedContext {
    stack: StackInfo;
  }
}
