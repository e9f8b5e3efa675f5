/**
 * Step 2 of a hydration (the CLI's `agent-gateway hydrate` and the dashboard's upload): per key, its valid lines in file order, cut into batches of
 * up to 100 messages (and at most ~900 kB of JSON, under the gateway's 1 MiB body limit). Each
 * batch gets the Idempotency-Key `hydrate:<first 16 hex of sha256(file)>:<firstLine>-<lastLine>`,
 * so the same file always yields the same batches and keys: a rerun after a crash replays the
 * batches that were stored (`Idempotent-Replayed: true`) and stores nothing twice.
 */
import type { HydrateFile, HydrateRecord } from './parse';

export const MAX_BATCH_MESSAGES = 100;
/** Estimated JSON body size a batch may reach (the gateway's default MAX_BODY_BYTES is 1 MiB). */
export const MAX_BATCH_BYTES = 900 * 1024;

const utf8 = new TextEncoder();

export interface Batch {
  key: string;
  /** Line numbers of the first and last message. */
  first: number;
  last: number;
  records: HydrateRecord[];
  idempotencyKey: string;
}

export interface HydratePlan {
  fileId: string;
  /** Keys in order of first appearance. */
  keys: string[];
  batchesByKey: Map<string, Batch[]>;
  totalMessages: number;
  batchCount: number;
}

/** The batches of a file: per key, its records in file order, up to 100 (and ~900 kB) each. */
export function planHydration(
  file: Pick<HydrateFile, 'fileId' | 'records'>,
  options: { maxMessages?: number; maxBytes?: number } = {},
): HydratePlan {
  const maxMessages = options.maxMessages ?? MAX_BATCH_MESSAGES;
  const maxBytes = options.maxBytes ?? MAX_BATCH_BYTES;
  const byKey = new Map<string, HydrateRecord[]>();
  for (const record of file.records) {
    let list = byKey.get(record.key);
    if (!list) {
      list = [];
      byKey.set(record.key, list);
    }
    list.push(record);
  }
  const batchesByKey = new Map<string, Batch[]>();
  let batchCount = 0;
  const make = (key: string, records: HydrateRecord[]): Batch => {
    const first = records[0]!.line;
    const last = records[records.length - 1]!.line;
    batchCount++;
    return { key, first, last, records, idempotencyKey: `hydrate:${file.fileId}:${first}-${last}` };
  };
  for (const [key, records] of byKey) {
    const batches: Batch[] = [];
    let current: HydrateRecord[] = [];
    let bytes = 16;
    for (const record of records) {
      const size = utf8.encode(JSON.stringify({ message: record.message, role: record.role })).byteLength + 1;
      if (current.length > 0 && (current.length >= maxMessages || bytes + size > maxBytes)) {
        batches.push(make(key, current));
        current = [];
        bytes = 16;
      }
      current.push(record);
      bytes += size;
    }
    if (current.length > 0) batches.push(make(key, current));
    batchesByKey.set(key, batches);
  }
  return { fileId: file.fileId, keys: [...byKey.keys()], batchesByKey, totalMessages: file.records.length, batchCount };
}
