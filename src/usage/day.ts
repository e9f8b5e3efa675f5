/** UTC days as usage keeps them: `YYYY-MM-DD`, from the worker's clock. */

const DAY_MS = 86_400_000;

/** The UTC day of `now` (ms), `YYYY-MM-DD`. */
export function utcDay(now: number): string {
  return new Date(now).toISOString().slice(0, 10);
}

/** The next UTC midnight after `now` (ms). */
export function nextUtcMidnight(now: number): number {
  return Math.floor(now / DAY_MS) * DAY_MS + DAY_MS;
}

/** Whole seconds from `now` to the next UTC midnight, at least 1: the `Retry-After` of a reached limit. */
export function secondsToNextUtcDay(now: number): number {
  return Math.max(1, Math.ceil((nextUtcMidnight(now) - now) / 1000));
}

/** Whether `text` is a real calendar day written `YYYY-MM-DD` (2026-02-30 is not). */
export function isUtcDay(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const time = Date.parse(`${text}T00:00:00Z`);
  return Number.isFinite(time) && utcDay(time) === text;
}

/** Days from `from` to `to`, both included (1 for one day; 0 or less when `from` is after `to`). */
export function daysIncluded(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1;
}
