import type { RouteHandler } from '@hono/zod-openapi';
import { AppError } from '../../errors';
import type { AppBindings } from '../../types';
import { clientDocument } from './client-document';
import type * as routes from './oauth.routes';

const originOf = (url: string) => new URL(url).origin;

export const clientMetadataHandler: RouteHandler<typeof routes.clientMetadata, AppBindings> = (c) =>
  c.json(clientDocument(originOf(c.req.url)), 200, { 'Cache-Control': 'public, max-age=3600' });

export const authorizeHandler: RouteHandler<typeof routes.authorizeConnection, AppBindings> = () => {
  throw new AppError('tool_server_not_oauth', 'not yet');
};

export const callbackHandler: RouteHandler<typeof routes.oauthCallback, AppBindings> = (c) => c.html('not yet', 400);
