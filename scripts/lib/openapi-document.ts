import { randomBytes } from 'node:crypto';
import { createApp } from '../../src/app';

/** A rate limiter that lets everything through: the document is served without counting. */
const OPEN_LIMITER = { limit: async () => ({ success: true }) };

/**
 * The OpenAPI document exactly as a deployment serves it at `/openapi.json`, without a server:
 * the app answers the request in-process with throwaway bindings (nothing is connected to).
 */
export async function openApiDocument(deployment: 'mainnet' | 'testnet' = 'testnet'): Promise<Record<string, unknown>> {
  const env = {
    CHAIN_ID: deployment === 'mainnet' ? '137' : '80002',
    RPC_URL: 'http://127.0.0.1:8545',
    SIWE_DOMAIN: 'gateway.example.org',
    SIWE_URI: 'https://gateway.example.org',
    DATABASE_URL: 'postgres://gateway:unused@db.example.org/agent_gateway',
    JWT__HASH: randomBytes(32).toString('base64url'),
    VAULT_KEK: `v1:${randomBytes(32).toString('base64')}`,
    NONCES: {},
    LOGIN_RATE_LIMITER: OPEN_LIMITER,
    AGENT_RATE_LIMITER: OPEN_LIMITER,
    IP_RATE_LIMITER: OPEN_LIMITER,
  };
  const res = await createApp().request('https://gateway.example.org/openapi.json', {}, env);
  if (res.status !== 200) throw new Error(`GET /openapi.json answered ${res.status}: ${(await res.text()).slice(0, 500)}`);
  return (await res.json()) as Record<string, unknown>;
}
