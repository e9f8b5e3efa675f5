import type { SqlClient } from '../storage/sql-client';

/**
 * How often one isolate writes a key's use: its first use at once, then at most once per this
 * time, adding the uses counted meanwhile. No request waits for it (`waitUntil`), and a burst of
 * keyed requests costs one write a minute per key and isolate, not one each.
 */
export const KEY_USE_FLUSH_MS = 60_000;
/** Keys one isolate keeps counts for; the oldest is dropped (its unwritten uses with it). */
const MAX_TRACKED = 5_000;

const tracked = new Map<string, { unwritten: number; lastUse: number; writtenAt: number }>();

/**
 * Notes one use of key `id` at `now` (ms) and writes the counts when due. `use_count` is therefore
 * a lower bound (uses noted by an isolate that is evicted before its next write are lost) and
 * `last_used_at` is at most KEY_USE_FLUSH_MS behind.
 */
export async function recordKeyUse(sql: SqlClient, id: string, now: number): Promise<void> {
  let entry = tracked.get(id);
  if (!entry) {
    if (tracked.size >= MAX_TRACKED) tracked.delete(tracked.keys().next().value!);
    entry = { unwritten: 0, lastUse: now, writtenAt: Number.NEGATIVE_INFINITY };
    tracked.set(id, entry);
  }
  entry.unwritten += 1;
  entry.lastUse = Math.max(entry.lastUse, now);
  if (now - entry.writtenAt < KEY_USE_FLUSH_MS) return;
  const uses = entry.unwritten;
  entry.unwritten = 0;
  entry.writtenAt = now;
  await sql.query(
    `update "gateway"."agent_keys"
        set use_count = use_count + $2,
            last_used_at = greatest(coalesce(last_used_at, to_timestamp($3 / 1000.0)), to_timestamp($3 / 1000.0))
      where id = $1`,
    [id, uses, entry.lastUse],
  );
}
