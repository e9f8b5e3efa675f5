import type { RouteHandler } from '@hono/zod-openapi';
import { collectionKind } from '../agents/registry';
import { chainClient } from '../chain/client';
import { AppError } from '../errors';
import type { AppBindings } from '../types';
import type * as routes from './collections.routes';
import { listCollections } from './collections.service';
import { incomingDelegations, listDelegatedTokens } from './delegated-tokens.service';
import { listOwnedTokens, OWNED_TOKENS_MAX } from './owned-tokens.service';

export const listOwnedTokensHandler: RouteHandler<typeof routes.listOwnedTokens, AppBindings> = async (c) => {
  const { config, db, wallet } = c.var;
  const { agentCollectionAddress: collection } = c.req.valid('param');
  // The registry first (usually cached): an unregistered address costs the chain nothing.
  if ((await collectionKind(db, config.chainId, collection)) === null) {
    throw new AppError('collection_not_found', 'The collection is not registered on this deployment');
  }
  const chain = chainClient(config);
  // The registry's answer is read beside the owned list's first reads; an error of the list wins.
  const [owned, incoming] = await Promise.allSettled([listOwnedTokens({ chain }, collection, wallet), incomingDelegations(chain, wallet)]);
  if (owned.status === 'rejected') throw owned.reason;
  if (incoming.status === 'rejected') throw incoming.reason;
  const { multicall, enumerable } = owned.value;
  const delegated = await listDelegatedTokens(chain, multicall, collection, wallet, incoming.value, enumerable, OWNED_TOKENS_MAX);
  return c.json(
    {
      collection,
      owner: wallet,
      enumerable,
      tokens: owned.value.tokenIds.map((id) => ({ tokenId: id.toString() })),
      truncated: owned.value.truncated,
      delegated: delegated.tokens.map((t) => ({ tokenId: t.tokenId.toString(), owner: t.owner })),
      delegatedTruncated: delegated.truncated,
    },
    200,
  );
};

export const listCollectionsHandler: RouteHandler<typeof routes.listCollections, AppBindings> = async (c) => {
  const { config, db } = c.var;
  return c.json(await listCollections({ db, chainId: config.chainId }), 200);
};
