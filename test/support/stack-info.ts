import type { Hex } from 'viem';

export interface DeploymentInfo {
  chainId: number;
  baseUrl: string;
  rpcUrl: string;
  collection: string;
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
}

declare module 'vitest' {
  export interface ProvidedContext {
    stack: StackInfo;
  }
}
