import type { Context } from 'hono';
import type { AppBindings } from '../../types';
import { keyRing } from '../../vault/store';
import type { OAuthDeps } from './deps';

/** The tool servers' deps with what the OAuth flow adds: the gateway's origin and the state store. */
export function oauthDeps(c: Context<AppBindings>): OAuthDeps {
  return {
    db: c.var.db,
    ring: () => keyRing(c.var.config),
    timeoutMs: c.var.config.mcpTimeoutMs,
    ceilingMs: c.var.config.mcpCallCeilingMs,
    outbound: { loopbackTargets: c.var.config.dev.loopbackTargets },
    origin: new URL(c.req.url).origin,
    kv: c.env.NONCES,
  };
}
