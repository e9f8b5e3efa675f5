import type { MiddlewareHandler } from 'hono';
import { AppError } from '../errors';
import type { AppBindings } from '../types';
import { verifyAccessToken } from './jwt';

const BEARER = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*)$/;

/** Gate 1: a valid access token of this deployment's chain in `Authorization: Bearer`; else 401. */
export function bearer(): MiddlewareHandler<AppBindings> {
  return async function bearerMiddleware(c, next) {
    const header = c.req.header('authorization');
    if (!header) throw new AppError('unauthorized', 'Send an access token: Authorization: Bearer <token>');
    const match = BEARER.exec(header.trim());
    if (!match?.[1]) throw new AppError('unauthorized', 'The Authorization header must be "Bearer <token>"');
    const { config } = c.var;
    const result = await verifyAccessToken(match[1], { secret: config.jwtSecret, chainId: config.chainId, now: new Date() });
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
  };
}
