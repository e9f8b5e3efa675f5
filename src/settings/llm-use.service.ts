import type { Agent } from '../agents/agent';
import { AppError } from '../errors';
import { agentRef, ofAgent } from '../storage/agent-rows';
import { databaseError } from '../storage/db';
import { llmSettings } from '../storage/schema';
import { readSecret } from '../vault/store';
import type { SettingsDeps } from './llm.service';

/** The settings a reply runs on, with the API key opened for the current owner. */
export interface LlmForUse {
  provider: string;
  model: string;
  temperature: number;
  maxTokens: number;
  baseUrl: string | null;
  /** The current owner's key; null when none is stored (workers-ai, a local server without keys). */
  apiKey: string | null;
}

const LLM_OWNER = 'llm_settings';

/**
 * The agent's LLM settings for a reply: 409 `llm_not_configured` when there are none; 409
 * `credential_reentry_required` when the stored key was entered by an earlier owner (DESIGN §8:
 * never decrypted, never used for the new owner).
 */
export async function llmForUse(deps: Pick<SettingsDeps, 'db' | 'ring'>, agent: Agent): Promise<LlmForUse> {
  const ref = agentRef(agent);
  let row: typeof llmSettings.$inferSelect | undefined;
  try {
    [row] = await deps.db.orm.select().from(llmSettings).where(ofAgent(llmSettings, ref)).limit(1);
  } catch (err) {
    throw databaseError(err);
  }
  if (!row) {
    throw new AppError('llm_not_configured', 'The agent has no LLM settings: POST …/llm/settings first');
  }
  let apiKey: string | null = null;
  if (row.apiKeyEntry !== null) {
    let read: Awaited<ReturnType<typeof readSecret>>;
    try {
      read = await readSecret(deps.db.orm, await deps.ring(), ref, { record: LLM_OWNER, wallet: agent.owner }, row.apiKeyEntry);
    } catch (err) {
      throw databaseError(err);
    }
    if (read.state !== 'open') {
      throw new AppError(
        'credential_reentry_required',
        'The LLM API key was entered by an earlier owner of the agent and is never used for you: POST …/llm/settings with your own apiKey',
        { details: { record: LLM_OWNER } },
      );
    }
    apiKey = read.secret;
  }
  return {
    provider: row.provider,
    model: row.model,
    temperature: row.temperature,
    maxTokens: row.maxTokens,
    baseUrl: row.baseUrl,
    apiKey,
  };
}
