import type { MiddlewareHandler } from 'hono';
import { AppError } from '../errors';
import type { AppBindings } from '../types';
import type { RouteTable } from './routes-table';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
const JSON_TYPE = /^application\/json\s*(;|$)/i;

/**
 * Every body-carrying request to a known route must be JSON: anything else is 415, a body that
 * does not parse is 400 `invalid_json`. Unknown routes fall through to the 404/405 handler.
 * The parsed body stays cached on the request for the route's validator.
 */
export function jsonBody(routes: () => RouteTable): MiddlewareHandler<AppBindings> {
  return async function jsonBodyMiddleware(c, next) {
    if (!BODY_METHODS.has(c.req.method) || !routes().methodsFor(c.req.path).includes(c.req.method)) {
      return next();
    }
    const type = c.req.header('content-type') ?? '';
    if (!JSON_TYPE.test(type)) {
      throw new AppError('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json');
    }
    try {
      await c.req.json();
    } catch (err) {
      if (err instanceof SyntaxError) {
        throw new AppError('invalid_json', 'The request body is not valid JSON');
      }
      throw err; // e.g. the body limit, handled by its own middleware
    }
    await next();
  };
}
