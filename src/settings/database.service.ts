import { and, eq, ne } from 'drizzle-orm';
import type { Agent } from '../identity/agent';
import { auditChange } from '../audit/entry';
import { AppError } from '../errors';
import { checkDatabaseTarget, type OutboundOptions } from '../net/outbound-policy';
import { databaseError, type Database } from '../storage/db';
import { databaseSetups, vaultEntries } from '../storage/schema';
import type { KeyRing } from '../vault/crypto';
import { credentialState, walletKey } from '../vault/owner';
import { agentRef, ofAgent } from '../storage/agent-rows';
import { deleteSecret, secretOwnerWallet, storeSecret } from '../vault/store';
import { listVisibleTables, type ExternalDatabase } from './external-db';

export interface DatabaseDeps {
  db: Database;
  ring: () => Promise<KeyRing>;
  /** Lists the tables of an external database (the real TCP connection in the worker). */
  listTables?: (target: ExternalDatabase) => Promise<string[]>;
  /** The outbound network policy (src/net): production's unless the local stack's switch is on. */
  outbound: OutboundOptions;
}

type Row = typeof databaseSetups.$inferSelect;

export interface SetupView {
  setupId: string;
  host: string;
  port: number;
  database: string;
  user: string;
  ssl: 'require' | 'disable';
  status: 'pending' | 'active';
  /** `set`: the password was entered by the agent's current owner; else `reenter_required` (run the first step again). */
  credential: 'set' | 'reenter_required';
  offeredTables: string[];
  activeTables: string[] | null;
  createdAt: string;
  activatedAt: string | null;
}

/** The setup as `currentOwner` sees it; `entryWallet` is who entered its password. */
function view(row: Row, entryWallet: string | null, currentOwner: string): SetupView {
  return {
    setupId: row.id,
    host: row.host,
    port: row.port,
    database: row.database,
    user: row.userName,
    ssl: row.ssl as SetupView['ssl'],
    status: row.status as SetupView['status'],
    credential: credentialState(true, row.passwordEntry === null ? null : entryWallet, currentOwner) === 'set' ? 'set' : 'reenter_required',
    offeredTables: row.offeredTables as string[],
    activeTables: (row.activeTables as string[] | null) ?? null,
    createdAt: row.createdAt.toISOString(),
    activatedAt: row.activatedAt?.toISOString() ?? null,
  };
}

/**
 * Step 1: check the target against the outbound policy (400 `database_target_refused` before any
 * connection), connect, list the visible tables, keep the connection (password in the vault) as
 * pending.
 */
export async function firstStep(
  deps: DatabaseDeps,
  agent: Agent,
  target: ExternalDatabase,
): Promise<{ setupId: string; tables: string[] }> {
  const allowed = checkDatabaseTarget(target, deps.outbound);
  if (!allowed.ok) {
    throw new AppError('database_target_refused', `Database target refused: ${allowed.message}`, { details: { reason: allowed.reason } });
  }
  const tables = await (deps.listTables ?? listVisibleTables)(target);
  const ref = agentRef(agent);
  const id = crypto.randomUUID();
  const ring = await deps.ring();
  try {
    await deps.db.orm.transaction(async (tx) => {
      const passwordEntry = await storeSecret(tx, ring, ref, { record: `database_setup:${id}`, wallet: agent.owner }, target.password);
      await tx.insert(databaseSetups).values({
        id,
        ...ref,
        host: target.host,
        port: target.port,
        database: target.database,
        userName: target.user,
        ssl: target.ssl,
        passwordEntry,
        offeredTables: tables,
        status: 'pending',
      });
      await auditChange(tx, agent, 'database.setup', { setupId: id });
    });
  } catch (err) {
    throw databaseError(err);
  }
  return { setupId: id, tables };
}

/**
 * Step 2: activate a subset of the tables step 1 offered; replaces any earlier active setup. Only
 * a setup whose password the current owner entered can be activated (409
 * `credential_reentry_required` for one of an earlier owner: run the first step again).
 */
export async function secondStep(deps: DatabaseDeps, agent: Agent, input: { setupId: string; tables: string[] }): Promise<SetupView> {
  const ref = agentRef(agent);
  try {
    const row = await deps.db.orm.transaction(async (tx) => {
      const [setup] = await tx
        .select()
        .from(databaseSetups)
        .where(and(ofAgent(databaseSetups, ref), eq(databaseSetups.id, input.setupId)))
        .for('update')
        .limit(1);
      if (!setup) throw new AppError('database_setup_not_found', 'Database setup not found: run the first step again');
      if (view(setup, await secretOwnerWallet(tx, setup.passwordEntry), agent.owner).credential !== 'set') {
        throw new AppError(
          'credential_reentry_required',
          "This setup's password was not entered by the agent's current owner: run the first step again",
          {
            details: { setupId: setup.id },
          },
        );
      }
      const offered = new Set(setup.offeredTables as string[]);
      const notOffered = input.tables.filter((t) => !offered.has(t));
      if (notOffered.length > 0) {
        throw new AppError('database_table_not_offered', `These tables were not offered by the first step: ${notOffered.join(', ')}`, {
          details: { tables: notOffered },
        });
      }
      const replaced = await tx
        .delete(databaseSetups)
        .where(and(ofAgent(databaseSetups, ref), eq(databaseSetups.status, 'active'), ne(databaseSetups.id, setup.id)))
        .returning();
      for (const old of replaced) if (old.passwordEntry) await deleteSecret(tx, old.passwordEntry);
      const [saved] = await tx
        .update(databaseSetups)
        .set({ status: 'active', activeTables: [...new Set(input.tables)], activatedAt: new Date() })
        .where(eq(databaseSetups.id, setup.id))
        .returning();
      await auditChange(tx, agent, 'database.activate', { setupId: setup.id });
      return saved!;
    });
    return view(row, walletKey(agent.owner), agent.owner); // checked above: the current owner's password
  } catch (err) {
    throw databaseError(err);
  }
}

/** The active setup and pending ones, without secrets. */
export async function databaseSettings(deps: DatabaseDeps, agent: Agent): Promise<{ active: SetupView | null; pending: SetupView[] }> {
  try {
    const rows = await deps.db.orm
      .select({ setup: databaseSetups, entryWallet: vaultEntries.ownerWallet })
      .from(databaseSetups)
      .leftJoin(vaultEntries, eq(vaultEntries.id, databaseSetups.passwordEntry))
      .where(ofAgent(databaseSetups, agentRef(agent)))
      .orderBy(databaseSetups.createdAt);
    const views = rows.map((r) => view(r.setup, r.entryWallet, agent.owner));
    return { active: views.find((v) => v.status === 'active') ?? null, pending: views.filter((v) => v.status === 'pending') };
  } catch (err) {
    throw databaseError(err);
  }
}
