/**
 * `prepack`/`postpack` helper. The checkout's package.json lists anvil as an optional dependency
 * (the local chain of `npm run dev` and the tests, 43 MB, Linux x64); users of the package must
 * not get it. `strip` keeps package.json aside as package.json.pack-backup and writes it without
 * `optionalDependencies`, so the tarball's manifest has none; `restore` puts the original back.
 * A pack that failed in between leaves the backup, which the next `strip` (or `restore`) restores
 * first.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MANIFEST = path.join(ROOT, 'package.json');
const BACKUP = `${MANIFEST}.pack-backup`;

function restore(): void {
  if (existsSync(BACKUP)) renameSync(BACKUP, MANIFEST);
}

const command = process.argv[2];
if (command === 'restore') {
  restore();
} else if (command === 'strip') {
  restore();
  const text = readFileSync(MANIFEST, 'utf8');
  const manifest = JSON.parse(text) as Record<string, unknown>;
  delete manifest.optionalDependencies;
  writeFileSync(BACKUP, text);
  writeFileSync(MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);
} else {
  console.error('usage: pack-manifest.ts strip|restore');
  process.exitCode = 2;
}
