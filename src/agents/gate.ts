import type { MiddlewareHandler } from 'hono';
import { chainClient } from '../chain/client';
import { AppError } from '../errors';
import type { AppBindings } from '../types';
import { AgentParamsSchema } from './identity';
import { ownerOf } from './ownership';
import { collectionKind } from './registry';

/**
 * Gates 2 and 3 of every `/agent/{agentCollectionAddress}/{agentTokenId}/...` route (after
 * `bearer()`): the path names a registered collection and a valid token id (400/404), and the
 * token's current on-chain owner is the caller (404 missing token, 403 another owner, 503 RPC down).
 */
export function agentGate(): MiddlewareHandler<AppBindings> {
  return async function agentGateMiddleware(c, next) {
    const parsed = AgentParamsSchema.safeParse({
      agentCollectionAddress: c.req.param('agentCollectionAddress'),
      agentTokenId: c.req.param('agentTokenId'),
    });
    if (!parsed.success) {
      throw new AppError('validation_failed', 'Invalid agent identity in the path', {
        details: {
          issues: parsed.error.issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message })),
        },
      });
    }
    const { config, db, wallet } = c.var;
    const collection = parsed.data.agentCollectionAddress;
    const tokenId = parsed.data.agentTokenId;
    // The registry (Postgres) and the owner (chain) are independent: ask both at once.
    const [kind, owner] = await Promise.all([
      collectionKind(db, config.chainId, collection),
      ownerOf(chainClient(config), collection, tokenId),
    ]);
    if (kind === null || owner === null) throw new AppError('agent_not_found', 'Agent not found');
    if (owner.toLowerCase() !== wallet.toLowerCase()) {
      throw new AppError('not_owner', 'You are not the owner of this agent');
    }
    c.set('agent', { chainId: config.chainId, collection, tokenId, kind, owner });
    await next();
  };
}
