import { and, eq } from 'drizzle-orm';
import type { Agent } from '../identity/agent';
import { AppError } from '../errors';
import { agentRef, ofAgent } from '../storage/agent-rows';
import { databaseError } from '../storage/db';
import { llmSettings, vaultEntries } from '../storage/schema';
import type { KeyRing } from '../vault/crypto';
import { walletKey } from '../vault/owner';
import { openEntry, type VaultEntry } from '../vault/store';
import type { OutboundOptions } from '../net/outbound-policy';
import { checkStoredBaseUrl } from './llm-base-url';
import { keyFitsSettings, LLM_OWNER, type SettingsDeps } from './llm.service';

/** The settings a reply runs on, with the API key opened for the current owner. */
export interface LlmForUse {
  provider: string;
  model: string;
  temperature: number;
  maxTokens: number;
  baseUrl: string | null;
  /** The current owner's key; null when none is stored (workers-ai, a local server without keys). */
  apiKey: string | null;
  /** Whether the reply sends the context's summary and summarises what it leaves out. */
  summaries: boolean;
  /** The agent's daily token limit (null: none): each model call reserves against it (src/usage/ledger.ts). */
  tokensPerDay: number | null;
}

/** The stored settings and their key's vault entry, read but not opened. */
export interface StoredLlmSettings {
  settings: typeof llmSettings.$inferSelect;
  /** The entry of `apiKeyEntry`, null when there is no key or the entry is gone. */
  entry: VaultEntry | null;
}

/**
 * The agent's LLM settings with their key's entry, in one statement; opens nothing, so it may run
 * while the owner check is on its way. 409 `llm_not_configured` when there are none.
 */
export async function readLlmSettings(deps: Pick<SettingsDeps, 'db'>, agent: Agent): Promise<StoredLlmSettings> {
  const ref = agentRef(agent);
  let found: StoredLlmSettings | undefined;
  try {
    [found] = await deps.db.reads
      .select({ settings: llmSettings, entry: vaultEntries })
      .from(llmSettings)
      .leftJoin(vaultEntries, and(eq(vaultEntries.id, llmSettings.apiKeyEntry), ofAgent(vaultEntries, ref)))
      .where(ofAgent(llmSettings, ref))
      .limit(1);
  } catch (err) {
    throw databaseError(err);
  }
  if (!found) {
    throw new AppError('llm_not_configured', 'The agent has no LLM settings: POST …/llm/settings first');
  }
  return found;
}

/**
 * The settings for a reply, the key opened for the current owner (call only after the owner check
 * passed, before any model request): 409 `llm_base_url_refused` when the outbound policy in force
 * refuses the stored `baseUrl`; 409 `credential_reentry_required` when the stored key was entered
 * for another provider or `baseUrl` or dropped by a change of either (a key never follows a later
 * owner's `baseUrl`), or entered by an earlier owner (never decrypted, never used for the new owner).
 */
export async function openLlmSettings(
  ring: KeyRing,
  agent: Agent,
  stored: StoredLlmSettings,
  outbound: OutboundOptions,
): Promise<LlmForUse> {
  const row = stored.settings;
  checkStoredBaseUrl(row.baseUrl, outbound);
  if (!keyFitsSettings(row, agent.owner)) {
    const earlierOwner = row.apiKeyWallet !== null && row.apiKeyWallet !== walletKey(agent.owner);
    throw new AppError(
      'credential_reentry_required',
      earlierOwner
        ? 'The LLM settings were entered by an earlier owner of the agent (their key, or their choice of none, for their baseUrl) and are never used for you: POST …/llm/settings with your apiKey (or apiKey: null for none)'
        : 'The LLM API key was entered for another provider or baseUrl (a change of either drops it) and is never sent to this one: POST …/llm/settings with your apiKey (or apiKey: null for none)',
      { details: { record: LLM_OWNER, reason: earlierOwner ? 'entered_by_earlier_owner' : 'provider_or_base_url_changed' } },
    );
  }
  let apiKey: string | null = null;
  if (row.apiKeyEntry !== null) {
    let read: Awaited<ReturnType<typeof openEntry>>;
    try {
      read = await openEntry(ring, agentRef(agent), { record: LLM_OWNER, wallet: agent.owner }, stored.entry);
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
    summaries: row.summaries,
    tokensPerDay: row.tokensPerDay,
  };
}
