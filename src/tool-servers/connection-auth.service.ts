/**
 * Entering a connection's credential again (`PUT …/mcp/connection/{id}/auth`): how the new owner
 * of an agent replaces the earlier owner's credential, which is never used for them,
 * and how any owner rotates theirs.
 */
import { and, eq } from 'drizzle-orm';
import type { Agent } from '../identity/agent';
import { auditChange } from '../audit/entry';
import { AppError } from '../errors';
import { databaseError } from '../storage/db';
import { mcpConnections } from '../storage/schema';
import { walletKey } from '../vault/owner';
import { agentRef, ofAgent } from '../storage/agent-rows';
import { deleteSecret, storeSecret } from '../vault/store';
import { checkAuthInput, clientAuth, credentialRecord, registeredBy, view, type AuthInput, type ConnectionView } from './connection-view';
import { findConnection, oauthDepsOf } from './connections.service';
import { authorizeUrlIfShown, prepareOAuth } from './oauth/flow';
import { connectionTimeout, inspectToolServer, type McpDeps } from './tool-session';
import { canonicalToolServerUrl } from './url';

/**
 * Replaces the connection's credential with one the current owner enters. As at registration, the
 * stored URL must pass the outbound policy in force, the handshake and tools/list run with the
 * credential first (a rejected credential is 400 and changes nothing) and the refreshed tools
 * snapshot must fit the limits; then the new credential goes to the vault, bound to the current
 * owner, the old one is destroyed, and the current owner is recorded as the connection's
 * registrant (which confirms, for a new owner, a connection an earlier owner registered).
 * `{ type: 'none' }` removes the credential.
 */
export async function replaceConnectionAuth(
  deps: McpDeps,
  agent: Agent,
  id: string,
  input: { auth: AuthInput; url?: string | undefined; timeoutMs?: number | undefined },
): Promise<ConnectionView> {
  checkAuthInput(input.auth);
  const auth = input.auth;
  const row = await findConnection(deps, agent, id);
  // The policy may be stricter now than when the URL was stored (a local-stack URL, a newer rule).
  const allowed = canonicalToolServerUrl(row.url, deps.outbound);
  if (!allowed.ok) throw new AppError('invalid_tool_server_url', allowed.message, { details: { reason: allowed.reason } });
  if (!registeredBy(row, agent.owner) && !sameUrl(input.url, allowed.url, deps)) {
    // A URL can carry a key in its path or query: whoever did not register the connection sees
    // its origin only, and takes it over only by proving they know the whole URL already.
    throw new AppError(
      'credential_reentry_required',
      'This connection was registered by another wallet: send its full URL as `url` with the credential, or delete it and register your own',
    );
  }
  const timeoutMs = input.timeoutMs ?? row.timeoutMs;
  // OAuth: discovery again, and no tools until the owner authorized (the earlier tokens are destroyed).
  const prepared = auth.type === 'oauth' ? await prepareOAuth(oauthDepsOf(deps), row.url, auth) : undefined;
  const checked =
    auth.type === 'oauth'
      ? { tools: [], session: undefined }
      : await inspectToolServer(deps, row.url, clientAuth(auth), connectionTimeout(deps, { timeoutMs }));
  const secret = auth.type === 'oauth' ? prepared?.clientSecret : auth.type === 'none' ? undefined : auth.value;

  const ref = agentRef(agent);
  const ring = secret === undefined ? undefined : await deps.ring();
  try {
    const saved = await deps.db.orm.transaction(async (tx) => {
      const [current] = await tx
        .select()
        .from(mcpConnections)
        .where(and(ofAgent(mcpConnections, ref), eq(mcpConnections.id, id)))
        .for('update')
        .limit(1);
      if (!current) throw new AppError('mcp_connection_not_found', 'MCP connection not found');
      const secretEntry =
        secret === undefined || !ring
          ? null
          : await storeSecret(tx, ring, ref, { record: credentialRecord(id), wallet: agent.owner }, secret);
      const [updated] = await tx
        .update(mcpConnections)
        .set({
          authType: auth.type,
          headerName: auth.type === 'header' ? auth.headerName : null,
          secretEntry,
          tools: checked.tools,
          createdByWallet: walletKey(agent.owner),
          timeoutMs,
          // The session opened with the new credential replaces the old one.
          sessionId: checked.session?.id ?? null,
          protocolVersion: checked.session?.protocolVersion ?? null,
          oauth: prepared?.state ?? null,
          tokenEntry: null,
        })
        .where(eq(mcpConnections.id, id))
        .returning();
      if (current.secretEntry) await deleteSecret(tx, current.secretEntry);
      if (current.tokenEntry) await deleteSecret(tx, current.tokenEntry);
      await auditChange(tx, agent, 'mcp_credentials.set', { connectionId: id });
      return updated!;
    });
    const shown = view(saved, walletKey(agent.owner), agent.owner, connectionTimeout(deps, {}));
    const url = prepared ? await authorizeUrlIfShown(oauthDepsOf(deps), agent, saved) : undefined;
    return url === undefined ? shown : { ...shown, authorizeUrl: url };
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw databaseError(err);
  }
}

/** Whether `given` names the stored URL (both in canonical form); a refused or absent one never does. */
function sameUrl(given: string | undefined, stored: string, deps: McpDeps): boolean {
  if (given === undefined) return false;
  const canonical = canonicalToolServerUrl(given, deps.outbound);
  return canonical.ok && canonical.url === stored;
}
