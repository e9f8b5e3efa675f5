import type { Context, MiddlewareHandler } from 'hono';
import type { Address } from 'viem';
import type { Env } from '../env';
import { AppError } from '../errors';
import type { KeyRequirement } from '../keys/scopes';
import { AGENT_KEY_PATTERN, hashAgentKey } from '../keys/secret';
import type { AppBindings } from '../types';
import { verifyAccessToken } from '../auth/jwt';

const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
const KEY = /^agk_\S*$/;
const CREDENTIALS = /^(\S+) +(\S+)$/;

/**
 * The credential of an `Authorization` header of the Bearer scheme, else undefined. The scheme's
 * name is case-insensitive (RFC 7235: `bearer` and `BEARER` are `Bearer`); the token is one word.
 */
export function bearerToken(header: string | undefined): string | undefined {
  const match = CREDENTIALS.exec(header?.trim() ?? '');
  return match?.[1]?.toLowerCase() === 'bearer' ? match[2] : undefined;
}

export interface BearerOptions {
  /** The scope an agent key needs on this request's route; undefined: keys are not allowed there. */
  keyScope: (c: Context<AppBindings>) => KeyRequirement | undefined;
  /** How OAuth access tokens are told apart and checked; absent: they are not accepted at all. */
  oauth?: OAuthTokenCheck;
}

/**
 * The OAuth authorization server's side of the bearer check, passed in (as hono's `bearerAuth`
 * takes `verifyToken`) so that this layer does not depend on the OAuth provider.
 */
export interface OAuthTokenCheck {
  /** The form of an OAuth access token (anything else is read as a JWT). */
  pattern: RegExp;
  /**
   * The OAuth resource of this request's route (an agent's MCP or A2A URL) and where its RFC 9728
   * metadata lives; undefined: OAuth access tokens are not accepted here (401 `invalid_token`).
   */
  resourceOf: (c: Context<AppBindings>) => { resource: string; metadataUrl: string } | undefined;
  /** The wallet a live token speaks for on exactly `resource`, and the client it was issued to; else null. */
  walletOf: (env: Env, origin: string, resource: string, token: string) => Promise<{ wallet: Address; clientId: string } | null>;
  /** Told when a live token's wallet was refused as no longer the agent's owner (403 `not_owner`): the agent was sold. */
  onNotOwner?: (c: Context<AppBindings>, wallet: Address) => void;
  /** Told when an agent route answered its owner (a wallet token or an agent key): the owner seen now. */
  onOwnerSeen?: (c: Context<AppBindings>) => void;
}

/**
 * Gate 1: a valid access token of this deployment's chain in `Authorization: Bearer`; else 401.
 * An agent key (`agk_...`) is taken as a credential to check beside the owner check (agentGate):
 * here only its form (401 `key_invalid`) and whether the route accepts keys at all (403
 * `key_not_allowed`, before anything is looked up) are decided.
 */
export function bearer(options: BearerOptions): MiddlewareHandler<AppBindings> {
  return async function bearerMiddleware(c, next) {
    const header = c.req.header('authorization');
    if (!header) throw new AppError('unauthorized', 'Send an access token: Authorization: Bearer <token>');
    const token = bearerToken(header);
    const key = token !== undefined && KEY.test(token) ? token : undefined;
    if (key !== undefined) {
      const scope = options.keyScope(c);
      if (!scope) throw new AppError('key_not_allowed', "Agent keys cannot use this route; it needs the owner's wallet token");
      if (!AGENT_KEY_PATTERN.test(key)) throw new AppError('key_invalid', 'The agent key is not valid');
      c.set('agentKey', { hash: await hashAgentKey(key), scope });
      await next();
      if (c.res.status < 400) options.oauth?.onOwnerSeen?.(c);
      return;
    }
    c.set('agentKey', undefined);
    if (token !== undefined && options.oauth?.pattern.test(token)) {
      const { wallet, clientId } = await oauthWallet(c, options.oauth, token);
      c.set('wallet', wallet);
      c.set('oauthClientId', clientId);
      await next();
      if (c.error instanceof AppError && c.error.code === 'not_owner') options.oauth.onNotOwner?.(c, wallet);
      return;
    }
    if (token === undefined || !JWT.test(token)) throw new AppError('unauthorized', 'The Authorization header must be "Bearer <token>"');
    const { config } = c.var;
    const result = await verifyAccessToken(token, { secret: config.jwtSecret, chainId: config.chainId, now: new Date() });
    if (!result.ok) {
      switch (result.reason) {
        case 'expired':
          throw new AppError('token_expired', 'The access token has expired; log in again');
        case 'wrong_chain':
          throw new AppError('token_wrong_chain', `The access token is for another chain; this deployment serves chain ${config.chainId}`);
        case 'invalid':
          throw new AppError('unauthorized', 'The access token is not valid');
        default: {
          const unhandled: never = result.reason;
          throw new Error(`unhandled token failure ${String(unhandled)}`);
        }
      }
    }
    c.set('wallet', result.claims.sub);
    await next();
    if (c.res.status < 400) options.oauth?.onOwnerSeen?.(c);
  };
}

/**
 * An OAuth access token (docs/keys-and-automation.md, OAuth for MCP clients) is good only on the
 * route of the resource it was issued for: the MCP route or the A2A route of one agent (a token
 * for one of the two is refused on the other). Anywhere else, and when unknown, expired or
 * revoked, 401 `invalid_token` with a Bearer challenge (RFC 6750 §3) naming the resource's
 * metadata on those two routes.
 */
async function oauthWallet(c: Context<AppBindings>, check: OAuthTokenCheck, token: string) {
  const target = check.resourceOf(c);
  if (!target) {
    throw new AppError('invalid_token', 'OAuth access tokens are accepted only on the MCP or A2A route of the agent they were issued for', {
      headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
    });
  }
  const granted = await check.walletOf(c.env, new URL(c.req.url).origin, target.resource, token);
  if (!granted) {
    throw new AppError(
      'invalid_token',
      'The OAuth access token is not valid for this resource (unknown, expired, revoked, or issued for another agent or for its other route)',
      {
        headers: {
          'WWW-Authenticate': `Bearer error="invalid_token", error_description="The access token is not valid for this resource", resource_metadata="${target.metadataUrl}"`,
        },
      },
    );
  }
  return granted;
}
