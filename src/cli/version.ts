/** `agent-gateway --version`: the version of the package (or checkout) the CLI runs from. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { REPO_ROOT } from './gateway-url';

/** `agent-gateway <version> (node <version>)`, from the package.json next to the CLI. */
export async function versionLine(): Promise<string> {
  let version = 'unknown';
  try {
    const manifest = JSON.parse(await readFile(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version?: unknown };
    if (typeof manifest.version === 'string') version = manifest.version;
  } catch {
    // a package without its manifest: say so rather than fail
  }
  return `agent-gateway ${version} (node ${process.versions.node})`;
}
