import type { RouteHandler } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppBindings } from '../types';
import { listOAuthGrants, revokeOAuthGrant } from './grants.service';
import { revokeOtherWalletsGrants } from './seller-grants';
import type * as routes from './grants.routes';

const grantsContext = (c: Context<AppBindings>) => ({
  env: c.env,
  origin: new URL(c.req.url).origin,
  agent: c.var.agent,
  owner: c.var.wallet,
});

/** The owner's listing is a sighting of the agent under its owner: any earlier owner's grants are revoked first. */
export const listGrantsHandler: RouteHandler<typeof routes.listOAuthGrants, AppBindings> = async (c) => {
  const g = grantsContext(c);
  await revokeOtherWalletsGrants(g.env, g.origin, g.agent, g.owner);
  return c.json({ grants: await listOAuthGrants(g) }, 200);
};

export const revokeGrantHandler: RouteHandler<typeof routes.revokeOAuthGrant, AppBindings> = async (c) =>
  c.json(await revokeOAuthGrant(grantsContext(c), c.var.db, c.req.valid('param').grantId), 200);
