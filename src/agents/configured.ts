/**
 * What the owner has configured for an agent, as booleans: whether its LLM settings and its
 * public profile exist. The dashboard asks this before it reads either, so an agent that has
 * neither costs no 404 (`llm_settings_not_found`, `profile_not_found`) that a browser logs as an
 * error. One statement over HTTP on the gateway tables' primary keys; it reads the tables, not the
 * `settings/` and `profile/` rooms, which stand on this one (docs/architecture.md#floors).
 */
import { type SQL, sql } from 'drizzle-orm';
import type { AgentIdentity } from '../identity/identity';
import { agentRef, ofAgent } from '../storage/agent-rows';
import { databaseError, type Database } from '../storage/db';
import { agentProfiles, llmSettings } from '../storage/schema';

export interface AgentConfigured {
  /** LLM settings are saved: `GET …/llm/settings` answers 200 (else 404 `llm_settings_not_found`). */
  llmSettings: boolean;
  /** A profile is set: `GET …/profile` answers 200 (else 404 `profile_not_found`). */
  profile: boolean;
}

/** Whether the agent has LLM settings and a profile, in one round trip. */
export async function agentConfigured(db: Database, agent: AgentIdentity): Promise<AgentConfigured> {
  const ref = agentRef(agent);
  const exists = (table: typeof llmSettings | typeof agentProfiles): SQL =>
    sql`exists (select 1 from ${table} where ${ofAgent(table, ref)})`;
  try {
    const { rows } = await db.reads.execute<{ llm_settings: boolean; profile: boolean }>(
      sql`select ${exists(llmSettings)} as llm_settings, ${exists(agentProfiles)} as profile`,
    );
    return { llmSettings: rows[0]?.llm_settings === true, profile: rows[0]?.profile === true };
  } catch (err) {
    throw databaseError(err);
  }
}
