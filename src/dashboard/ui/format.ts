/** An ISO time as the reader's local date and time (minutes), or `never`/`-` for null. */
export function when(iso: string | null | undefined, none = '-'): string {
  if (!iso) return none;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** `1 model call`, `3 model calls`. */
export function plural(n: number, noun: string): string {
  return `${count(n)} ${noun}${n === 1 ? '' : 's'}`;
}

/** A whole number with the reader's grouping (12,400). */
export function count(n: number): string {
  return n.toLocaleString();
}
