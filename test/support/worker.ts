import type { StackInfo } from './stack-info';

/** Bindings for an extra testnet worker against the harness' backends; spread and override. */
export function workerBindingsFor(stack: StackInfo): Record<string, string> {
  return {
    CHAIN_ID: String(stack.testnet.chainId),
    RPC_URL: stack.testnet.rpcUrl,
    SIWE_DOMAIN: '127.0.0.1',
    SIWE_URI: 'http://127.0.0.1',
    DB_WS_PROXY: stack.bridgeProxy,
    DATABASE_URL: stack.databaseUrl,
    JWT__HASH: stack.jwtSecret,
    VAULT_KEK: stack.vaultKek,
    X402_FACILITATOR_URL: stack.x402.facilitatorUrl,
  };
}
