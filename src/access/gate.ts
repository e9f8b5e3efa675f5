import type { Context, MiddlewareHandler } from 'hono';
import type { Address } from 'viem';
import { chainClient } from '../chain/client';
import { AppError } from '../errors';
import type { AppBindings } from '../types';
import { settleKeyUse, verifyAgentKey } from '../keys/verify';
import { type AgentIdentity, AgentParamsSchema } from '../identity/identity';
import type { AgentActor } from '../identity/agent';
import { collectionKind } from '../agents/registry';
import { checkCaller, type CallerVerdict } from './caller';

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
  /**
   * The level a delegate or a renter needs for this request (src/access/roles.ts); undefined: the
   * owner's alone.
   */
  accessNeeded: (c: Context<AppBindings>) => 'use' | 'admin' | undefined;
}

/**
 * Gates 2 and 3 of every `/agent/{agentCollectionAddress}/{agentTokenId}/...` route (after
 * `bearer()`): the path names a registered collection and a valid token id (400/404), and the
 * caller is the token's current on-chain owner, or the owner's delegate or the token's renter with
 * the owner's leave for this route (404 missing token, 403 anyone else, 503 RPC down): one eth_call.
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
    // The chain is asked first and the registry (usually cached) meanwhile.
    let verdict: CallerVerdict | undefined;
    const ownerCheck = checkCaller({
      chain: chainClient(config),
      db,
      identity,
      wallet: agentKey ? undefined : c.var.wallet,
      key,
      needed: options.accessNeeded(c),
    }).then((found) => {
      verdict = found;
      c.set('wallet', found.wallet);
      c.set('role', found.role);
      if (found.level !== undefined) c.set('accessLevel', found.level);
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
      await key; // a bad agent key is 401/403 before anything is said about the agent
      throw new AppError('agent_not_found', 'Agent not found');
    }
    // The on-chain owner and, for a delegate or a renter, who acted: known once the check passed.
    const passed = (): CallerVerdict => {
      if (verdict === undefined) throw new Error('agent.owner read before the owner check passed');
      return verdict;
    };
    c.set('agent', {
      ...identity,
      kind,
      get owner(): Address {
        return passed().owner;
      },
      get actor(): AgentActor | undefined {
        const found = passed();
        return found.role === 'owner' ? undefined : { wallet: found.wallet, via: found.role };
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
