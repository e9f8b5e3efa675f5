import { and, asc, count, eq, isNull, ne, sql } from 'drizzle-orm';
import type { Address } from 'viem';
import type { Agent } from '../identity/agent';
import { auditChange } from '../audit/entry';
import { AppError } from '../errors';
import { agentRef, ofAgent } from '../storage/agent-rows';
import { databaseError, type Database } from '../storage/db';
import { agentKeys } from '../storage/schema';
import type { KeyScope } from './scopes';
import { hashAgentKey, newAgentKey } from './secret';

/** A key as listed: never the key itself. */
export interface AgentKeyView {
  id: string;
  name: string;
  scopes: KeyScope[];
  /** The MCP tools the key may list and call; null: every tool. */
  tools: string[] | null;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  useCount: number;
  limits: { tokensPerDay: number | null };
}

/** The answer to a create: the only time the key is shown. */
export interface CreatedAgentKey {
  id: string;
  key: string;
  name: string;
  scopes: KeyScope[];
  tools: string[] | null;
  createdAt: string;
  expiresAt: string | null;
  limits: { tokensPerDay: number | null };
}

export interface NewAgentKey {
  name: string;
  scopes: KeyScope[];
  /** Scope `mcp`: the tools of the agent's MCP server the key may use; absent: every tool. */
  tools?: string[] | undefined;
  expiresInSeconds?: number | undefined;
  /** The key's own daily token limit; absent or null: none. */
  limits?: { tokensPerDay?: number | null | undefined } | undefined;
}

/** Live keys one agent may have at once (abuse control; revoke one to make room). */
export const MAX_LIVE_KEYS = 100;

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

function toView(row: typeof agentKeys.$inferSelect): AgentKeyView {
  return {
    id: row.id,
    name: row.name,
    scopes: row.scopes as KeyScope[],
    tools: row.tools,
    createdAt: row.createdAt.toISOString(),
    expiresAt: iso(row.expiresAt),
    lastUsedAt: iso(row.lastUsedAt),
    useCount: row.useCount,
    limits: { tokensPerDay: row.tokensPerDay },
  };
}

/**
 * Revokes the live keys of `agent` an owner made, but `owner` (its current owner, proved by the
 * gate): keys of an earlier owner never serve again, even if the agent comes back to that wallet.
 * Keys a delegate made are left alone: the gate lets each serve only while its maker is a delegate
 * of the current owner. Runs whenever keys are managed, beside the revoke-on-sight of the gate
 * (src/keys/verify.ts).
 */
async function revokeEarlierOwnersKeys(db: Pick<Database['orm'], 'update'>, agent: Agent, owner: Address): Promise<void> {
  await db
    .update(agentKeys)
    .set({ revokedAt: sql`now()`, revokedReason: 'owner_changed' })
    .where(
      and(
        ofAgent(agentKeys, agentRef(agent)),
        ne(agentKeys.createdByWallet, owner.toLowerCase()),
        isNull(agentKeys.createdVia),
        isNull(agentKeys.revokedAt),
      ),
    );
}

/** Who makes a key: the owner, or the owner's delegate (with the owner's `admin` leave). */
export interface KeyMaker {
  wallet: Address;
  via: 'delegate' | null;
}

/**
 * Creates a key for `agent` acting for its maker, with its audit entry; returns it once. Only its
 * SHA-256 is stored. `agent.owner` is the current owner (whose earlier owners' keys are revoked).
 */
export async function createAgentKey(db: Database, agent: Agent, maker: KeyMaker, input: NewAgentKey): Promise<CreatedAgentKey> {
  const owner = agent.owner;
  const key = newAgentKey();
  const keyHash = await hashAgentKey(key);
  const scopes = [...new Set(input.scopes)];
  const tools = input.tools === undefined ? null : [...new Set(input.tools)];
  try {
    const created = await db.orm.transaction(async (tx) => {
      await revokeEarlierOwnersKeys(tx, agent, owner);
      const [live] = await tx
        .select({ n: count() })
        .from(agentKeys)
        .where(and(ofAgent(agentKeys, agentRef(agent)), isNull(agentKeys.revokedAt)));
      if ((live?.n ?? 0) >= MAX_LIVE_KEYS) {
        throw new AppError('agent_key_limit', `An agent has at most ${MAX_LIVE_KEYS} live keys; revoke one first`);
      }
      const [row] = await tx
        .insert(agentKeys)
        .values({
          id: crypto.randomUUID(),
          ...agentRef(agent),
          keyHash,
          name: input.name,
          scopes,
          tools,
          createdByWallet: maker.wallet.toLowerCase(),
          createdVia: maker.via,
          actingForWallet: maker.via === 'delegate' ? owner.toLowerCase() : null,
          expiresAt: input.expiresInSeconds === undefined ? null : sql`now() + make_interval(secs => ${input.expiresInSeconds})`,
          tokensPerDay: input.limits?.tokensPerDay ?? null,
        })
        .returning();
      await auditChange(tx, agent, 'agent_key.create', { keyId: row!.id });
      return row!;
    });
    return {
      id: created.id,
      key,
      name: created.name,
      scopes,
      tools,
      createdAt: created.createdAt.toISOString(),
      expiresAt: iso(created.expiresAt),
      limits: { tokensPerDay: created.tokensPerDay },
    };
  } catch (err) {
    throw databaseError(err);
  }
}

/** The agent's live keys (not revoked; expired ones included, with their expiry), oldest first. */
export async function listAgentKeys(db: Database, agent: Agent, owner: Address): Promise<AgentKeyView[]> {
  try {
    await revokeEarlierOwnersKeys(db.orm, agent, owner);
    const rows = await db.orm
      .select()
      .from(agentKeys)
      .where(and(ofAgent(agentKeys, agentRef(agent)), isNull(agentKeys.revokedAt)))
      .orderBy(asc(agentKeys.createdAt), asc(agentKeys.id));
    return rows.map(toView);
  } catch (err) {
    throw databaseError(err);
  }
}

/** Revokes key `id` of the agent at once (the next request with it is 401 `key_revoked`). */
export async function revokeAgentKey(db: Database, agent: Agent, owner: Address, id: string): Promise<{ id: string; revokedAt: string }> {
  let row: { id: string; revokedAt: Date | null } | undefined;
  try {
    row = await db.orm.transaction(async (tx) => {
      await revokeEarlierOwnersKeys(tx, agent, owner);
      const [revoked] = await tx
        .update(agentKeys)
        .set({ revokedAt: sql`now()`, revokedReason: 'owner' })
        .where(and(ofAgent(agentKeys, agentRef(agent)), eq(agentKeys.id, id), isNull(agentKeys.revokedAt)))
        .returning({ id: agentKeys.id, revokedAt: agentKeys.revokedAt });
      if (revoked) await auditChange(tx, agent, 'agent_key.revoke', { keyId: id });
      return revoked;
    });
  } catch (err) {
    throw databaseError(err);
  }
  if (!row?.revokedAt) throw new AppError('agent_key_not_found', 'No live agent key with this id');
  return { id: row.id, revokedAt: row.revokedAt.toISOString() };
}
