import type { RouteHandler } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { AppError } from '../../errors';
import { resourceId } from '../../http/openapi';
import type { AppBindings } from '../../types';
import { keyRing } from '../../vault/store';
import { findConnection } from '../connections.service';
import { completeAuthorization } from './callback.service';
import { authorizedPage, failedPage } from './callback-page';
import { clientDocument } from './client-document';
import type { OAuthDeps } from './deps';
import { authorizeUrl, oauthStateOf } from './flow';
import type * as routes from './oauth.routes';
import { reentryRequired, registeredBy } from '../connection-view';

const originOf = (c: Context<AppBindings>) => new URL(c.req.url).origin;

/** The tool servers' deps with what the OAuth flow adds: the gateway's origin and the state store. */
export function oauthDeps(c: Context<AppBindings>): OAuthDeps {
  return {
    db: c.var.db,
    ring: () => keyRing(c.var.config),
    timeoutMs: c.var.config.mcpTimeoutMs,
    ceilingMs: c.var.config.mcpCallCeilingMs,
    outbound: { loopbackTargets: c.var.config.dev.loopbackTargets },
    origin: originOf(c),
    kv: c.env.NONCES,
  };
}

export const clientMetadataHandler: RouteHandler<typeof routes.clientMetadata, AppBindings> = (c) =>
  c.json(clientDocument(originOf(c)), 200, { 'Cache-Control': 'public, max-age=3600' });

export const authorizeHandler: RouteHandler<typeof routes.authorizeConnection, AppBindings> = async (c) => {
  const id = resourceId(c.req.valid('param').id);
  if (id === null) throw new AppError('mcp_connection_not_found', 'MCP connection not found');
  const deps = oauthDeps(c);
  const row = await findConnection(deps, c.var.agent, id);
  oauthStateOf(row);
  if (!registeredBy(row, c.var.agent.owner)) throw reentryRequired(row.id);
  return c.json({ authorizeUrl: await authorizeUrl(deps, c.var.agent, row) }, 200);
};

export const callbackHandler: RouteHandler<typeof routes.oauthCallback, AppBindings> = async (c) => {
  const headers = (csp: string) => ({ 'Content-Security-Policy': csp, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' });
  try {
    const done = await completeAuthorization(oauthDeps(c), c.req.valid('query'));
    const page = authorizedPage(done.connection, done.tools);
    return c.html(page.html, 200, headers(page.csp));
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    const page = failedPage(err.code, err.message);
    const status = err.status === 400 ? 400 : 502;
    return c.html(page.html, status, headers(page.csp));
  }
};
