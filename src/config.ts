import { z } from 'zod';
import { DEPLOYMENTS, isChainId, type ChainId } from './chains';
import type { Env } from './env';
import { parseKekSpec } from './encoding/kek-spec';

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
  /** At most this many model calls in one agent reply (INFERENCE_LOOP__MAX_ITERATIONS). */
  readonly maxIterations: number;
  /** Idle timeout of one model call (for its answer's headers, then between two chunks), ms. */
  readonly llmTimeoutMs: number;
  /** Absolute limit of one tool call however much progress it sends, ms (`MCP_CALL_CEILING_MS`). */
  readonly mcpCallCeilingMs: number;
  /** Reply spans carry message text only when the operator opts in (`TRACE_MESSAGE_TEXT=1`): text is the user's, not the operator's. */
  readonly traceMessageText: boolean;
  /** Origins besides the gateway's own that may call the agents' MCP servers from a browser (`MCP_ALLOWED_ORIGINS`). */
  readonly mcpAllowedOrigins: readonly string[];
  /** The x402 facilitator of paid replies (`X402_FACILITATOR_URL`); undefined: the deployment takes no payments. */
  readonly x402FacilitatorUrl: string | undefined;
  /** Vault key encryption keys, as configured (`v<version>:<base64>`); imported on first use. */
  readonly vaultKek: string;
  readonly vaultKekPrevious: string | undefined;
  /** Local-stack switches (docs/development.md); production values on every deployment. */
  readonly dev: DevSwitches;
  readonly warnings: readonly string[];
}

/**
 * Switches of the local stack (docs/development.md). They reach the worker as `DEV_*` vars from
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
  /** True on the local stack (its database behind a loopback bridge): the MCP server also accepts loopback `Host` and `Origin`. */
  readonly localStack: boolean;
}

const DEV_SWITCH_NAMES = ['DEV_LOOPBACK_TARGETS', 'DEV_RATE_LIMITS'] as const;

const LOOPBACK_HOST = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost|\[::1\])$/i;

/** True when the worker's database is the local stack's: a loopback bridge to a loopback host. */
function onLocalStack(vars: { DATABASE_URL: string; DB_WS_PROXY?: string | undefined }): boolean {
  if (!vars.DB_WS_PROXY) return false;
  const proxyHost = vars.DB_WS_PROXY.replace(/:\d{1,5}$/, '');
  let dbHost: string;
  try {
    dbHost = new URL(vars.DATABASE_URL).hostname;
  } catch {
    return false;
  }
  return LOOPBACK_HOST.test(proxyHost) && LOOPBACK_HOST.test(dbHost);
}

/** `scheme://host[:port]` of an http(s) origin as written (no path, query or credentials); undefined otherwise. */
function originOf(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  // An origin only: a path, query, fragment or user info is a mistake, not something to cut off.
  const bare = url.pathname === '/' && url.search === '' && url.hash === '' && url.username === '' && url.password === '';
  return bare && !text.includes('#') && !text.includes('?') ? url.origin : undefined;
}

/** Thrown when the deployment's bindings are missing or invalid; lists every problem by name. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration: ${problems.join('; ')}`);
  }
}

/** At most this many endpoints in `RPC_URLS`. */
const MAX_RPC_URLS = 8;
const RPC_MISSING = 'RPC_URL is required (or RPC_URLS, a comma-separated list)';

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

const postgresUrl = z.url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// or postgresql:// URL' });

function intVar(name: string, fallback: number, min: number, max: number) {
  return z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === '') return fallback;
      if (!/^\d+$/.test(value)) {
        ctx.addIssue({ code: 'custom', message: `${name} must be a whole number` });
        return z.NEVER;
      }
      const n = Number(value);
      if (n < min || n > max) {
        ctx.addIssue({ code: 'custom', message: `${name} must be between ${min} and ${max}` });
        return z.NEVER;
      }
      return n;
    });
}

const envSchema = z.object({
  CHAIN_ID: z.string({ error: 'is required' }).refine((v) => /^\d+$/.test(v) && isChainId(Number(v)), {
    message: `must be one of ${Object.keys(DEPLOYMENTS).join(', ')}`,
  }),
  // RPC endpoints: RPC_URLS (a list, optional) else RPC_URL; one of the two is required (checked below).
  RPC_URL: httpUrl.optional(),
  RPC_URLS: z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === '') return undefined;
      const urls = value
        .split(',')
        .map((url) => url.trim())
        .filter((url) => url !== '');
      if (urls.length > MAX_RPC_URLS || urls.some((url) => !httpUrl.safeParse(url).success) || new Set(urls).size !== urls.length) {
        ctx.addIssue({
          code: 'custom',
          message: `RPC_URLS must be a comma-separated list of at most ${MAX_RPC_URLS} distinct http(s) URLs`,
        });
        return z.NEVER;
      }
      return urls;
    }),
  RPC_TIMEOUT_MS: intVar('RPC_TIMEOUT_MS', 4_000, 100, 30_000),
  DATABASE_URL: postgresUrl,
  SIWE_DOMAIN: z
    .string({ error: 'is required' })
    .regex(/^[a-z0-9.-]+(:\d{1,5})?$/i, 'must be a host name with an optional port, as in EIP-4361'),
  SIWE_URI: httpUrl,
  JWT__HASH: z.string({ error: 'is required' }).refine((v) => new TextEncoder().encode(v).byteLength >= 32, {
    message: 'must be at least 32 bytes long',
  }),
  JWT__LIVING_TIME: intVar('JWT__LIVING_TIME', 86_400, 60, 31 * 86_400),
  NONCE_TTL_SECONDS: intVar('NONCE_TTL_SECONDS', 300, 1, 3_600),
  MAX_BODY_BYTES: intVar('MAX_BODY_BYTES', 1_048_576, 1_024, 100 * 1_048_576),
  TOKEN__MAX_TOKENS_PER_REQUEST: intVar('TOKEN__MAX_TOKENS_PER_REQUEST', 100_000, 1, 10_000_000),
  MCP_TIMEOUT_MS: intVar('MCP_TIMEOUT_MS', 10_000, 100, 60_000),
  INFERENCE_LOOP__MAX_ITERATIONS: intVar('INFERENCE_LOOP__MAX_ITERATIONS', 10, 1, 50),
  LLM_TIMEOUT_MS: intVar('LLM_TIMEOUT_MS', 60_000, 100, 120_000),
  MCP_CALL_CEILING_MS: intVar('MCP_CALL_CEILING_MS', 120_000, 1_000, 900_000),
  TRACE_MESSAGE_TEXT: z.enum(['0', '1'], { error: 'must be 0 or 1' }).optional(),
  MCP_ALLOWED_ORIGINS: z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === '') return [];
      const origins: string[] = [];
      for (const item of value
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '')) {
        const origin = originOf(item);
        if (origin === undefined) {
          ctx.addIssue({
            code: 'custom',
            message: 'MCP_ALLOWED_ORIGINS must list http(s) origins (scheme://host[:port]), comma-separated',
          });
          return z.NEVER;
        }
        origins.push(origin);
      }
      return origins;
    }),
  X402_FACILITATOR_URL: z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === '') return undefined;
      const url = URL.canParse(value.trim()) ? new URL(value.trim()) : undefined;
      if (!url || !['http:', 'https:'].includes(url.protocol) || url.username || url.password || url.search || url.hash) {
        ctx.addIssue({ code: 'custom', message: 'X402_FACILITATOR_URL must be an http(s) URL without user info, query or fragment' });
        return z.NEVER;
      }
      return url.href.replace(/\/+$/, '');
    }),
  VAULT_KEK: z
    .string({ error: 'is required' })
    .refine((v) => parseKekSpec(v) !== null, { message: 'must be v<version>:<base64 of 32 bytes>' }),
  VAULT_KEK_PREVIOUS: z
    .string()
    .refine((v) => parseKekSpec(v) !== null, { message: 'must be v<version>:<base64 of 32 bytes>' })
    .optional(),
  DB_WS_PROXY: z
    .string()
    .regex(/^[a-z0-9.-]+:\d{1,5}$/i, 'must be host:port')
    .optional(),
  DEV_LOOPBACK_TARGETS: z.enum(['0', '1'], { error: 'must be 0 or 1' }).optional(),
  DEV_RATE_LIMITS: z.enum(['0', '1'], { error: 'must be 0 or 1' }).optional(),
});

const cache = new WeakMap<object, Config>();

/**
 * Parses the deployment's bindings into a typed, frozen Config.
 * Parsed once per `env` object (Workers hand the same object to every request of an isolate).
 * @throws ConfigError naming every missing or invalid variable (never its value).
 */
export function loadConfig(env: Env): Config {
  const cached = cache.get(env);
  if (cached) return cached;
  const config = parseConfig(env);
  cache.set(env, config);
  return config;
}

export function parseConfig(env: Partial<Record<keyof Env, unknown>>): Config {
  const result = envSchema.safeParse(env);
  const rpcMissing = [env.RPC_URL, env.RPC_URLS].every(
    (value) => value === undefined || (typeof value === 'string' && value.trim() === ''),
  );
  if (!result.success) {
    throw new ConfigError([
      ...result.error.issues.map((issue) => {
        const name = String(issue.path[0] ?? 'env');
        return issue.message.startsWith(name) ? issue.message : `${name} ${issue.message}`;
      }),
      ...(rpcMissing ? [RPC_MISSING] : []),
    ]);
  }
  const vars = result.data;
  const rpcUrls = vars.RPC_URLS ?? (vars.RPC_URL ? [vars.RPC_URL] : []);
  const [firstRpcUrl] = rpcUrls;
  if (firstRpcUrl === undefined) throw new ConfigError([RPC_MISSING]);
  const switchesSet = DEV_SWITCH_NAMES.filter((name) => vars[name] !== undefined);
  if (switchesSet.length > 0 && !onLocalStack(vars)) {
    throw new ConfigError(switchesSet.map((name) => `${name} is a local-stack switch: it cannot be set on a deployment`));
  }
  const chainId = Number(vars.CHAIN_ID) as ChainId;
  const warnings: string[] = [];
  if (env.MAX_TOKENS_PER_REQUEST !== undefined && env.MAX_TOKENS_PER_REQUEST !== '') {
    warnings.push('MAX_TOKENS_PER_REQUEST is ignored: the setting is TOKEN__MAX_TOKENS_PER_REQUEST (with the TOKEN__ prefix)');
  }
  return Object.freeze({
    chainId,
    deployment: DEPLOYMENTS[chainId].name,
    rpcUrl: firstRpcUrl,
    rpcUrls: Object.freeze(rpcUrls),
    rpcTimeoutMs: vars.RPC_TIMEOUT_MS,
    databaseUrl: vars.DATABASE_URL,
    dbWsProxy: vars.DB_WS_PROXY,
    siweDomain: vars.SIWE_DOMAIN,
    siweUri: vars.SIWE_URI,
    jwtSecret: new TextEncoder().encode(vars.JWT__HASH),
    jwtLifetimeSeconds: vars.JWT__LIVING_TIME,
    nonceTtlSeconds: vars.NONCE_TTL_SECONDS,
    maxBodyBytes: vars.MAX_BODY_BYTES,
    maxTokensPerRequest: vars.TOKEN__MAX_TOKENS_PER_REQUEST,
    mcpTimeoutMs: vars.MCP_TIMEOUT_MS,
    maxIterations: vars.INFERENCE_LOOP__MAX_ITERATIONS,
    llmTimeoutMs: vars.LLM_TIMEOUT_MS,
    mcpCallCeilingMs: vars.MCP_CALL_CEILING_MS,
    traceMessageText: vars.TRACE_MESSAGE_TEXT === '1',
    mcpAllowedOrigins: Object.freeze(vars.MCP_ALLOWED_ORIGINS),
    x402FacilitatorUrl: vars.X402_FACILITATOR_URL,
    vaultKek: vars.VAULT_KEK,
    vaultKekPrevious: vars.VAULT_KEK_PREVIOUS,
    dev: Object.freeze({
      loopbackTargets: vars.DEV_LOOPBACK_TARGETS === '1',
      rateLimits: vars.DEV_RATE_LIMITS !== '0',
      localStack: onLocalStack(vars),
    }),
    warnings: Object.freeze(warnings),
  });
}
