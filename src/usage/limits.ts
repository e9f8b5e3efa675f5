/**
 * Daily token limits: the agent's (LLM settings, all its credentials) and an agent
 * key's (its own usage). Checked when a reply starts, from one read that runs while the owner
 * check is on its way. Each model call then reserves its estimate against the same limits
 * (ledger.ts), which bounds the overshoot of replies running at once (SECURITY.md).
 */
import type { AgentIdentity } from '../identity/identity';
import { AppError } from '../errors';
import { findAgentSchema, type AgentStore } from '../storage/agent-storage';
import { databaseError } from '../storage/db';
import { nextUtcMidnight, secondsToNextUtcDay, utcDay } from './day';
import type { Credential } from './record.service';

/** The UTC day's input + output tokens of an agent, per credential. */
export interface DayUsage {
  day: string;
  byCredential: ReadonlyMap<string, number>;
}

/** The agent's usage of the UTC day of `now`, one statement; creates nothing (no storage: none used). */
export async function readDayUsage(store: AgentStore, agent: AgentIdentity, now = Date.now()): Promise<DayUsage> {
  const day = utcDay(now);
  const schema = await findAgentSchema(store, agent);
  if (!schema) return { day, byCredential: new Map() };
  try {
    const { rows } = await store.sql.query<{ credential: string; tokens: string }>(
      `SELECT credential, sum(input_tokens + output_tokens)::text AS tokens FROM ${schema.quoted}.usage
        WHERE day = $1::date GROUP BY credential`,
      [day],
    );
    return { day, byCredential: new Map(rows.map((r) => [r.credential, Number(r.tokens)])) };
  } catch (err) {
    throw databaseError(err);
  }
}

/** The limits a reply starts under: the agent's, and the caller's own (an agent key's); null: none. */
export interface ReplyLimits {
  agentTokensPerDay: number | null;
  caller: { credential: Credential; tokensPerDay: number | null };
}

/**
 * 429 `usage_limit_reached` with `Retry-After` (seconds to the next UTC midnight) when the day's
 * input + output tokens have reached a limit: the agent's total, or the caller's own.
 */
export function checkUsageLimits(usage: DayUsage, limits: ReplyLimits, now = Date.now()): void {
  const agentUsed = [...usage.byCredential.values()].reduce((sum, n) => sum + n, 0);
  const callerUsed = usage.byCredential.get(limits.caller.credential) ?? 0;
  const reached =
    limits.agentTokensPerDay !== null && agentUsed >= limits.agentTokensPerDay
      ? { limit: 'agent' as const, tokensPerDay: limits.agentTokensPerDay, usedTokens: agentUsed }
      : limits.caller.tokensPerDay !== null && callerUsed >= limits.caller.tokensPerDay
        ? { limit: 'key' as const, tokensPerDay: limits.caller.tokensPerDay, usedTokens: callerUsed }
        : undefined;
  if (!reached) return;
  const retryAfter = secondsToNextUtcDay(now);
  const whose = reached.limit === 'agent' ? "the agent's daily token limit (LLM settings)" : "this agent key's daily token limit";
  throw new AppError('usage_limit_reached', `${whose} is reached for ${usage.day} (UTC): replies resume at the next UTC midnight`, {
    headers: { 'Retry-After': String(retryAfter) },
    details: { ...reached, day: usage.day, resetsAt: new Date(nextUtcMidnight(now)).toISOString() },
  });
}
