import { eq } from 'drizzle-orm';
import type { Agent } from '../identity/agent';
import { auditChange } from '../audit/entry';
import { AppError } from '../errors';
import { databaseError, type Database } from '../storage/db';
import { llmSettings, vaultEntries } from '../storage/schema';
import type { KeyRing } from '../vault/crypto';
import { credentialState, walletKey, type CredentialState } from '../vault/owner';
import { agentRef, ofAgent } from '../storage/agent-rows';
import { deleteSecret, secretOwnerWallet, storeSecret } from '../vault/store';
import type { OutboundOptions } from '../net/outbound-policy';
import { checkBaseUrl } from './llm-base-url';
import { type AgentAccessChoice, accessChoice, choiceFor } from './access.service';
import { unitsToUsd, usdToUnits } from '../encoding/usd-units';
import type { AgentPricing } from './pricing';

export interface LlmSettingsInput {
  provider: string;
  model: string;
  temperature: number;
  maxTokens: number;
  /** The API's base URL (openai-compatible; optional for openai and anthropic); null or absent: the provider's own. */
  baseUrl?: string | null;
  /** A new API key; `undefined` keeps the stored one, `null` removes it. */
  apiKey?: string | null;
  /** The agent's daily token limit; `undefined` keeps the stored limits, `tokensPerDay` absent or null: none. */
  limits?: { tokensPerDay?: number | null | undefined } | undefined;
  /** Whether replies summarise what they leave out; `undefined` keeps the stored choice (true for new settings). */
  summaries?: boolean;
  /** What delegates and renters may do; `undefined` keeps the stored choice (the owner's alone to change: the handler checks). */
  access?: AgentAccessChoice;
  /** What a stranger pays per reply; `undefined` keeps the stored price, `null` ends paid replies (the owner's alone to change). */
  pricing?: AgentPricing | null;
}

/** Who reads or saves: the owner, or a delegate with admin leave (who may change neither `access` nor `limits`, and sees `baseUrl` cut to its origin). */
export interface SaveOptions {
  byOwner: boolean;
}

/** A URL's origin: what a caller who is not the owner sees of `baseUrl` (its path or query may carry a key). */
function originOf(url: string): string {
  return new URL(url).origin;
}

/** The settings as `viewer` may see them: a non-owner's `baseUrl` is its origin only. */
function shown(settings: LlmSettings, viewer: SaveOptions): LlmSettings {
  return viewer.byOwner || settings.baseUrl === null ? settings : { ...settings, baseUrl: originOf(settings.baseUrl) };
}

export interface LlmSettings {
  provider: string;
  model: string;
  temperature: number;
  maxTokens: number;
  baseUrl: string | null;
  /** Whether an API key entered by the agent's current owner is stored. The key itself is never returned. */
  apiKeySet: boolean;
  /** `none`: no key; `set`: the current owner's key; `reenter_required`: an earlier owner's key, never used for you. */
  credential: CredentialState;
  /** The agent's daily token limit (all its credentials); null: none. */
  limits: { tokensPerDay: number | null };
  /** Whether replies summarise what they leave out and send the summary. */
  summaries: boolean;
  /** What delegates and renters may do. */
  access: AgentAccessChoice;
  /** What a stranger pays per reply (POST …/paid/ask); null: no paid replies. */
  pricing: { askUsd: string; memoryTools: boolean } | null;
  updatedAt: string;
}

export interface SettingsDeps {
  db: Database;
  ring: () => Promise<KeyRing>;
  maxTokensPerRequest: number;
  /** The outbound network policy a `baseUrl` must pass (src/net). */
  outbound: OutboundOptions;
}

/** The vault record the LLM API key is stored under (bound into its additional data: one name for storing and opening). */
export const LLM_OWNER = 'llm_settings';

type LlmSettingsRow = typeof llmSettings.$inferSelect;

/**
 * Whether the stored key (or the choice of none) was entered for the settings' provider and
 * `baseUrl`, by `currentOwner`: only then may a reply run on them, so a key never
 * follows a `baseUrl` it was not entered for, whoever changed it and whenever (a row stored before
 * keys were bound too), and settings a later owner pointed at their server never receive an
 * earlier owner's memory after the agent comes back.
 */
export function keyFitsSettings(
  row: Pick<LlmSettingsRow, 'provider' | 'baseUrl' | 'apiKeyProvider' | 'apiKeyBaseUrl' | 'apiKeyWallet'>,
  currentOwner: string,
): boolean {
  return (
    row.apiKeyProvider !== null &&
    row.apiKeyProvider === row.provider &&
    row.apiKeyBaseUrl === row.baseUrl &&
    row.apiKeyWallet === walletKey(currentOwner)
  );
}

/** The stored price as settings answer it; null: no paid replies. */
export function pricingOf(row: Pick<LlmSettingsRow, 'priceAskUnits' | 'priceMemoryTools'>): LlmSettings['pricing'] {
  return row.priceAskUnits === null ? null : { askUsd: unitsToUsd(row.priceAskUnits), memoryTools: row.priceMemoryTools };
}

/** Whether `pricing` as sent is the stored price (what a delegate may send back unchanged). */
function samePricing(pricing: AgentPricing | null, row: LlmSettingsRow | undefined): boolean {
  const stored = row ? pricingOf(row) : null;
  if (pricing === null || stored === null) return pricing === stored;
  return usdToUnits(pricing.askUsd) === usdToUnits(stored.askUsd) && (pricing.memoryTools ?? false) === stored.memoryTools;
}

/** No provider or `baseUrl` a key was entered for: a change dropped the key and none was entered since. */
const UNBOUND = { apiKeyProvider: null, apiKeyBaseUrl: null, apiKeyWallet: null };

/** The settings as `currentOwner` sees them; `entryWallet` is who entered the stored key. */
function toSettings(row: LlmSettingsRow, entryWallet: string | null, currentOwner: string): LlmSettings {
  // A key entered for another provider or baseUrl (or dropped by a change of either) is needed
  // again, whoever entered it.
  const fits = keyFitsSettings(row, currentOwner);
  const credential = credentialState(row.apiKeyEntry !== null || !fits, fits ? entryWallet : null, currentOwner);
  return {
    provider: row.provider,
    model: row.model,
    temperature: row.temperature,
    maxTokens: row.maxTokens,
    baseUrl: row.baseUrl,
    apiKeySet: credential === 'set',
    credential,
    limits: { tokensPerDay: row.tokensPerDay },
    summaries: row.summaries,
    access: choiceFor(
      { ...accessChoice({ delegates: row.accessDelegates, renters: row.accessRenters }), setBy: row.accessWallet },
      currentOwner,
    ),
    pricing: pricingOf(row),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export async function getLlmSettings(deps: SettingsDeps, agent: Agent, viewer: SaveOptions = { byOwner: true }): Promise<LlmSettings> {
  let found: { settings: typeof llmSettings.$inferSelect; entryWallet: string | null } | undefined;
  try {
    [found] = await deps.db.orm
      .select({ settings: llmSettings, entryWallet: vaultEntries.ownerWallet })
      .from(llmSettings)
      .leftJoin(vaultEntries, eq(vaultEntries.id, llmSettings.apiKeyEntry))
      .where(ofAgent(llmSettings, agentRef(agent)))
      .limit(1);
  } catch (err) {
    throw databaseError(err);
  }
  if (!found) throw new AppError('llm_settings_not_found', 'No LLM settings for this agent yet');
  return shown(toSettings(found.settings, found.entryWallet, agent.owner), viewer);
}

/**
 * Replaces the agent's LLM settings; a new API key goes to the vault, bound to the current owner
 * and to the provider and `baseUrl` saved with it, and the old one is destroyed. Without `apiKey`
 * the stored key is kept, still bound to whoever entered it, only while the provider and `baseUrl`
 * stay those it was entered for: a change of either destroys it, and a reply then
 * waits for a new key (or `null` for none).
 */
export async function saveLlmSettings(
  deps: SettingsDeps,
  agent: Agent,
  input: LlmSettingsInput,
  options: SaveOptions = { byOwner: true },
): Promise<LlmSettings> {
  // `access` is the owner's alone: a delegate with admin leave saves the rest, never this.
  if (!options.byOwner && input.access !== undefined) {
    throw new AppError('not_owner', "Only the agent's owner may change who else may use it (access)");
  }
  if (input.maxTokens > deps.maxTokensPerRequest) {
    throw new AppError('validation_failed', `maxTokens must be at most ${deps.maxTokensPerRequest} (TOKEN__MAX_TOKENS_PER_REQUEST)`, {
      details: { issues: [{ path: 'maxTokens', message: `must be at most ${deps.maxTokensPerRequest}` }] },
    });
  }
  const checkedBaseUrl = checkBaseUrl(input, deps.outbound);
  const ref = agentRef(agent);
  const ring = input.apiKey ? await deps.ring() : undefined;
  try {
    const row = await deps.db.orm.transaction(async (tx) => {
      const [current] = await tx.select().from(llmSettings).where(ofAgent(llmSettings, ref)).for('update').limit(1);
      // The daily limit is the owner's spending cap: a delegate's save may repeat it, never change it.
      if (!options.byOwner && input.limits !== undefined && (input.limits.tokensPerDay ?? null) !== (current?.tokensPerDay ?? null)) {
        throw new AppError('not_owner', "Only the agent's owner may change its daily limit (limits); leave limits out to keep them");
      }
      // So is the price (it lets strangers run the agent on the owner's model key): repeated, never changed.
      if (!options.byOwner && input.pricing !== undefined && !samePricing(input.pricing, current)) {
        throw new AppError(
          'not_owner',
          "Only the agent's owner may change what strangers pay for its replies (pricing); leave pricing out to keep it",
        );
      }
      // A non-owner was shown the stored baseUrl's origin only: saving that origin back keeps the stored URL.
      const echoed = !options.byOwner && current?.baseUrl != null && checkedBaseUrl === originOf(current.baseUrl);
      const baseUrl = echoed ? current.baseUrl : checkedBaseUrl;
      let apiKeyEntry = current?.apiKeyEntry ?? null;
      let entryWallet: string | null = null;
      let replaced: string | null = null;
      const target = { apiKeyProvider: input.provider, apiKeyBaseUrl: baseUrl, apiKeyWallet: walletKey(agent.owner) };
      let keyTarget: { apiKeyProvider: string | null; apiKeyBaseUrl: string | null; apiKeyWallet: string | null } = target;
      if (input.apiKey !== undefined) {
        replaced = apiKeyEntry;
        apiKeyEntry = null;
        if (input.apiKey && ring) {
          apiKeyEntry = await storeSecret(tx, ring, ref, { record: LLM_OWNER, wallet: agent.owner }, input.apiKey);
          entryWallet = walletKey(agent.owner);
        }
      } else if (current && (current.apiKeyProvider !== input.provider || current.apiKeyBaseUrl !== baseUrl)) {
        // The key was entered for another provider or baseUrl: it never follows this one (a later
        // owner's server, say): it is destroyed, and replies wait until a key (or null) is entered.
        // Keyless settings the current owner chose follow their own changes (no key to follow);
        // anyone else's choice of none is dropped the same way.
        const ownKeyless = apiKeyEntry === null && current.apiKeyProvider !== null && current.apiKeyWallet === target.apiKeyWallet;
        if (!ownKeyless) {
          replaced = apiKeyEntry;
          apiKeyEntry = null;
          keyTarget = UNBOUND;
        }
      } else if (current) {
        keyTarget = { apiKeyProvider: current.apiKeyProvider, apiKeyBaseUrl: current.apiKeyBaseUrl, apiKeyWallet: current.apiKeyWallet };
        entryWallet = await secretOwnerWallet(tx, apiKeyEntry);
      }
      const values = {
        provider: input.provider,
        model: input.model,
        temperature: input.temperature,
        maxTokens: input.maxTokens,
        baseUrl,
        summaries: input.summaries ?? current?.summaries ?? true,
        // Omitted access stays as it is (the defaults for new settings).
        // An earlier owner's choice is read as the defaults (src/settings/access.service.ts).
        ...(input.access === undefined
          ? {}
          : { accessDelegates: input.access.delegates, accessRenters: input.access.renters, accessWallet: walletKey(agent.owner) }),
        apiKeyEntry,
        ...keyTarget,
        // Omitted limits stay as they are (a client that knows nothing of limits does not lift them).
        ...(input.limits === undefined ? {} : { tokensPerDay: input.limits.tokensPerDay ?? null }),
        // Omitted pricing stays as it is; null ends paid replies.
        ...(input.pricing === undefined
          ? {}
          : {
              priceAskUnits: input.pricing === null ? null : usdToUnits(input.pricing.askUsd),
              priceMemoryTools: input.pricing?.memoryTools ?? false,
            }),
        updatedAt: new Date(),
      };
      const [saved] = await tx
        .insert(llmSettings)
        .values({ ...ref, ...values })
        .onConflictDoUpdate({ target: [llmSettings.chainId, llmSettings.collection, llmSettings.tokenId], set: values })
        .returning();
      if (replaced) await deleteSecret(tx, replaced);
      await auditChange(tx, agent, 'llm_settings.set', { provider: input.provider, model: input.model });
      return { saved: saved!, entryWallet };
    });
    return shown(toSettings(row.saved, row.entryWallet, agent.owner), options);
  } catch (err) {
    throw databaseError(err);
  }
}
