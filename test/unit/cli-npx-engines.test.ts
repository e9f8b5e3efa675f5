/**
 * `npx agent-gateway ...` from the checkout, with the machine's own Node (20 on these machines and
 * on CI) first on PATH, as a newcomer's second terminal has it: no npm `EBADENGINE` warning before
 * the command's output. npx installs the checkout itself into its cache on the first run (a bin of
 * the project's own package.json is linked there) and checks that package's `engines` against the
 * Node running npm; the checkout's package.json states none (the packed manifest does, see
 * scripts/pack-manifest.ts). A control package with `engines` shows the same npm does warn, so the
 * test can fail. Without a Node older than 22 on PATH the test fails and says so: it is never
 * skipped.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const scratch = mkdtempSync(path.join(tmpdir(), 'agent-gateway-npx-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** PATH without any node_modules/.bin (the project's Node 24), as the machine has it. */
const machinePath = (process.env.PATH ?? '')
  .split(path.delimiter)
  .filter((dir) => dir !== '' && !dir.split(path.sep).includes('node_modules'))
  .join(path.delimiter);

/** The first `node` on the machine's PATH, with its version. */
function machineNode(): { file: string; version: string } | undefined {
  for (const dir of machinePath.split(path.delimiter)) {
    const file = path.join(dir, 'node');
    try {
      accessSync(file, constants.X_OK);
    } catch {
      continue;
    }
    const version = spawnSync(file, ['--version'], { encoding: 'utf8' }).stdout.trim();
    return { file, version };
  }
  return undefined;
}

/** `npx ARGS` in `cwd` with the machine's PATH and a fresh npm cache (the first run, which warned). */
function npx(cwd: string, args: string[]) {
  const cache = mkdtempSync(path.join(scratch, 'cache-'));
  const env = {
    PATH: machinePath,
    HOME: scratch,
    npm_config_cache: cache,
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  };
  const result = spawnSync('npx', args, { cwd, env, encoding: 'utf8', timeout: 60_000 });
  return {
    status: result.status,
    stdout: result.stdout ?? '',
    stderr: `${result.stderr ?? ''}${result.error ? String(result.error) : ''}`,
  };
}

describe("npx agent-gateway on the machine's own Node", () => {
  const node = machineNode();

  it('has a Node older than 22 on PATH outside node_modules (these machines and CI ship Node 20)', () => {
    expect(node, `no node on PATH outside node_modules (PATH=${machinePath})`).toBeDefined();
    const major = Number(/^v(\d+)\./.exec(node!.version)?.[1]);
    expect(major, `${node!.file} is ${node!.version}: this test needs the machine's Node 20 to show the warning's absence`).toBeLessThan(
      22,
    );
  });

  it('a package whose engines want Node >= 22.12 gets EBADENGINE from this npx (the control)', () => {
    const dir = mkdtempSync(path.join(scratch, 'control-'));
    writeFileSync(path.join(dir, 'bin.js'), '#!/usr/bin/env node\nconsole.log("control ran");\n');
    chmodSync(path.join(dir, 'bin.js'), 0o755);
    writeFileSync(
      path.join(dir, 'package.json'),
      JSON.stringify({ name: 'control', version: '1.0.0', bin: { control: 'bin.js' }, engines: { node: '>=22.12.0' } }),
    );
    const run = npx(dir, ['control']);
    expect(run.stdout, run.stderr).toContain('control ran');
    expect(run.stderr).toContain('EBADENGINE');
  }, 60_000);

  it.each([['--version'], ['help']])(
    'npx agent-gateway %s prints no EBADENGINE (nor any npm warning)',
    (arg) => {
      const run = npx(ROOT, ['agent-gateway', arg]);
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toMatch(arg === '--version' ? /^agent-gateway \d+\.\d+\.\d+ \(node / : /^agent-gateway: the command line/);
      expect(run.stderr).not.toContain('EBADENGINE');
      expect(run.stderr).not.toMatch(/^npm warn/m);
    },
    60_000,
  );
});
