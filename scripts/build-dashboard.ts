/**
 * `node --import tsx scripts/build-dashboard.ts`: the dashboard's static assets into .dashboard/
 * (scripts/lib/dashboard-build.ts). Run by wrangler before every deploy, dry run and dev start
 * (`[build] command` in both wrangler files), so a fresh clone needs no pre-built files.
 */
import path from 'node:path';
import { buildDashboard } from './lib/dashboard-build';
import { REPO_ROOT } from './lib/migrate';

const built = await buildDashboard();
const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
console.log(
  `dashboard: ${path.relative(REPO_ROOT, built.outDir)}/ (${built.files.map((f) => `${f.urlPath} ${kib(f.gzipBytes)}`).join(', ')}; ${kib(built.gzipBytes)} gzip in all)`,
);
