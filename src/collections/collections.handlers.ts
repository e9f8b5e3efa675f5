import type { RouteHandler } from '@hono/zod-openapi';
import { collectionKind } from '../agents/registry';
import { chainClient } from '../chain/client';
import { AppError } from '../errors';
import type { AppBindings } from '../types';
import type * as routes from './collections.routes';
import { listCollections } from './collections.service';
import { listOwnedTokens } from './owned-tokens.service';

export const listOwnedTokensHandler: RouteHandler<typeof routes.listOwnedTokens, AppBindings> = async (c) => {
  const { config, db, wallet } = c.var;
  const { agentCollectionAddress: collection } = c.req.valid('param');
  // The registry first (usually cached): an unregistered address costs the chain nothing.
  if ((await collectionKind(db, config.chainId, collection)) === null) {
    throw new AppError('collection_not_found', 'The collection is not registered on this deployment');
  }
  const owned = await listOwnedTokens({ chain: chainClient(config) }, collection, wallet);
  return c.json(
    {
      collection,
      owner: wallet,
      enumerable: owned.enumerable,
      tokens: owned.tokenIds.map((id) => ({ tokenId: id.toString() })),
      truncated: owned.truncated,
    },
    200,
  );
};

export const listCollectionsHandler: RouteHandler<typeof routes.listCollections, AppBindings> = async (c) => {
  const { config, db } = c.var;
  return c.json(await listCollections({ db, chainId: config.chainId }), 200);
};
