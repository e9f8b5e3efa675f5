/**
 * The CLI's output files never go through a link (issue 18): a target that is a symbolic link is
 * refused and its target left as it was; a regular file is replaced whole by rename, mode 0600;
 * nothing is left behind on failure.
 */
import { lstat, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openPrivateOutput, writePrivateFile } from '../../src/cli/private-file';

let dir = '';
let victim = '';
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'private-file-'));
  victim = path.join(dir, 'bashrc');
  await writeFile(victim, 'precious\n');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('writePrivateFile (hydrate failed lines, saved logins)', () => {
  it('refuses a target that is a symbolic link, leaving what it points to untouched, and leaves no temporary file', async () => {
    const target = path.join(dir, 'input.failed.jsonl');
    await symlink(victim, target);
    await expect(writePrivateFile(target, 'attacker controlled\n')).rejects.toThrow(/symbolic link/);
    expect(await readFile(victim, 'utf8')).toBe('precious\n');
    expect((await lstat(target)).isSymbolicLink()).toBe(true);
    expect((await readdir(dir)).sort()).toEqual(['bashrc', 'input.failed.jsonl']);
  });

  it('refuses a dangling link and a directory too', async () => {
    const dangling = path.join(dir, 'dangling');
    await symlink(path.join(dir, 'not-yet'), dangling);
    await expect(writePrivateFile(dangling, 'x')).rejects.toThrow(/symbolic link/);
    await expect(readFile(path.join(dir, 'not-yet'))).rejects.toThrow();
    await expect(writePrivateFile(dir, 'x')).rejects.toThrow(/not a regular file/);
  });

  it('writes a new file, and replaces an existing one whole, mode 0600', async () => {
    const target = path.join(dir, 'out.jsonl');
    await writePrivateFile(target, 'one\n');
    await writeFile(target, 'old content that is longer\n', { mode: 0o644 });
    await writePrivateFile(target, 'two\n');
    expect(await readFile(target, 'utf8')).toBe('two\n');
    expect((await lstat(target)).mode & 0o777).toBe(0o600);
    expect((await readdir(dir)).sort()).toEqual(['bashrc', 'out.jsonl']);
  });
});

describe('openPrivateOutput (messages export --out)', () => {
  it('refuses a link before writing anything', async () => {
    const target = path.join(dir, 'export.jsonl');
    await symlink(victim, target);
    await expect(openPrivateOutput(target)).rejects.toThrow(/symbolic link/);
    expect(await readFile(victim, 'utf8')).toBe('precious\n');
  });

  it('streams to a temporary file and puts it in place on commit; a link planted meanwhile is replaced, not followed', async () => {
    const target = path.join(dir, 'export.jsonl');
    const out = await openPrivateOutput(target);
    out.stream.write('line 1\n');
    await symlink(victim, target); // planted after the check: refused at commit
    await expect(out.commit()).rejects.toThrow(/symbolic link/);
    expect(await readFile(victim, 'utf8')).toBe('precious\n');
    await rm(target);
    const again = await openPrivateOutput(target);
    again.stream.write('line 1\n');
    await again.commit();
    expect(await readFile(target, 'utf8')).toBe('line 1\n');
    expect((await lstat(target)).mode & 0o777).toBe(0o600);
    expect((await readdir(dir)).sort()).toEqual(['bashrc', 'export.jsonl']);
  });

  it('abort leaves nothing behind', async () => {
    const out = await openPrivateOutput(path.join(dir, 'export.jsonl'));
    out.stream.write('partial\n');
    await out.abort();
    expect(await readdir(dir)).toEqual(['bashrc']);
  });
});
