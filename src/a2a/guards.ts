import type { MiddlewareHandler } from 'hono';
import { resourceMetadataUrl, resourceOfAgentPath } from '../oauth/resource';
import type { AppBindings } from '../types';

/**
 * Every 401 of the agent's A2A route says `WWW-Authenticate: Bearer`, naming the route's OAuth
 * protected-resource metadata (RFC 9728) where a client learns how to get a token. Mounted before
 * the credential gates, so it sees the 401s of all of them.
 */
export function a2aChallenge(): MiddlewareHandler<AppBindings> {
  return async function a2aChallengeMiddleware(c, next) {
    await next();
    if (c.res.status !== 401) return;
    // A refused OAuth token's challenge already names it, with `error="invalid_token"`.
    if (c.res.headers.get('WWW-Authenticate')?.includes('resource_metadata=')) return;
    const origin = new URL(c.req.url).origin;
    // Built from the parsed agent, never from the request's own path text.
    const resource = resourceOfAgentPath(origin, c.req.path);
    const challenge = resource?.endsWith('/a2a') ? `Bearer resource_metadata="${resourceMetadataUrl(origin, resource)}"` : 'Bearer';
    c.res.headers.set('WWW-Authenticate', challenge);
  };
}

/**
 * A body that is not JSON is JSON-RPC's parse error (-32700), not the gateway's 400 `invalid_json`,
 * and JSON that is not an object (a batch, a bare value) is -32600: A2A clients read JSON-RPC
 * errors. Mounted before the body check of every route; the body stays cached for it. Nothing else
 * is decided here (the credential is checked after, then the rest of the envelope).
 */
export function a2aParseError(): MiddlewareHandler<AppBindings> {
  return async function a2aParseErrorMiddleware(c, next) {
    if (c.req.method !== 'POST' || !/^application\/json\s*(;|$)/i.test(c.req.header('content-type') ?? '')) return next();
    let text: string;
    try {
      text = new TextDecoder().decode(await c.req.arrayBuffer());
    } catch {
      return next(); // the body limit's own errors, from the body check
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return c.json({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the body is not JSON' } }, 200);
    }
    // A batch or a bare value is no request this server serves (the route reads one object).
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      const error = { code: -32600, message: 'Invalid Request: the body is not one JSON-RPC request object (no batches)' };
      return c.json({ jsonrpc: '2.0', id: null, error }, 200);
    }
    return next();
  };
}
