import type { Context, MiddlewareHandler } from 'hono';
import type { Address, PublicClient } from 'viem';
import { chainClient } from '../chain/client';
import { AppError } from '../errors';
import type { AppBindings } from '../types';
import { settleKeyUse, verifyAgentKey } from '../keys/verify';
import { type AgentIdentity, AgentParamsSchema } from '../identity/identity';
import { ownerOf } from '../agents/ownership';
import { collectionKind } from '../agents/registry';

export interface AgentGateOptions {
  /**
   * True for the requests whose handlers may start their storage work while the owner check is
   * still on its way (a read then costs max(RPC, DB), a write RPC + DB; docs/architecture.md#a-requests-way-through). Such a handler
   * awaits `c.var.ownerCheck` before it commits anything, and its answer leaves only after the
   * check passed: a failed check replaces it. Every other route runs after the check.
   */
  overlapsOwnerCheck: (c: Context<AppBindings>) => boolean;
  /**
   * Runs once an agent key is known to be this agent's, before the request may go on (the app
   * counts it against the budget all the agent's keys share); its failure refuses the request.
   */
  onAgentKey?: (c: Context<AppBindings>, agent: AgentIdentity) => Promise<void>;
}

/**
 * Gates 2 and 3 of every `/agent/{agentCollectionAddress}/{agentTokenId}/...` route (after
 * `bearer()`): the path names a registered collection and a valid token id (400/404), and the
 * token's current on-chain owner is the caller (404 missing token, 403 another owner, 503 RPC down).
 */
export function agentGate(options: AgentGateOptions): MiddlewareHandler<AppBindings> {
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
    const { config, db, agentKey } = c.var;
    const collection = parsed.data.agentCollectionAddress;
    const tokenId = parsed.data.agentTokenId;
    const identity = { chainId: config.chainId, collection, tokenId };
    // An agent key is looked up beside the owner check, never before it (src/keys/verify.ts); a
    // genuine key of this agent then counts against the budget all its keys share.
    const key = agentKey
      ? verifyAgentKey(db, agentKey, identity).then(async (verified) => {
          c.set('agentKeyScopes', verified.scopes);
          c.set('agentKeyUse', { id: verified.id, tokensPerDay: verified.tokensPerDay, tools: verified.tools });
          await options.onAgentKey?.(c, identity);
          return verified;
        })
      : undefined;
    const caller = key ? key.then((k) => k.wallet) : Promise.resolve(c.var.wallet);
    // The owner (chain) is asked first and the registry (usually cached) meanwhile.
    let owner: Address | undefined = agentKey ? undefined : c.var.wallet;
    const ownerCheck = checkOwner(chainClient(config), collection, tokenId, caller).then((wallet) => {
      owner = wallet;
      c.set('wallet', wallet);
    });
    ownerCheck.catch(() => undefined); // awaited below; never an unhandled rejection meanwhile
    if (key) c.executionCtx.waitUntil(settleKeyUse(db, key, ownerCheck));
    let kind: string | null;
    try {
      kind = await collectionKind(db, config.chainId, collection);
    } catch (err) {
      // A chain verdict (404/403) outranks a database fault, as when both were awaited together.
      await ownerCheck;
      throw err;
    }
    if (kind === null) {
      await caller; // a bad agent key is 401/403 before anything is said about the agent
      throw new AppError('agent_not_found', 'Agent not found');
    }
    // If the check passes, the owner is the caller: that is what it checks.
    c.set('agent', {
      ...identity,
      kind,
      get owner(): Address {
        if (owner === undefined) throw new Error('agent.owner read before the owner check passed');
        return owner;
      },
    });
    c.set('ownerCheck', ownerCheck);
    if (!options.overlapsOwnerCheck(c)) {
      await ownerCheck;
      await next();
      return;
    }
    // A refused caller is answered as soon as the check fails, not when the handler's read ends:
    // how long a refusal takes must not tell a stranger how much the agent holds (issue 18). The
    // abandoned handler commits nothing (writes await the check); its outcome is dropped, and its
    // database statements are cancelled: each then fails with the check's own error, so a stranger
    // cannot make the gateway read a large context to its end either.
    const abandon = new AbortController();
    ownerCheck.catch((err: unknown) => abandon.abort(err));
    c.set('db', db.withSignal(abandon.signal));
    const handler = next();
    handler.catch(() => undefined);
    await Promise.race([handler, ownerCheck.then(() => handler)]);
    // Whatever the handler answered (data, 404, a fault), a failed check answers instead, unless
    // the handler already answered with the check's own error.
    try {
      await ownerCheck;
    } catch (err) {
      if (c.error !== err) throw err;
    }
  };
}

/**
 * The token's current owner must be the caller: the token's wallet, or the wallet that made the
 * agent key (whose own verdict, 401/403, comes first). Both are asked at once. Resolves to it.
 */
async function checkOwner(chain: PublicClient, collection: Address, tokenId: bigint, caller: Promise<Address>): Promise<Address> {
  const current = ownerOf(chain, collection, tokenId);
  current.catch(() => undefined); // awaited below, after the caller's verdict
  const wallet = await caller;
  const owner = await current;
  if (owner === null) throw new AppError('agent_not_found', 'Agent not found');
  if (owner.toLowerCase() !== wallet.toLowerCase()) throw new AppError('not_owner', 'You are not the owner of this agent');
  return wallet;
}
