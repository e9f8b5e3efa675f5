/**
 * Recording usage: counters per UTC day, context and credential in the agent's own
 * schema (template v5), upserted: concurrent writers add up, none is lost.
 */
import type { AgentIdentity } from '../identity/identity';
import { findAgentSchema, type AgentSchema, type AgentStore } from '../storage/agent-storage';
import { databaseError } from '../storage/db';
import { utcDay } from './day';
import { anyUsage, type UsageCounts } from './meter';

/**
 * Who used the tokens, as usage names it: `wallet:0x…` for a wallet's own token, `key:{id}` for an
 * agent key, `oauth:0x…:{clientId}` for an OAuth app acting for that wallet (the client id last:
 * a metadata document's id is a URL, colons and all), `delegate:0x…` or `renter:0x…` for a wallet
 * that came in as the owner's delegate or the token's renter (on the owner's model key), `payer:0x…`
 * for a stranger who paid for the reply (POST …/paid/ask).
 */
export type Credential =
  | `wallet:${string}`
  | `key:${string}`
  | `oauth:${string}`
  | `delegate:${string}`
  | `renter:${string}`
  | `payer:${string}`;

/** A wallet's own token: `wallet:` for the owner, `delegate:`/`renter:` for one who came in so. */
export const walletCredential = (wallet: string, via?: 'delegate' | 'renter'): Credential =>
  via === undefined ? `wallet:${wallet}` : `${via}:${wallet}`;
export const oauthCredential = (wallet: string, clientId: string): Credential => `oauth:${wallet}:${clientId}`;
export const keyCredential = (keyId: string): Credential => `key:${keyId}`;
export const payerCredential = (payer: string): Credential => `payer:${payer.toLowerCase()}`;

/** What one reply (or one summary) used, and for whom. */
export interface UsageRecord {
  contextKey: string;
  credential: Credential;
  usage: UsageCounts;
}

/** The upsert of one record, as one statement (exported so a caller can run it beside another). */
export function recordUsageSql(schema: AgentSchema, day: string, record: UsageRecord): { text: string; values: unknown[] } {
  const u = record.usage;
  return {
    text: `INSERT INTO ${schema.quoted}.usage AS u
             (day, context_key, credential, input_tokens, output_tokens, cached_input_tokens, model_calls, tool_calls)
           VALUES ($1::date, $2, $3, $4, $5, $6, $7, $8)
           ON CONFLICT (day, context_key, credential) DO UPDATE SET
             input_tokens = u.input_tokens + EXCLUDED.input_tokens,
             output_tokens = u.output_tokens + EXCLUDED.output_tokens,
             cached_input_tokens = u.cached_input_tokens + EXCLUDED.cached_input_tokens,
             model_calls = u.model_calls + EXCLUDED.model_calls,
             tool_calls = u.tool_calls + EXCLUDED.tool_calls`,
    values: [day, record.contextKey, record.credential, u.inputTokens, u.outputTokens, u.cachedInputTokens, u.modelCalls, u.toolCalls],
  };
}

/**
 * Adds `record` to the agent's usage of the UTC day of `now` (the worker's clock, as the limit
 * check reads it). Nothing counted, nothing written; an agent without storage has no context to
 * have used, so nothing is written either. One round trip once the schema is known.
 */
export async function recordUsage(store: AgentStore, agent: AgentIdentity, record: UsageRecord, now = Date.now()): Promise<void> {
  if (!anyUsage(record.usage)) return;
  const schema = await findAgentSchema(store, agent);
  if (!schema) return;
  const { text, values } = recordUsageSql(schema, utcDay(now), record);
  try {
    await store.sql.query(text, values);
  } catch (err) {
    throw databaseError(err);
  }
}
