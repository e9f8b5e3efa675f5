/**
 * Reservations against the daily token limits, visible to every isolate (gateway.usage_ledger):
 * each model call reserves its estimate (the request's input tokens, counted as characters / 4, plus
 * its output ceiling) when it starts and settles to the provider's usage when it ends. A call starts
 * only while the tokens charged (settled usage and the estimates of calls still running, over all
 * routes and contexts) are under each limit that applies; its reservation may then pass the limit.
 * So the day's usage passes a limit by at most one call's estimate, plus what estimates of calls
 * running at that moment misjudge (SECURITY.md). A call cut off without the provider's usage keeps
 * its estimate: the provider bills it. An isolate that dies mid-call leaves its estimate counted,
 * which is the same rule; rows of past days go in the Cron clean-up.
 */
import type { AgentIdentity } from '../identity/identity';
import { AppError } from '../errors';
import { findAgentSchema, type AgentStore } from '../storage/agent-storage';
import { agentRef, agentRefText } from '../storage/agent-rows';
import { databaseError } from '../storage/db';
import { nextUtcMidnight, secondsToNextUtcDay, utcDay } from './day';
import type { Credential } from './record.service';

/** The scope of the agent's own limit in the ledger (a credential's scope is the credential). */
const AGENT_SCOPE = 'agent';

/** The limits a model call is charged against; null: none (nothing reserved for it). */
export interface CallLimits {
  agentTokensPerDay: number | null;
  credential: Credential;
  credentialTokensPerDay: number | null;
}

/** An open reservation: settle it once, with the tokens the call used. */
export interface Reservation {
  readonly estimate: number;
  settle(tokens: number): Promise<void>;
}

const NOTHING_RESERVED: Reservation = { estimate: 0, settle: async () => undefined };

/** Raised when a call may not start: the day's charged tokens reached a limit. */
export class UsageLimitReached extends AppError {
  constructor(limit: 'agent' | 'key', tokensPerDay: number, usedTokens: number, day: string, now: number) {
    const whose = limit === 'agent' ? "the agent's daily token limit (LLM settings)" : "this agent key's daily token limit";
    super('usage_limit_reached', `${whose} is reached for ${day} (UTC): replies resume at the next UTC midnight`, {
      headers: { 'Retry-After': String(secondsToNextUtcDay(now)) },
      details: { limit, tokensPerDay, usedTokens, day, resetsAt: new Date(nextUtcMidnight(now)).toISOString() },
    });
  }
}

/**
 * Reserves `estimate` tokens for one model call against the limits, in one statement: a scope's row
 * is created seeded with the day's recorded usage, or added to only while under its limit (the
 * upsert re-reads the row it locks, so concurrent reservations never both pass on a stale sum).
 * Throws `UsageLimitReached` (429) when a limit is reached; nothing stays reserved then.
 */
export async function reserveTokens(
  store: AgentStore,
  agent: AgentIdentity,
  limits: CallLimits,
  estimate: number,
  now = Date.now(),
): Promise<Reservation> {
  const scopes: { scope: string; ceiling: number; limit: 'agent' | 'key' }[] = [];
  if (limits.agentTokensPerDay !== null) scopes.push({ scope: AGENT_SCOPE, ceiling: limits.agentTokensPerDay, limit: 'agent' });
  if (limits.credentialTokensPerDay !== null)
    scopes.push({ scope: limits.credential, ceiling: limits.credentialTokensPerDay, limit: 'key' });
  if (scopes.length === 0) return NOTHING_RESERVED;
  const schema = await findAgentSchema(store, agent);
  const day = utcDay(now);
  const ref = agentRefText(agentRef(agent));
  const used = (credential: string | null) =>
    schema
      ? `(SELECT coalesce(sum(input_tokens + output_tokens), 0) FROM ${schema.quoted}.usage WHERE day = $2::date${credential ? ' AND credential = $5' : ''})`
      : '0';
  const text = `INSERT INTO gateway.usage_ledger AS l (agent_ref, day, scope, tokens, ceiling)
      SELECT $1, $2::date, s.scope, $3 + CASE WHEN s.scope = $5::text THEN ${used('credential')} ELSE ${used(null)} END, s.ceiling
        FROM unnest($4::text[], $6::bigint[]) AS s(scope, ceiling)
      ON CONFLICT (agent_ref, day, scope) DO UPDATE SET tokens = l.tokens + $3, ceiling = EXCLUDED.ceiling
        WHERE l.tokens < EXCLUDED.ceiling
      RETURNING l.scope, l.tokens::text AS tokens`;
  const values = [ref, day, estimate, scopes.map((s) => s.scope), limits.credential, scopes.map((s) => s.ceiling)];
  let rows: { scope: string; tokens: string }[];
  try {
    ({ rows } = await store.sql.query<{ scope: string; tokens: string }>(text, values));
  } catch (err) {
    throw databaseError(err);
  }
  const taken = new Set(rows.map((r) => r.scope));
  // A row seeded at or past its limit was taken but must refuse too (the day's usage reached it).
  const refused = scopes.find((s) => {
    const row = rows.find((r) => r.scope === s.scope);
    return !row || Number(row.tokens) - estimate >= s.ceiling;
  });
  const settle = (scopesTaken: string[], delta: number) =>
    scopesTaken.length === 0 || delta === 0
      ? Promise.resolve()
      : store.sql
          .query(
            'UPDATE gateway.usage_ledger SET tokens = greatest(0, tokens + $4) WHERE agent_ref = $1 AND day = $2::date AND scope = ANY($3::text[])',
            [ref, day, scopesTaken, delta],
          )
          .then(
            () => undefined,
            (err: unknown) => Promise.reject(databaseError(err)),
          );
  if (refused) {
    await settle([...taken], -estimate);
    const row = rows.find((r) => r.scope === refused.scope);
    const usedTokens = row ? Number(row.tokens) - estimate : await chargedTokens(store, ref, day, refused.scope);
    throw new UsageLimitReached(refused.limit, refused.ceiling, usedTokens, day, now);
  }
  let settled = false;
  return {
    estimate,
    settle: (tokens) => {
      if (settled) return Promise.resolve();
      settled = true;
      return settle([...taken], Math.max(0, Math.floor(tokens)) - estimate);
    },
  };
}

/** The tokens charged to `scope` today (for the refusal's details). */
async function chargedTokens(store: AgentStore, ref: string, day: string, scope: string): Promise<number> {
  try {
    const { rows } = await store.sql.query<{ tokens: string }>(
      'SELECT tokens::text AS tokens FROM gateway.usage_ledger WHERE agent_ref = $1 AND day = $2::date AND scope = $3',
      [ref, day, scope],
    );
    return Number(rows[0]?.tokens ?? 0);
  } catch {
    return 0;
  }
}

/** Characters per token of the estimate: a simple, documented over-count for most text (docs/replies.md). */
const CHARS_PER_TOKEN = 4;

/** The estimate of one call: its request's characters / 4 (rounded up) plus its output ceiling. */
export function estimateTokens(requestChars: number, maxOutputTokens: number): number {
  return Math.ceil(requestChars / CHARS_PER_TOKEN) + Math.max(0, Math.floor(maxOutputTokens));
}

/** Ledger rows deleted per clean-up run at most. */
const LEDGER_ROWS_PER_RUN = 10_000;

/** Deletes ledger rows of days before yesterday (UTC; no reservation is open that long), for the Cron clean-up. */
export async function pruneUsageLedger(sql: AgentStore['sql']): Promise<number> {
  const { rows } = await sql.query<{ deleted: string | number }>(
    `WITH gone AS (
       DELETE FROM gateway.usage_ledger WHERE (agent_ref, day, scope) IN (
         SELECT agent_ref, day, scope FROM gateway.usage_ledger WHERE day < (now() AT TIME ZONE 'UTC')::date - 1 LIMIT $1
       ) RETURNING 1)
     SELECT count(*) AS deleted FROM gone`,
    [LEDGER_ROWS_PER_RUN],
  );
  return Number(rows[0]?.deleted ?? 0);
}
