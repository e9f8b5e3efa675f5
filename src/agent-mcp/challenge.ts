import type { MiddlewareHandler } from 'hono';
import type { AppBindings } from '../types';

/**
 * Every 401 of the agent's MCP route names where an MCP client finds how to get a credential
 * (RFC 9728 protected-resource metadata; the MCP authorization spec): `WWW-Authenticate: Bearer
 * resource_metadata="{origin}/.well-known/oauth-protected-resource{path}"`. Mounted before the
 * credential gates, so it sees the 401s of all of them (bearer, agent key, a later OAuth token).
 */
export function mcpChallenge(): MiddlewareHandler<AppBindings> {
  return async function mcpChallengeMiddleware(c, next) {
    await next();
    if (c.res.status !== 401) return;
    const metadata = `${new URL(c.req.url).origin}/.well-known/oauth-protected-resource${c.req.path}`;
    c.res.headers.set('WWW-Authenticate', `Bearer resource_metadata="${metadata}"`);
  };
}
