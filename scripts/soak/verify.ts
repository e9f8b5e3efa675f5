/**
 * The read-back: every context the load wrote to, read whole through the gateway after the last
 * fault (not recorded), against what the gateway acknowledged. A message is found when its id
 * holds the same role and text; a text the load sent once and finds twice is a duplicate (an
 * Idempotency-Key that did not hold). A reply is found when its assistant message is, and the
 * message it answered is stored too.
 */
import type { AgentClient } from '../../src/client';
import type { AckedMessage, LoadResult } from './load';

export interface ReadBack {
  messagesAcked: number;
  messagesFound: number;
  repliesAcked: number;
  repliesFound: number;
  /** Acknowledged texts stored more than once. */
  duplicates: number;
  /** What was lost, for the report (context, id, role; never more than 20). */
  lost: { context: string; id: number; role: string }[];
}

export async function readBack(reader: AgentClient, load: LoadResult): Promise<ReadBack> {
  const stored = new Map<string, Map<number, { role: string; text: string }>>();
  const textCount = new Map<string, number>();
  for (const context of load.contexts) {
    const byId = new Map<number, { role: string; text: string }>();
    for await (const m of reader.messages(context, { limit: 100 })) {
      byId.set(m.id, { role: m.role, text: m.message });
      const k = `${context}\n${m.message}`;
      textCount.set(k, (textCount.get(k) ?? 0) + 1);
    }
    stored.set(context, byId);
  }
  const lost: ReadBack['lost'] = [];
  const found = (m: AckedMessage) => {
    const s = stored.get(m.context)?.get(m.id);
    const ok = s !== undefined && s.role === m.role && s.text === m.text;
    if (!ok && lost.length < 20) lost.push({ context: m.context, id: m.id, role: m.role });
    return ok;
  };
  const messagesFound = load.messages.filter(found).length;
  const duplicates = load.messages.filter((m) => (textCount.get(`${m.context}\n${m.text}`) ?? 0) > 1).length;
  let repliesFound = 0;
  for (const r of load.replies) {
    const askedStored = (textCount.get(`${r.context}\n${r.asked}`) ?? 0) > 0;
    if (!askedStored && lost.length < 20) lost.push({ context: r.context, id: -1, role: 'user (the reply asked)' });
    if ((r.reply === null || found(r.reply)) && askedStored) repliesFound++;
  }
  return {
    messagesAcked: load.messages.length,
    messagesFound,
    repliesAcked: load.replies.length,
    repliesFound,
    duplicates,
    lost,
  };
}
