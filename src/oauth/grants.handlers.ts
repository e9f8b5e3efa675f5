import type { RouteHandler } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppBindings } from '../types';
import { listOAuthGrants, revokeOAuthGrant } from './grants.service';
import type * as routes from './grants.routes';

const grantsContext = (c: Context<AppBindings>) => ({
  env: c.env,
  origin: new URL(c.req.url).origin,
  agent: c.var.agent,
  owner: c.var.wallet,
});

export const listGrantsHandler: RouteHandler<typeof routes.listOAuthGrants, AppBindings> = async (c) =>
  c.json({ grants: await listOAuthGrants(grantsContext(c)) }, 200);

export const revokeGrantHandler: RouteHandler<typeof routes.revokeOAuthGrant, AppBindings> = async (c) =>
  c.json(await revokeOAuthGrant(grantsContext(c), c.var.db, c.req.valid('param').grantId), 200);
