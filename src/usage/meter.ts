/** What model calls reported and what they did, counted as a reply (or a summary) runs. */

/** Token usage and call counts: what one usage row adds up, and what a report sums. */
export interface UsageCounts {
  /** Input (prompt) tokens as the provider reported them; 0 where it reported none. */
  inputTokens: number;
  outputTokens: number;
  /** Input tokens the provider read from its cache (counted in `inputTokens` too); 0 where not given. */
  cachedInputTokens: number;
  /** Model calls that answered. */
  modelCalls: number;
  /** Tool calls the model made. */
  toolCalls: number;
}

export const NO_USAGE: Readonly<UsageCounts> = Object.freeze({
  inputTokens: 0,
  outputTokens: 0,
  cachedInputTokens: 0,
  modelCalls: 0,
  toolCalls: 0,
});

/** A counter filled while the model runs: read it whatever the outcome (a failed reply still used tokens). */
export function usageMeter(): UsageCounts {
  return { ...NO_USAGE };
}

/** Whether anything was counted (nothing to record otherwise). */
export function anyUsage(counts: UsageCounts): boolean {
  return counts.modelCalls > 0 || counts.inputTokens > 0 || counts.outputTokens > 0 || counts.toolCalls > 0;
}

/** One model call's usage as the AI SDK reports it (`finish-step`), added to `meter`. */
export function addModelUsage(
  meter: UsageCounts,
  usage: {
    inputTokens?: number | undefined;
    outputTokens?: number | undefined;
    inputTokenDetails?: { cacheReadTokens?: number | undefined };
  },
): void {
  meter.inputTokens += count(usage.inputTokens);
  meter.outputTokens += count(usage.outputTokens);
  meter.cachedInputTokens += count(usage.inputTokenDetails?.cacheReadTokens);
}

/** A provider's number as a count: absent, negative or not a whole number counts as 0 or is rounded down. */
const count = (n: number | undefined) => (typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : 0);
