#!/usr/bin/env node
// agent-gateway CLI. Installed from the package, it runs the compiled CLI (dist/cli.js). In a
// checkout of the repository (src/ present, tsx installed as a devDependency) it runs the
// TypeScript sources through tsx instead, so in-repo runs never use a stale build.
import { existsSync } from 'node:fs';

const sources = new URL('../src/cli/main.ts', import.meta.url);
const tsx = existsSync(sources) ? await import('tsx/esm/api').catch(() => null) : null;
let main;
if (tsx) {
  tsx.register();
  ({ main } = await import(sources.href));
} else {
  ({ main } = await import('../dist/cli.js'));
}
process.exitCode = await main(process.argv.slice(2));
