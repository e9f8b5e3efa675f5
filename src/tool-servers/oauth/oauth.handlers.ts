import type { RouteHandler } from '@hono/zod-openapi';
import { AppError } from '../../errors';
import { resourceId } from '../../http/openapi';
import type { AppBindings } from '../../types';
import { findConnection } from '../connections.service';
import { completeAuthorization } from './callback.service';
import { authorizedPage, failedPage } from './callback-page';
import { clientDocument } from './client-document';
import { oauthDeps } from './request-deps';
import { authorizeUrl, oauthStateOf } from './flow';
import type * as routes from './oauth.routes';
import { reentryRequired, registeredBy } from '../connection-view';

export const clientMetadataHandler: RouteHandler<typeof routes.clientMetadata, AppBindings> = (c) =>
  c.json(clientDocument(new URL(c.req.url).origin), 200, { 'Cache-Control': 'public, max-age=3600' });

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
