/**
 * Step 1 of `agent-gateway hydrate` (see ./hydrate-run.ts for the whole flow): the file's lines
 * checked by the shared parser (src/hydrate/parse.ts), its id the sha256 of its bytes.
 */
import { createHash } from 'node:crypto';
import { fileIdOf, type HydrateFile, parseHydrateContent } from '../hydrate/parse';

export type { FailedLine, HydrateFile, HydrateRecord } from '../hydrate/parse';

const utf8 = new TextEncoder();

/** Reads and checks every line; nothing is sent. */
export function parseHydrateFile(content: Uint8Array | string): HydrateFile {
  const bytes = typeof content === 'string' ? utf8.encode(content) : content;
  return parseHydrateContent(content, fileIdOf(createHash('sha256').update(bytes).digest('hex')));
}
