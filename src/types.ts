import type { Config } from './config';
import type { Env } from './env';
import type { Database } from './storage/db';

/** Variables the middleware chain sets on every request (`c.var.*`). */
export interface AppVariables {
  /** Set by `requestId()`: echoed as `X-Request-Id` and in every error body. */
  requestId: string;
  /** Set by `withConfig()`: the deployment's parsed configuration. */
  config: Config;
  /** Set by `withDatabase()`: a pool opened on first use and closed after the response. */
  db: Database;
}

export interface AppBindings {
  Bindings: Env;
  Variables: AppVariables;
}
