/**
 * A memory tool's result within `MAX_MEMORY_RESULT_BYTES`: each message's text goes in verbatim,
 * cut only at its end, and whole entries are kept while they fit.
 */

/** A memory tool's whole result at most (UTF-8 bytes of its JSON). */
export const MAX_MEMORY_RESULT_BYTES = 16 * 1024;

const bytes = (text: string) => new TextEncoder().encode(text).length;

/** `text` cut to its first `chars` UTF-16 units, never inside a surrogate pair. */
function prefix(text: string, chars: number): string {
  const code = text.charCodeAt(chars - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? chars - 1 : chars);
}

/** `entry` with its message cut at the end (`cut: true`) to the most that fits `room` bytes; null if none does. */
function cutEntry<E extends { message: string }>(entry: E, room: number): (E & { cut: true }) | null {
  const size = (chars: number) => bytes(JSON.stringify({ ...entry, message: prefix(entry.message, chars), cut: true }));
  if (size(0) > room) return null;
  let lo = 0;
  let hi = entry.message.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (size(mid) <= room) lo = mid;
    else hi = mid - 1;
  }
  return { ...entry, message: prefix(entry.message, lo), cut: true };
}

/** Bytes kept free in the frame for a number the head learns only from what was kept (`nextBeforeId`). */
const HEAD_SLACK_BYTES = 24;

/**
 * `{ ...head(kept, truncated), [key]: kept, truncated }` as JSON within MAX_MEMORY_RESULT_BYTES:
 * whole entries while they fit, then the next one's message cut at the end, then none
 * (`truncated: true`).
 */
export function fitResult<E extends { message: string }>(
  head: (kept: readonly E[], truncated: boolean) => Record<string, unknown>,
  key: string,
  entries: readonly E[],
): string {
  // `false` is the longer of the two values: the frame never grows.
  let room = MAX_MEMORY_RESULT_BYTES - HEAD_SLACK_BYTES - bytes(JSON.stringify({ ...head([], false), [key]: [], truncated: false }));
  const kept: E[] = [];
  let truncated = false;
  for (const entry of entries) {
    const comma = kept.length > 0 ? 1 : 0;
    const cost = bytes(JSON.stringify(entry)) + comma;
    if (cost <= room) {
      kept.push(entry);
      room -= cost;
      continue;
    }
    truncated = true;
    const cut = cutEntry(entry, room - comma);
    if (cut) kept.push(cut);
    break;
  }
  return JSON.stringify({ ...head(kept, truncated), [key]: kept, truncated });
}
