/**
 * The deployed bundle's budget (issue 10): what `wrangler deploy --dry-run` writes (the harness
 * builds it once, exactly as a deploy would) must stay at or under 1 MiB gzip. Cloudflare measures
 * a Worker's size compressed; 1 MiB leaves room under the free plan's 3 MB and keeps cold starts
 * short. The figure is printed, so a run shows how close it is.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, inject, it } from 'vitest';

const BUDGET_BYTES = 1024 * 1024;

/** Every file of the bundle directory, recursively. */
function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(file).isDirectory() ? files(file) : [file];
  });
}

describe('the deployed bundle', () => {
  it('is at most 1 MiB gzip', () => {
    const dir = path.dirname(inject('stack').scriptPath);
    const modules = files(dir).filter((file) => !file.endsWith('.map'));
    expect(modules.length).toBeGreaterThan(0);
    const raw = modules.reduce((sum, file) => sum + statSync(file).size, 0);
    const gzip = modules.reduce((sum, file) => sum + gzipSync(readFileSync(file), { level: 9 }).byteLength, 0);
    console.log(`bundle: ${modules.length} file(s), ${raw} bytes, ${gzip} bytes gzip (budget ${BUDGET_BYTES})`);
    expect(gzip).toBeLessThanOrEqual(BUDGET_BYTES);
  });
});
