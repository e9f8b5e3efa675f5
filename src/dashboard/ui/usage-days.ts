import type { UsageGroup } from '../../client';

export interface DayUsage {
  day: string;
  input: number;
  cached: number;
  output: number;
}

/** Every day of `from`..`to` (UTC, both included) with its usage, 0 where there was none. */
export function daysOf(from: string, to: string, groups: readonly UsageGroup[]): DayUsage[] {
  const byDay = new Map(groups.flatMap((g) => (g.day ? [[g.day, g] as const] : [])));
  const days: DayUsage[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000) {
    const day = new Date(t).toISOString().slice(0, 10);
    const g = byDay.get(day);
    days.push({ day, input: g?.inputTokens ?? 0, cached: g?.cachedInputTokens ?? 0, output: g?.outputTokens ?? 0 });
  }
  return days;
}
