import { type ChainId } from './chains';
import type { Env } from './env';
/** The deployment's configuration, parsed once per `env` object and frozen. */
export interface Config {
  readonly chainId: ChainId;
  readonly deployment: 'mainnet' | 'testnet';
  /** The first of `rpcUrls`. */
  readonly rpcUrl: string;
  /** RPC endpoints in order of preference (`RPC_URLS`, else `RPC_URL`): a failing one falls through to the next. */
  readonly rpcUrls: readonly string[];
  /** Deadline of one call to one RPC endpoint, ms (`RPC_TIMEOUT_MS`). */
  readonly rpcTimeoutMs: number;
  readonly databaseUrl: string;
  /** `host:port` of the local WebSocket bridge; absent in production (Neon's own proxy). */
  readonly dbWsProxy: string | undefined;
  readonly siweDomain: string;
  readonly siweUri: string;
  readonly jwtSecret: Uint8Array;
  readonly jwtLifetimeSeconds: number;
  readonly nonceTtlSeconds: number;
  readonly maxBodyBytes: number;
  readonly maxTokensPerRequest: number;
  readonly mcpTimeoutMs: number;
  /** Vault key encryption keys, as configured (`v<version>:<base64>`); imported on first use. */
  readonly vaultKek: string;
  readonly vaultKekPrevious: string | undefined;
  /** Local-stack switches (DESIGN §9); production values on every deployment. */
  readonly dev: DevSwitches;
  readonly warnings: readonly string[];
}
/**
 * Switches of the local stack (DESIGN §9). They reach the worker as `DEV_*` vars from
 * `npm run dev` and are accepted only when the worker runs on the local stack: its database is
 * reached through a loopback bridge (`DB_WS_PROXY`) at a loopback `DATABASE_URL`, which no deployed
 * worker can reach. Anywhere else a `DEV_*` var is a configuration error, so a wrangler file or a
 * deployed worker cannot loosen production's policy.
 */
export interface DevSwitches {
  /** `DEV_LOOPBACK_TARGETS=1`: loopback tool servers and database hosts are accepted. */
  readonly loopbackTargets: boolean;
  /** `DEV_RATE_LIMITS=0` turns rate limits off (benchmarks). */
  readonly rateLimits: boolean;
}
/** Thrown when the deployment's bindings are missing or invalid; lists every problem by name. */
export declare class ConfigError extends Error {
  readonly problems: readonly string[];
  readonly name = 'ConfigError';
  constructor(problems: readonly string[]);
}
/**
 * Parses the deployment's bindings into a typed, frozen Config.
 * Parsed once per `env` object (Workers hand the same object to every request of an isolate).
 * @throws ConfigError naming every missing or invalid variable (never its value).
 */
export declare function loadConfig(env: Env): Config;
export declare function parseConfig(env: Partial<Record<keyof Env, unknown>>): Config;
