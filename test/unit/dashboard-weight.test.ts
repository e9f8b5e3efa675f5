/**
 * The dashboard's weight budget: everything /app loads (HTML, the hashed JS and CSS,
 * the icon), gzip-compressed, stays within DASHBOARD_GZIP_BUDGET_BYTES. Builds the dashboard as
 * `scripts/build-dashboard.ts` does, into a temporary directory. A size check, not a timing.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildDashboard, DASHBOARD_GZIP_BUDGET_BYTES } from '../../scripts/lib/dashboard-build';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('the dashboard build', () => {
  it('loads at most the gzip budget: HTML + JS + CSS + icon', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'agent-gateway-dashboard-'));
    dirs.push(dir);
    const built = await buildDashboard(dir);
    const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
    console.log(
      `dashboard weight: ${kib(built.gzipBytes)} gzip (budget ${kib(DASHBOARD_GZIP_BUDGET_BYTES)}): ${built.files.map((f) => `${f.urlPath} ${kib(f.gzipBytes)}`).join(', ')}`,
    );
    expect(built.files.map((f) => f.urlPath)).toEqual([
      '/app/index.html',
      expect.stringMatching(/^\/app\/assets\/main-[A-Z0-9]{8}\.js$/),
      expect.stringMatching(/^\/app\/assets\/main-[A-Z0-9]{8}\.css$/),
      '/app/icon.svg',
    ]);
    expect(built.gzipBytes).toBeLessThanOrEqual(DASHBOARD_GZIP_BUDGET_BYTES);
  });

  it('is deterministic (two builds, the same names and bytes) and names no other origin', async () => {
    const [a, b] = await Promise.all([0, 1].map(() => mkdtemp(path.join(tmpdir(), 'agent-gateway-dashboard-'))));
    dirs.push(a as string, b as string);
    const first = await buildDashboard(a);
    const second = await buildDashboard(b);
    expect(second.files).toEqual(first.files);
    const html = await readFile(path.join(first.outDir, 'app/index.html'), 'utf8');
    expect(html).not.toMatch(/https?:\/\//);
  });
});
