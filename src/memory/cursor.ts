/**
 * The search cursor: opaque to clients, it holds the last hit's place in the ranking (score, id)
 * and a digest of the query and filters, so it only reads on the search that issued it.
 */
import { AppError } from '../errors';
import { sha256Hex } from '../encoding/sha256-hex';

/** Where the previous page stopped: hits rank by descending score, then descending id. */
export interface SearchPosition {
  /** The score as Postgres rounded it (a decimal string, compared as numeric: exact). */
  score: string;
  id: number;
}

const SCORE = /^\d{1,6}(\.\d{1,6})?$/;
const ID = /^\d{1,15}$/;
const DIGEST = /^[0-9a-f]{16}$/;

/** A digest of what the results depend on (not `limit`: pages may differ in size). */
export async function searchDigest(input: unknown): Promise<string> {
  return (await sha256Hex(JSON.stringify(input))).slice(0, 16);
}

export function encodeSearchCursor(position: SearchPosition, digest: string): string {
  const text = `s1:${position.score}:${position.id}:${digest}`;
  return btoa(text).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
}

function invalidCursor(reason: string): AppError {
  return new AppError('validation_failed', 'The cursor is not valid: pass nextCursor from the previous page of the same search', {
    details: { issues: [{ path: 'cursor', message: reason }] },
  });
}

/** The position a cursor holds; 400 `validation_failed` when it is not ours or was issued for another search. */
export function decodeSearchCursor(cursor: string, digest: string): SearchPosition {
  let text: string;
  try {
    text = atob(cursor.replace(/-/g, '+').replace(/_/g, '/'));
  } catch {
    throw invalidCursor('not a cursor issued by this endpoint');
  }
  const [tag, score, id, issuedFor, ...rest] = text.split(':');
  if (tag !== 's1' || rest.length > 0 || !SCORE.test(score ?? '') || !ID.test(id ?? '') || !DIGEST.test(issuedFor ?? '')) {
    throw invalidCursor('not a cursor issued by this endpoint');
  }
  if (issuedFor !== digest) throw invalidCursor('issued for another query or other filters');
  return { score: score!, id: Number(id) };
}
