/**
 * Entering a connection's credential again (`PUT …/mcp/connection/{id}/auth`): how the new owner
 * of an agent replaces the earlier owner's credential, which is never used for them (DESIGN §8),
 * and how any owner rotates theirs.
 */
import { and, eq } from 'drizzle-orm';
import type { Agent } from '../agents/agent';
import { AppError } from '../errors';
import { databaseError } from '../storage/db';
import { mcpConnections } from '../storage/schema';
import { walletKey } from '../vault/owner';
import { agentRef, ofAgent } from '../storage/agent-rows';
import { deleteSecret, storeSecret } from '../vault/store';
import { checkToolServer, createMcpClient } from './client';
import { checkAuthInput, clientAuth, credentialRecord, findConnection, view, type AuthInput, type ConnectionView, type McpDeps } from './connections.service';
import { toolServerError } from './errors';

/**
 * Replaces the connection's credential with one the current owner enters. As at registration, the
 * handshake and tools/list run with it first (a rejected credential is 400 and changes nothing)
 * and the tools snapshot is refreshed; then the new credential goes to the vault, bound to the
 * current owner, and the old one is destroyed. `{ type: 'none' }` removes the credential.
 */
export async function replaceConnectionAuth(deps: McpDeps, agent: Agent, id: string, input: { auth: AuthInput }): Promise<ConnectionView> {
  checkAuthInput(input.auth);
  const row = await findConnection(deps, agent, id);
  const client = createMcpClient({ url: row.url, auth: clientAuth(input.auth), fetch: deps.fetch, timeoutMs: deps.timeoutMs });
  const checked = await checkToolServer(client);
  await client.close();
  if (!checked.ok) throw toolServerError(checked.error, 'register');

  const ref = agentRef(agent);
  const auth = input.auth;
  const ring = auth.type === 'none' ? undefined : await deps.ring();
  try {
    const saved = await deps.db.orm.transaction(async (tx) => {
      const [current] = await tx.select().from(mcpConnections).where(and(ofAgent(mcpConnections, ref), eq(mcpConnections.id, id))).for('update').limit(1);
      if (!current) throw new AppError('mcp_connection_not_found', 'MCP connection not found');
      const secretEntry = auth.type === 'none' || !ring ? null : await storeSecret(tx, ring, ref, { record: credentialRecord(id), wallet: agent.owner }, auth.value);
      const [updated] = await tx
        .update(mcpConnections)
        .set({ authType: auth.type, headerName: auth.type === 'header' ? auth.headerName : null, secretEntry, tools: checked.tools })
        .where(eq(mcpConnections.id, id))
        .returning();
      if (current.secretEntry) await deleteSecret(tx, current.secretEntry);
      return updated!;
    });
    return view(saved, walletKey(agent.owner), agent.owner);
  } catch (err) {
    throw databaseError(err);
  }
}
