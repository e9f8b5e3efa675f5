import type { MiddlewareHandler } from 'hono';
import { openDatabase } from '../storage/db';
import type { AppBindings } from '../types';

/** Exposes a per-request database handle as `c.var.db`; the pool is ended after the response. */
export function withDatabase(): MiddlewareHandler<AppBindings> {
  return async function databaseMiddleware(c, next) {
    const db = openDatabase(c.var.config);
    c.set('db', db);
    try {
      await next();
    } finally {
      const closing = db.end();
      try {
        c.executionCtx.waitUntil(closing);
      } catch {
        await closing; // no execution context (app.request in unit tests)
      }
    }
  };
}
