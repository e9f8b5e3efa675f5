/**
 * An OAuth connection's tokens in the vault: one entry (JSON of the access and refresh tokens),
 * bound to the wallet that authorized, named by `mcp_connections.token_entry`. A new entry
 * replaces the one the caller started from only if it is still the connection's (compare and
 * set), so two isolates refreshing at once leave the latest rotation stored, never a mix.
 */
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Agent } from '../../identity/agent';
import { agentRef } from '../../storage/agent-rows';
import { databaseError } from '../../storage/db';
import { mcpConnections } from '../../storage/schema';
import { deleteSecret, readSecret, storeSecret } from '../../vault/store';
import type { McpDeps } from '../tool-session';
import { credentialRecord, type Row } from '../connection-view';
import type { OAuthState, StoredTokens } from './types';

export const tokensRecord = (id: string) => `mcp_oauth_tokens:${id}`;

/** The tokens the current owner stored for the connection; undefined: none of theirs (not authorized, or another wallet's). */
export async function readTokens(deps: McpDeps, agent: Agent, row: Pick<Row, 'id' | 'tokenEntry'>): Promise<StoredTokens | undefined> {
  if (row.tokenEntry === null) return undefined;
  const read = await readSecret(
    deps.db.orm,
    await deps.ring(),
    agentRef(agent),
    { record: tokensRecord(row.id), wallet: agent.owner },
    row.tokenEntry,
  ).catch((err: unknown) => {
    throw databaseError(err);
  });
  if (read.state !== 'open') return undefined;
  try {
    const parsed = JSON.parse(read.secret) as StoredTokens;
    return typeof parsed.accessToken === 'string' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Stores `tokens` for `wallet` in place of the entry `from` (null: none) and merges `patch` into
 * the connection's OAuth state. False when another request replaced `from` first: nothing changed.
 */
export async function saveTokens(
  deps: McpDeps,
  agent: Agent,
  wallet: string,
  connectionId: string,
  from: string | null,
  tokens: StoredTokens,
  patch: Partial<OAuthState>,
  more: Partial<typeof mcpConnections.$inferInsert> = {},
): Promise<{ saved: boolean; entry: string }> {
  const ring = await deps.ring();
  const ref = agentRef(agent);
  try {
    return await deps.db.orm.transaction(async (tx) => {
      const entry = await storeSecret(tx, ring, ref, { record: tokensRecord(connectionId), wallet }, JSON.stringify(tokens));
      const updated = await tx
        .update(mcpConnections)
        .set({ tokenEntry: entry, oauth: sql`coalesce(${mcpConnections.oauth}, '{}'::jsonb) || ${JSON.stringify(patch)}::jsonb`, ...more })
        .where(
          and(eq(mcpConnections.id, connectionId), from === null ? isNull(mcpConnections.tokenEntry) : eq(mcpConnections.tokenEntry, from)),
        )
        .returning({ id: mcpConnections.id });
      if (updated.length !== 1) {
        await deleteSecret(tx, entry);
        return { saved: false, entry };
      }
      if (from !== null) await deleteSecret(tx, from);
      return { saved: true, entry };
    });
  } catch (err) {
    throw databaseError(err);
  }
}

/** Forgets the tokens of `from` (a refused refresh): the connection needs authorizing again. False when they were replaced meanwhile. */
export async function dropTokens(deps: McpDeps, connectionId: string, from: string): Promise<boolean> {
  try {
    return await deps.db.orm.transaction(async (tx) => {
      const updated = await tx
        .update(mcpConnections)
        .set({ tokenEntry: null })
        .where(and(eq(mcpConnections.id, connectionId), eq(mcpConnections.tokenEntry, from)))
        .returning({ id: mcpConnections.id });
      if (updated.length !== 1) return false;
      await deleteSecret(tx, from);
      return true;
    });
  } catch (err) {
    throw databaseError(err);
  }
}

/** The connection's token entry now (another isolate may have refreshed since the caller read it). */
export async function currentTokenEntry(
  deps: McpDeps,
  connectionId: string,
): Promise<{ tokenEntry: string | null; oauth: unknown } | undefined> {
  try {
    const [row] = await deps.db.orm
      .select({ tokenEntry: mcpConnections.tokenEntry, oauth: mcpConnections.oauth })
      .from(mcpConnections)
      .where(eq(mcpConnections.id, connectionId))
      .limit(1);
    return row;
  } catch (err) {
    throw databaseError(err);
  }
}

/** The pre-registered or dynamically registered client's secret, when the connection has one and it opens for the owner. */
export async function readClientSecret(deps: McpDeps, agent: Agent, row: Pick<Row, 'id' | 'secretEntry'>): Promise<string | undefined> {
  if (row.secretEntry === null) return undefined;
  const read = await readSecret(
    deps.db.orm,
    await deps.ring(),
    agentRef(agent),
    { record: credentialRecord(row.id), wallet: agent.owner },
    row.secretEntry,
  );
  return read.state === 'open' ? read.secret : undefined;
}
