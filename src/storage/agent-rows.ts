/**
 * How gateway tables name the agent a row belongs to: `(chain_id, collection, token_id)`, with the
 * collection lower-case and the token id in decimal.
 */
import { and, eq, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { getAddress } from 'viem';
import type { AgentIdentity } from '../identity/identity';

/** How gateway rows name their agent: chain, lower-case collection, decimal token id. */
export interface AgentRef {
  chainId: number;
  collection: string;
  tokenId: string;
}

export function agentRef(agent: AgentIdentity): AgentRef {
  return { chainId: agent.chainId, collection: agent.collection.toLowerCase(), tokenId: agent.tokenId.toString() };
}

/** The rows of one agent in a gateway table keyed by `(chain_id, collection, token_id)`. */
export function ofAgent(table: { chainId: PgColumn; collection: PgColumn; tokenId: PgColumn }, ref: AgentRef): SQL {
  return and(eq(table.chainId, ref.chainId), eq(table.collection, ref.collection), eq(table.tokenId, ref.tokenId))!;
}

/** `chainId:collection:tokenId`: the agent as one string (e.g. in the vault's additional data). */
export function agentRefText(ref: AgentRef): string {
  return `${ref.chainId}:${ref.collection}:${ref.tokenId}`;
}

/** The agent an `agentRefText` names (a row's `agent_ref`): the inverse of agentRefText(agentRef(agent)). */
export function agentOfRefText(text: string): AgentIdentity {
  const [chainId = '', collection = '', tokenId = ''] = text.split(':');
  return { chainId: Number(chainId), collection: getAddress(collection), tokenId: BigInt(tokenId) };
}
