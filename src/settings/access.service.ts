import type { AgentIdentity } from '../identity/identity';
import { agentRef, ofAgent } from '../storage/agent-rows';
import { databaseError, type Database } from '../storage/db';
import { llmSettings } from '../storage/schema';

/** The owner's choice (LLM settings' `access`) of what delegates and renters may do (src/access/roles.ts). */
export interface AgentAccessChoice {
  delegates: 'none' | 'use' | 'admin';
  renters: 'none' | 'use';
}

export const DEFAULT_ACCESS: AgentAccessChoice = { delegates: 'use', renters: 'use' };

/** The stored choice and the lower-case wallet that made it (null: never set). */
export interface StoredAccessChoice extends AgentAccessChoice {
  setBy: string | null;
}

/**
 * The choice in force under `owner`: one an earlier owner made does not bind (nor serve) the next
 * one, who starts from the defaults until they choose.
 */
export function choiceFor(stored: StoredAccessChoice, owner: string): AgentAccessChoice {
  if (stored.setBy !== owner.toLowerCase()) return DEFAULT_ACCESS;
  return { delegates: stored.delegates, renters: stored.renters };
}

/**
 * The owner's choice of what delegates and renters may do (LLM settings' `access`; the defaults
 * when the agent has no settings). One indexed read, made by the gate for a caller who is not the
 * owner only: the owner's own requests never wait on it. Never cached: a change holds from the
 * next request.
 * @throws AppError `dependency_unavailable` when the database fails.
 */
export async function readAccessChoice(db: Database, agent: AgentIdentity): Promise<StoredAccessChoice> {
  try {
    const [row] = await db.orm
      .select({ delegates: llmSettings.accessDelegates, renters: llmSettings.accessRenters, setBy: llmSettings.accessWallet })
      .from(llmSettings)
      .where(ofAgent(llmSettings, agentRef(agent)))
      .limit(1);
    return row ? { ...accessChoice(row), setBy: row.setBy } : { ...DEFAULT_ACCESS, setBy: null };
  } catch (err) {
    throw databaseError(err);
  }
}

/** The stored columns as the typed choice (the table's checks keep them to these values). */
export function accessChoice(row: { delegates: string; renters: string }): AgentAccessChoice {
  const delegates = row.delegates === 'none' || row.delegates === 'admin' ? row.delegates : 'use';
  const renters = row.renters === 'none' ? 'none' : 'use';
  return { delegates, renters };
}
