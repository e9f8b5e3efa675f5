import type { MiddlewareHandler } from 'hono';
import { ConfigError, loadConfig } from '../config';
import { AppError } from '../errors';
import type { AppBindings } from '../types';

const warned = new WeakSet<object>();

/** Parses the deployment's bindings once and exposes them as `c.var.config`. */
export function withConfig(): MiddlewareHandler<AppBindings> {
  return async function configMiddleware(c, next) {
    try {
      const config = loadConfig(c.env);
      if (!warned.has(config)) {
        warned.add(config);
        for (const warning of config.warnings) console.warn(JSON.stringify({ level: 'warn', warning }));
      }
      c.set('config', config);
    } catch (err) {
      if (err instanceof ConfigError) {
        throw new AppError('misconfigured', 'The gateway is misconfigured', {
          details: { problems: err.problems },
          cause: err,
        });
      }
      throw err;
    }
    await next();
  };
}
