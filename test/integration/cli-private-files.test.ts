/**
 * The CLI never writes through a link (issue 18): hydrate's failed-lines file is written to a new
 * temporary file and renamed into place, mode 0600, and a failed-lines path that is already a
 * symbolic link (planted by anyone who can write the input's directory) is refused, leaving the
 * file it points to as it was. The real CLI runs; a file of invalid lines needs no gateway.
 */
import { lstat, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, runCli, tempDir } from '../support/cli';

let dir = '';
let remove: () => Promise<void> = async () => undefined;
beforeAll(async () => {
  ({ dir, remove } = await tempDir());
});
afterAll(async () => {
  await remove();
});

const env = () => cliEnv({ HOME: dir, AGENT_GATEWAY_URL: 'http://127.0.0.1:9' });
const INVALID = '{"key":"notes","role":"robot","message":"hi"}\nnot json\n';

describe('hydrate --failed-out', () => {
  it('refuses a failed-lines file that is a symbolic link, leaving its target untouched', async () => {
    const input = path.join(dir, 'linked.jsonl');
    const victim = path.join(dir, 'bashrc');
    await writeFile(input, INVALID);
    await writeFile(victim, 'precious\n');
    await symlink(victim, path.join(dir, 'linked.failed.jsonl')); // the default failed path
    const result = await runCli(['hydrate', '--file', input], env());
    expect(result.code, result.output).not.toBe(0);
    expect(result.stderr).toMatch(/symbolic link/);
    expect(await readFile(victim, 'utf8')).toBe('precious\n');
  });

  it('writes the failed lines to a plain path with mode 0600', async () => {
    const input = path.join(dir, 'plain.jsonl');
    await writeFile(input, INVALID);
    const result = await runCli(['hydrate', '--file', input], env());
    expect(result.code, result.output).toBe(1);
    const failed = path.join(dir, 'plain.failed.jsonl');
    expect((await readFile(failed, 'utf8')).trim().split('\n')).toHaveLength(2);
    expect((await lstat(failed)).mode & 0o777).toBe(0o600);
  });
});
