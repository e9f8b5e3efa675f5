import type { Agent } from '../agents/gate';
import { AppError } from '../errors';
import { databaseError, type Database } from '../storage/db';
import { llmSettings } from '../storage/schema';
import type { KeyRing } from '../vault/crypto';
import { agentRef, deleteSecret, storeSecret, ofAgent } from '../vault/store';

export interface LlmSettingsInput {
  provider: string;
  model: string;
  temperature: number;
  maxTokens: number;
  /** A new API key; `undefined` keeps the stored one, `null` removes it. */
  apiKey?: string | null;
}

export interface LlmSettings {
  provider: string;
  model: string;
  temperature: number;
  maxTokens: number;
  /** Whether an API key is stored. The key itself is never returned. */
  apiKeySet: boolean;
  updatedAt: string;
}

export interface SettingsDeps {
  db: Database;
  ring: () => Promise<KeyRing>;
  maxTokensPerRequest: number;
}

const LLM_OWNER = 'llm_settings';

function toSettings(row: typeof llmSettings.$inferSelect): LlmSettings {
  return {
    provider: row.provider,
    model: row.model,
    temperature: row.temperature,
    maxTokens: row.maxTokens,
    apiKeySet: row.apiKeyEntry !== null,
    updatedAt: row.updatedAt.toISOString(),
  };
}

export async function getLlmSettings(deps: SettingsDeps, agent: Agent): Promise<LlmSettings> {
  let row: typeof llmSettings.$inferSelect | undefined;
  try {
    [row] = await deps.db.orm.select().from(llmSettings).where(ofAgent(llmSettings, agentRef(agent))).limit(1);
  } catch (err) {
    throw databaseError(err);
  }
  if (!row) throw new AppError('llm_settings_not_found', 'No LLM settings for this agent yet');
  return toSettings(row);
}

/** Replaces the agent's LLM settings; a new API key goes to the vault and the old one is destroyed. */
export async function saveLlmSettings(deps: SettingsDeps, agent: Agent, input: LlmSettingsInput): Promise<LlmSettings> {
  if (input.maxTokens > deps.maxTokensPerRequest) {
    throw new AppError('validation_failed', `maxTokens must be at most ${deps.maxTokensPerRequest} (TOKEN__MAX_TOKENS_PER_REQUEST)`, {
      details: { issues: [{ path: 'maxTokens', message: `must be at most ${deps.maxTokensPerRequest}` }] },
    });
  }
  const ref = agentRef(agent);
  const ring = input.apiKey ? await deps.ring() : undefined;
  try {
    const row = await deps.db.orm.transaction(async (tx) => {
      const [current] = await tx.select().from(llmSettings).where(ofAgent(llmSettings, ref)).for('update').limit(1);
      let apiKeyEntry = current?.apiKeyEntry ?? null;
      const replaced = input.apiKey !== undefined ? apiKeyEntry : null;
      if (input.apiKey === null) apiKeyEntry = null;
      if (input.apiKey && ring) apiKeyEntry = await storeSecret(tx, ring, ref, LLM_OWNER, input.apiKey);
      const values = {
        provider: input.provider,
        model: input.model,
        temperature: input.temperature,
        maxTokens: input.maxTokens,
        apiKeyEntry,
        updatedAt: new Date(),
      };
      const [saved] = await tx
        .insert(llmSettings)
        .values({ ...ref, ...values })
        .onConflictDoUpdate({ target: [llmSettings.chainId, llmSettings.collection, llmSettings.tokenId], set: values })
        .returning();
      if (replaced) await deleteSecret(tx, replaced);
      return saved!;
    });
    return toSettings(row);
  } catch (err) {
    throw databaseError(err);
  }
}
