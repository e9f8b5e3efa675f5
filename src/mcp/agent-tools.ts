import type { Agent } from '../agents/agent';
import { agentRef, ofAgent } from '../storage/agent-rows';
import { databaseError } from '../storage/db';
import { mcpConnections } from '../storage/schema';
import { registeredBy } from './connection-view';
import type { McpDeps } from './connections.service';
import type { Tool } from './types';

/** The tools of one connection, as registered (the snapshot `callTool` checks arguments against). */
export interface ConnectionTools {
  connectionId: string;
  name: string | null;
  tools: Tool[];
}

/**
 * The tools an agent's current owner can call, by connection, from the registration snapshots
 * (no network): connections registered by another wallet are left out, as `callTool` would
 * refuse them (409). Oldest connection first, so tool naming is stable.
 */
export async function agentTools(deps: Pick<McpDeps, 'db'>, agent: Agent): Promise<ConnectionTools[]> {
  let rows: (typeof mcpConnections.$inferSelect)[];
  try {
    rows = await deps.db.orm
      .select()
      .from(mcpConnections)
      .where(ofAgent(mcpConnections, agentRef(agent)))
      .orderBy(mcpConnections.createdAt, mcpConnections.id);
  } catch (err) {
    throw databaseError(err);
  }
  return rows
    .filter((row) => registeredBy(row, agent.owner))
    .map((row) => ({ connectionId: row.id, name: row.name, tools: row.tools as Tool[] }));
}
