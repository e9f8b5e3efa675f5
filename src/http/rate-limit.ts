import type { Context, MiddlewareHandler } from 'hono';
import type { Env } from '../env';
import { AppError } from '../errors';
import type { AppBindings } from '../types';
import { publicClientKey } from './client-ip';

/**
 * The Workers Rate Limiting bindings every deployment declares (`[[ratelimits]]` in both wrangler
 * files). Limits live in the wrangler files; this is what each binding counts.
 */
export const RATE_LIMITERS = {
  /**
   * POST /auth/jwt/init, and /auth/jwt/finish with /wallet/verify, per wallet of the body: two
   * budgets, so a flood of inits for a wallet never blocks the owner's finish of a message it holds.
   */
  LOGIN_RATE_LIMITER:
    'init or signature (costly checks of finish and verify) + chain id + lower-case walletAddress of the body (+ the public client address)',
  /**
   * Every agent-scoped route and the wallet's own tokens (GET /wallet/collections/{c}/tokens), per
   * wallet of the access token or per agent key (after the bearer
   * gate), per agent for all its keys together (once the key is known to be the agent's), and per
   * public client address (before the bearer gate).
   */
  AGENT_RATE_LIMITER:
    "chain id and lower-case wallet of the access token (sub), or `key:` + the agent key's SHA-256 (one budget per key) and `agent:` + chain id + lower-case collection + token id (one budget shared by every key of the agent); and the public client address",
  /** Every route without a token, per public client address (CF-Connecting-IP). */
  IP_RATE_LIMITER: 'CF-Connecting-IP when public (IPv6 per /64); loopback, private or absent: not limited',
} as const satisfies Partial<Record<keyof Env, string>>;

export type RateLimiterName = keyof typeof RATE_LIMITERS;

/**
 * The period of every limiter, seconds, sent as `Retry-After`. Workers Rate Limiting allows 10 or
 * 60; the wrangler files must say 60 (test/unit/wrangler-config.test.ts checks it).
 */
export const RATE_LIMIT_PERIOD_SECONDS = 60;

const AGENT_PREFIX = '/agent/';

function isRateLimiter(value: unknown): value is RateLimit {
  return typeof value === 'object' && value !== null && typeof (value as { limit?: unknown }).limit === 'function';
}

/** The binding, or 500 `misconfigured` naming every missing one. */
function limiter(env: Env, name: RateLimiterName): RateLimit {
  const bound: unknown = env[name];
  if (isRateLimiter(bound)) return bound;
  throw misconfigured((Object.keys(RATE_LIMITERS) as RateLimiterName[]).filter((n) => !isRateLimiter(env[n])));
}

function misconfigured(missing: RateLimiterName[]): AppError {
  return new AppError('misconfigured', 'The gateway is misconfigured', {
    details: {
      problems: missing.map((name) => `${name} is missing: declare it under [[ratelimits]] in the wrangler file`),
    },
  });
}

/**
 * Counts one request against `name` under `key`; 429 `rate_limited` with `Retry-After` when the
 * key is over its limit. Nothing is counted when the local stack runs with DEV_RATE_LIMITS=0.
 * A limiter that fails is logged and lets the request through: it must not take the API down.
 */
export async function limitRequest(c: Context<AppBindings>, name: RateLimiterName, key: string): Promise<void> {
  if (!c.var.config.dev.rateLimits) return;
  const binding = limiter(c.env, name);
  let success: boolean;
  try {
    ({ success } = await binding.limit({ key }));
  } catch (err) {
    console.warn(
      JSON.stringify({
        level: 'warn',
        requestId: c.var.requestId,
        limiter: name,
        warning: `rate limiter failed: ${String(err).slice(0, 200)}`,
      }),
    );
    return;
  }
  if (!success) {
    throw new AppError('rate_limited', `Too many requests: retry after ${RATE_LIMIT_PERIOD_SECONDS} seconds`, {
      headers: { 'Retry-After': String(RATE_LIMIT_PERIOD_SECONDS) },
    });
  }
}

/**
 * Per wallet on the login routes: the chain id and the (validated) wallet of the body, counted
 * apart for starting logins (`init`) and for costly signature checks (`signature`: a finish without
 * its nonce, or any check that must ask the chain), and per client address too where Cloudflare
 * gives a public one: a flood from one address spends that address's budget for the wallet, not
 * the owner's.
 */
export function limitLoginAttempts(
  c: Context<AppBindings>,
  step: 'init' | 'signature',
  body: { walletAddress: string; chainId: number },
): Promise<void> {
  const client = publicClientKey(c.req.header('cf-connecting-ip'));
  const key = `${step}:${body.chainId}:${body.walletAddress.toLowerCase()}${client ? `:${client}` : ''}`;
  return limitRequest(c, 'LOGIN_RATE_LIMITER', key);
}

/**
 * Every request: the deployment's limiters must be bound (else 500 `misconfigured`, unless the
 * local stack runs with DEV_RATE_LIMITS=0), and a request to a route without a token from a public
 * client address counts against that address.
 */
export function clientRateLimit(): MiddlewareHandler<AppBindings> {
  return async function clientRateLimitMiddleware(c, next) {
    if (c.var.config.dev.rateLimits) {
      const missing = (Object.keys(RATE_LIMITERS) as RateLimiterName[]).filter((n) => !isRateLimiter(c.env[n]));
      if (missing.length > 0) throw misconfigured(missing);
      const key = publicClientKey(c.req.header('cf-connecting-ip'));
      // Agent routes count per client address too (before the token is checked, so bad tokens
      // count), in the agent limiter's generous budget: bulk hydration comes from one address.
      if (key) await limitRequest(c, c.req.path.startsWith(AGENT_PREFIX) ? 'AGENT_RATE_LIMITER' : 'IP_RATE_LIMITER', key);
    }
    await next();
  };
}

/**
 * Agent routes (and the wallet's own tokens), after the bearer gate and before the agent gate: per wallet of the token, or per
 * agent key (by its hash, known before the database is asked: a key's own budget, apart from its
 * owner's).
 */
export function walletRateLimit(): MiddlewareHandler<AppBindings> {
  return async function walletRateLimitMiddleware(c, next) {
    const { agentKey } = c.var;
    const key = agentKey ? `key:${agentKey.hash}` : `${c.var.config.chainId}:${c.var.wallet.toLowerCase()}`;
    await limitRequest(c, 'AGENT_RATE_LIMITER', key);
    await next();
  };
}

/**
 * Every request of an agent key once the key is known to be this agent's (the agent gate's
 * `onAgentKey`, wired in src/app.ts): one budget shared by every key of the agent, on top of each
 * key's own, so minting more keys does not multiply what an agent's keys may do (tool calls, model
 * spend). Counted only for a genuine key of this agent, so a made-up key cannot spend it; the
 * owner's token has its own budget.
 */
export function limitAgentKeys(c: Context<AppBindings>, agent: { chainId: number; collection: string; tokenId: bigint }): Promise<void> {
  return limitRequest(c, 'AGENT_RATE_LIMITER', `agent:${agent.chainId}:${agent.collection.toLowerCase()}:${agent.tokenId.toString()}`);
}
