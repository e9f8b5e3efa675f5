import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './migrate';

/** DATABASE_URL, or the running dev stack's database (from `.dev/stack.json`), for operator scripts. */
export function operatorDatabaseUrl(): string {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  const stackFile = path.join(REPO_ROOT, process.env.DEV_DIR ?? '.dev', 'stack.json');
  if (existsSync(stackFile)) return (JSON.parse(readFileSync(stackFile, 'utf8')) as { databaseUrl: string }).databaseUrl;
  throw new Error('set DATABASE_URL (or start the local stack with npm run dev)');
}
