/** Reading usage: totals and groups over a range of UTC days, one statement. */
import type { AgentIdentity } from '../identity/identity';
import { AppError } from '../errors';
import { findAgentSchema, type AgentStore } from '../storage/agent-storage';
import { databaseError } from '../storage/db';
import { daysIncluded, utcDay } from './day';
import { NO_USAGE, type UsageCounts } from './meter';
import { agentRef, agentRefText } from '../storage/agent-rows';
import { unitsToUsd } from '../encoding/usd-units';

export const USAGE_GROUP_BYS = ['day', 'credential', 'context'] as const;
export type UsageGroupBy = (typeof USAGE_GROUP_BYS)[number];

/** Longest range one report covers, in days (both ends included). */
export const MAX_RANGE_DAYS = 366;
/** Groups one report lists at most: past it, the groups with the most tokens (`truncated: true`). */
export const MAX_GROUPS = 1_000;

export interface UsageQuery {
  /** `YYYY-MM-DD`, included; default `to`. */
  from?: string | undefined;
  /** `YYYY-MM-DD`, included; default today (UTC). */
  to?: string | undefined;
  groupBy: UsageGroupBy;
}

export type UsageGroup = UsageCounts & { day?: string; credential?: string; contextKey?: string; paidUsd?: string };

export interface UsageReport {
  from: string;
  to: string;
  groupBy: UsageGroupBy;
  totals: UsageCounts & { paidUsd: string };
  groups: UsageGroup[];
  truncated: boolean;
}

/** The group key's column and its name in a group. */
const GROUP_KEYS: Record<UsageGroupBy, { column: string; field: 'day' | 'credential' | 'contextKey' }> = {
  day: { column: `to_char(day, 'YYYY-MM-DD')`, field: 'day' },
  credential: { column: 'credential', field: 'credential' },
  context: { column: 'context_key', field: 'contextKey' },
};

const SUMS = `sum(input_tokens) AS "inputTokens", sum(output_tokens) AS "outputTokens",
  sum(cached_input_tokens) AS "cachedInputTokens", sum(model_calls) AS "modelCalls", sum(tool_calls) AS "toolCalls"`;
const TOTALS = `json_build_object('inputTokens', coalesce(sum("inputTokens"), 0), 'outputTokens', coalesce(sum("outputTokens"), 0),
  'cachedInputTokens', coalesce(sum("cachedInputTokens"), 0), 'modelCalls', coalesce(sum("modelCalls"), 0),
  'toolCalls', coalesce(sum("toolCalls"), 0))`;

function invalid(path: string, message: string): AppError {
  return new AppError('validation_failed', `Request validation failed: ${path} ${message}`, { details: { issues: [{ path, message }] } });
}

/** The range a query asks for, defaults filled (the route checked each day's form). */
export function usageRange(query: Pick<UsageQuery, 'from' | 'to'>, now = Date.now()): { from: string; to: string } {
  const to = query.to ?? utcDay(now);
  const from = query.from ?? to;
  const days = daysIncluded(from, to);
  if (days < 1) throw invalid('from', `must not be after to (${to})`);
  if (days > MAX_RANGE_DAYS) throw invalid('from', `a range covers at most ${MAX_RANGE_DAYS} days (this one ${days})`);
  return { from, to };
}

type Row = { n: number; totals: UsageCounts; groups: (UsageCounts & { key: string })[] };

/**
 * What strangers paid for the agent's replies (settled payments, gateway.paid_calls), in USDC units
 * per UTC day of settlement.
 */
async function paidByDay(store: AgentStore, agent: AgentIdentity, from: string, to: string): Promise<Map<string, bigint>> {
  try {
    const { rows } = await store.sql.query<{ day: string; units: string }>(
      `SELECT to_char((settled_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day, sum(amount_units)::text AS units
         FROM gateway.paid_calls
        WHERE agent_ref = $1 AND state = 'settled'
          AND settled_at >= ($2::date)::timestamp AT TIME ZONE 'UTC' AND settled_at < ($3::date + 1)::timestamp AT TIME ZONE 'UTC'
        GROUP BY 1`,
      [agentRefText(agentRef(agent)), from, to],
    );
    return new Map(rows.map((r) => [r.day, BigInt(r.units)]));
  } catch (err) {
    throw databaseError(err);
  }
}

/** The agent's usage over the range, grouped; an agent that never wrote has none. */
export async function usageReport(store: AgentStore, agent: AgentIdentity, query: UsageQuery, now = Date.now()): Promise<UsageReport> {
  const { from, to } = usageRange(query, now);
  const { column, field } = GROUP_KEYS[query.groupBy];
  const paid = paidByDay(store, agent, from, to);
  paid.catch(() => undefined); // awaited below
  const schema = await findAgentSchema(store, agent);
  const paidDays = await paid;
  const paidUsd = unitsToUsd([...paidDays.values()].reduce((a, b) => a + b, 0n));
  const empty: UsageReport = { from, to, groupBy: query.groupBy, totals: { ...NO_USAGE, paidUsd }, groups: [], truncated: false };
  if (!schema) return empty;
  let row: Row | undefined;
  try {
    ({
      rows: [row],
    } = await store.sql.query<Row>(
      `WITH g AS (SELECT ${column} AS key, ${SUMS} FROM ${schema.quoted}.usage WHERE day BETWEEN $1::date AND $2::date GROUP BY 1)
       SELECT (SELECT count(*) FROM g)::int AS n, (SELECT ${TOTALS} FROM g) AS totals,
              (SELECT coalesce(json_agg(k ORDER BY k.key), '[]'::json) FROM
                 (SELECT * FROM g ORDER BY "inputTokens" + "outputTokens" DESC, key LIMIT $3) k) AS groups`,
      [from, to, MAX_GROUPS],
    ));
  } catch (err) {
    throw databaseError(err);
  }
  if (!row) return empty;
  return {
    ...empty,
    totals: { ...counts(row.totals), paidUsd },
    // By day, each day says what was paid on it too.
    groups: row.groups.map((g) => ({
      [field]: g.key,
      ...counts(g),
      ...(query.groupBy === 'day' ? { paidUsd: unitsToUsd(paidDays.get(g.key) ?? 0n) } : {}),
    })),
    truncated: row.n > row.groups.length,
  };
}

/** The five counts of a row (JSON numbers from Postgres sums). */
function counts(c: UsageCounts): UsageCounts {
  return {
    inputTokens: Number(c.inputTokens),
    outputTokens: Number(c.outputTokens),
    cachedInputTokens: Number(c.cachedInputTokens),
    modelCalls: Number(c.modelCalls),
    toolCalls: Number(c.toolCalls),
  };
}
