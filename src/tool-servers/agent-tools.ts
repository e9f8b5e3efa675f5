import { and, eq } from 'drizzle-orm';
import type { Agent } from '../identity/agent';
import { agentRef, ofAgent } from '../storage/agent-rows';
import { databaseError } from '../storage/db';
import { mcpConnections, vaultEntries } from '../storage/schema';
import type { VaultEntry } from '../vault/store';
import { registeredBy, type Row } from './connection-view';
import type { McpDeps } from './connections.service';
import type { Tool } from './types';

/** The tools of one connection, as registered (the snapshot `callTool` checks arguments against). */
export interface ConnectionTools {
  connectionId: string;
  name: string | null;
  tools: Tool[];
  /** The connection as read, for calls that reuse it (`callConnectionTool`) instead of reading it again. */
  row: Row;
  /** Its credential's vault entry, read but not opened (`connectionAuth` opens it after the owner check). */
  entry: VaultEntry | null;
}

/**
 * The tools of the agent's connections, by connection, from the registration snapshots (no
 * network), with each credential's entry in the same statement; opens nothing and reads no owner,
 * so it may run while the owner check is on its way (then `usableBy` picks the owner's). Oldest
 * connection first, so tool naming is stable.
 */
export async function agentTools(deps: Pick<McpDeps, 'db'>, agent: Agent): Promise<ConnectionTools[]> {
  const ref = agentRef(agent);
  let rows: { connection: Row; entry: VaultEntry | null }[];
  try {
    rows = await deps.db.reads
      .select({ connection: mcpConnections, entry: vaultEntries })
      .from(mcpConnections)
      .leftJoin(vaultEntries, and(eq(vaultEntries.id, mcpConnections.secretEntry), ofAgent(vaultEntries, ref)))
      .where(ofAgent(mcpConnections, ref))
      .orderBy(mcpConnections.createdAt, mcpConnections.id);
  } catch (err) {
    throw databaseError(err);
  }
  return rows.map(({ connection, entry }) => ({
    connectionId: connection.id,
    name: connection.name,
    tools: connection.tools as Tool[],
    row: connection,
    entry,
  }));
}

/**
 * The connections the agent's current owner can call (after the owner check): those registered by
 * another wallet are left out, as `callTool` would refuse them (409).
 */
export function usableBy(connections: readonly ConnectionTools[], owner: string): ConnectionTools[] {
  return connections.filter(({ row }) => registeredBy(row, owner));
}
