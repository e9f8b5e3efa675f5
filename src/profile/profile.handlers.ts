import type { RouteHandler } from '@hono/zod-openapi';
import { chainClient } from '../chain/client';
import type { AppBindings } from '../types';
import type * as routes from './profile.routes';
import { getProfile, readRegistration, saveProfile } from './profile.service';

export const getProfileHandler: RouteHandler<typeof routes.getProfile, AppBindings> = async (c) =>
  c.json(await getProfile(c.var.db, c.var.agent), 200);

export const setProfileHandler: RouteHandler<typeof routes.setProfile, AppBindings> = async (c) =>
  c.json(await saveProfile(c.var.db, c.var.agent, c.req.valid('json')), 200);

/** Public: no gate ran, so the path is parsed here and the registry asked by the service. */
export const getRegistrationHandler: RouteHandler<typeof routes.getRegistration, AppBindings> = async (c) => {
  const { config, db } = c.var;
  const { agentCollectionAddress: collection, agentTokenId: tokenId } = c.req.valid('param');
  const registration = await readRegistration(
    { db, chain: chainClient(config), takesPayments: config.x402FacilitatorUrl !== undefined },
    { chainId: config.chainId, collection, tokenId },
    new URL(c.req.url).origin,
  );
  return c.json(registration, 200, { 'Cache-Control': 'public, max-age=60' });
};
