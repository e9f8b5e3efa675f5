/**
 * `whoami`'s agents: with a collection named, the logged-in wallet's role (owner, delegate,
 * renter) for each agent it knows of there, as the gateway answers it (`GET /agent`'s `role`).
 */
import type { AgentRole } from '../client/types';
import { GatewayError } from '../client/errors';
import { checksummed, type Io, UsageError } from './output';
import { gatewayFailure, type GlobalValues, openSession } from './session';

/** The most agents whoami asks about (one request each). */
export const WHOAMI_AGENTS_MAX = 20;

/** One agent's answer: the role and the owner, or why the wallet cannot reach it. */
export type AgentRoleLine =
  | { collection: string; tokenId: string; role: AgentRole; owner: string }
  | { collection: string; tokenId: string; role: null; error: { status: number; code: string; message: string } };

/** The collection and token id from the flags or the environment, checked; none when no collection is named. */
export function namedAgents(values: GlobalValues, env: NodeJS.ProcessEnv): { collection: string; tokenId?: string } | undefined {
  const collection = values.collection || env.AGENT_COLLECTION;
  const tokenId = values['token-id'] || env.AGENT_TOKEN_ID;
  if (!collection) return undefined;
  if (!/^0x[0-9a-fA-F]{40}$/.test(collection))
    throw new UsageError(`--collection must be 0x + 40 hex, got ${JSON.stringify(collection.slice(0, 60))}`);
  if (tokenId !== undefined && tokenId !== '' && !/^(0|[1-9]\d*)$/.test(tokenId))
    throw new UsageError(`--token-id must be a decimal number without sign or leading zeros, got ${JSON.stringify(tokenId.slice(0, 90))}`);
  return tokenId ? { collection, tokenId } : { collection };
}

/**
 * The wallet's role for the named agent, or, with a collection only, for each agent it owns or may
 * use as a delegate there (the wallet's listing; at most WHOAMI_AGENTS_MAX, `more` counts the rest).
 */
export async function agentRoles(
  values: GlobalValues,
  env: NodeJS.ProcessEnv,
  io: Io,
  named: { collection: string; tokenId?: string },
): Promise<{ agents: AgentRoleLine[]; more: number }> {
  const session = await openSession(values, env, io, { agentKey: false });
  let ids: string[];
  if (named.tokenId) ids = [named.tokenId];
  else {
    try {
      const listing = await session.client.listOwnedTokens(named.collection);
      ids = [...new Set([...listing.tokens, ...listing.delegated].map((t) => t.tokenId))];
    } catch (err) {
      gatewayFailure(err, 'listing your agents');
    }
  }
  const asked = ids.slice(0, WHOAMI_AGENTS_MAX);
  const agents = await Promise.all(
    asked.map(async (tokenId): Promise<AgentRoleLine> => {
      try {
        const agent = await session.client.agent(named.collection, tokenId).getAgent();
        return { collection: agent.agentCollectionAddress, tokenId, role: agent.role, owner: checksummed(agent.owner) };
      } catch (err) {
        if (!(err instanceof GatewayError) || err.status === 401 || err.status === 0 || err.status >= 500)
          gatewayFailure(err, 'asking for the agent');
        return { collection: named.collection, tokenId, role: null, error: { status: err.status, code: err.code, message: err.message } };
      }
    }),
  );
  return { agents, more: ids.length - asked.length };
}

/** `agent       0x…/7  delegate of 0x…`: one line per agent, for whoami's text output. */
export function printRoles(io: Io, result: { agents: AgentRoleLine[]; more: number }, collection: string): void {
  if (result.agents.length === 0) io.out(`agents      none of ${collection} (neither owned nor delegated to this wallet)`);
  for (const a of result.agents) {
    const where = `${a.collection}/${a.tokenId}`;
    if (a.role === null) io.out(`agent       ${where}  no access (${a.error.code}: ${a.error.message})`);
    else io.out(`agent       ${where}  ${a.role === 'owner' ? 'owner' : `${a.role} of ${a.owner}`}`);
  }
  if (result.more > 0) io.out(`agents      ${result.more} more not asked about (name one with --token-id)`);
}
