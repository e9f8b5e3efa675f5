import type { MiddlewareHandler } from 'hono';
import { resourceOfMcpPath } from '../oauth/resource';
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
    // A refused OAuth token's challenge already names it, with `error="invalid_token"` (RFC 6750 §3).
    if (c.res.headers.get('WWW-Authenticate')?.includes('resource_metadata=')) return;
    // Built from the parsed agent, never from the request's own path text (no quotes or line
    // breaks reach the header); a path naming no agent gets no challenge, only its 401.
    const origin = new URL(c.req.url).origin;
    const resource = resourceOfMcpPath(origin, c.req.path);
    if (resource === undefined) return;
    const metadata = `${origin}/.well-known/oauth-protected-resource${new URL(resource).pathname}`;
    c.res.headers.set('WWW-Authenticate', `Bearer resource_metadata="${metadata}"`);
  };
}
