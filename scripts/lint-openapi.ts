/**
 * `npm run lint:openapi`: lints the OpenAPI document the routes generate with Redocly CLI's
 * `recommended` rules, offline (no server, no telemetry, no update check). Fails on any error or
 * warning. `npm run lint:openapi -- --keep` leaves the document in a temp file to look at.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openApiDocument } from './lib/openapi-document';

const keep = process.argv.includes('--keep');
const dir = await mkdtemp(path.join(tmpdir(), 'agent-gateway-openapi-'));
const file = path.join(dir, 'openapi.json');
let status = 1;
try {
  await writeFile(file, `${JSON.stringify(await openApiDocument(), null, 2)}\n`);
  const cli = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');
  const run = spawnSync(process.execPath, [cli, 'lint', file, '--extends=recommended-strict', '--max-problems=1000'], {
    stdio: 'inherit',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_UPDATE_NOTIFIER: '1' },
  });
  status = run.status ?? 1;
} finally {
  if (keep) console.log(`document: ${file}`);
  else await rm(dir, { recursive: true, force: true });
}
process.exit(status);
