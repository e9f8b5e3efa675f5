import type { MiddlewareHandler } from 'hono';
import type { AppBindings } from '../types';

const SAFE_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/**
 * Gives every request an id (the caller's `X-Request-Id` when it is safe to echo, else a UUID),
 * returns it as `X-Request-Id` and the handling time as `Server-Timing`, except on agent routes:
 * there the time would tell a caller refused by the owner check how much the agent holds.
 */
export function requestId(): MiddlewareHandler<AppBindings> {
  return async function requestIdMiddleware(c, next) {
    const incoming = c.req.header('x-request-id');
    const id = incoming && SAFE_ID.test(incoming) ? incoming : crypto.randomUUID();
    c.set('requestId', id);
    const started = Date.now();
    await next();
    c.res.headers.set('X-Request-Id', id);
    if (!c.req.path.startsWith('/agent/')) c.res.headers.append('Server-Timing', `total;dur=${Date.now() - started}`);
  };
}
