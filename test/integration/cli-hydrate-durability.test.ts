/**
 * Faults lose nothing: Postgres is SIGKILLed in the middle of a CLI `hydrate`, right after it
 * acknowledged a batch, and restarted; the run retries through the outage, the documented rerun
 * (the same command) stores nothing new, and every key holds its lines exactly once, in file
 * order. With `synchronous_commit=off` the batches acknowledged just before the kill vanished and
 * the rerun appended them after later ones.
 *
 * Its own Postgres, bridge and worker (so the shared harness' Postgres is never killed); the CLI
 * talks to the worker through a loopback proxy that pulls the trigger. The worker's sign-in
 * domain is the proxy's, as it would be behind any front end.
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { registerCollection } from '../../scripts/lib/collections';
import { migrateGateway } from '../../scripts/lib/migrate';
import { ensureDatabase, startPostgres, type RunningPostgres } from '../../scripts/lib/postgres';
import { freePort, sleep, waitForExit } from '../../scripts/lib/processes';
import { startMiniflare } from '../../scripts/lib/worker-bundle';
import { startWsBridge, type RunningBridge } from '../../scripts/lib/ws-bridge';
import { createGatewayClient } from '../../src/client';
import { mintFreshAgent, newWallet } from '../support/chain';
import { cliEnv, runCli } from '../support/cli';
import { deployment } from '../support/http';
import { answerForwarded, answerJson, forward, listen, type Listener } from '../support/loopback';
import { workerBindingsFor } from '../support/worker';

const stack = inject('stack');
const testnet = deployment('testnet');
const KEYS = ['durable:a', 'durable:b', 'durable:c', 'durable:d'];
const LINES = 2_400; // 600 per key: 6 batches of 100 each, 24 in all
const KILL_AFTER_ACKS = 6;

let stateDir = '';
let dataDir = '';
let pgPort = 0;
let postgres: RunningPostgres | undefined;
let bridge: RunningBridge | undefined;
let worker: Awaited<ReturnType<typeof startMiniflare>> | undefined;
let proxy: Listener | undefined;
let restarted: Promise<void> | undefined;

/** Starts Postgres on the same data directory; retries while the killed server's backends exit. */
async function restartPostgres(): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      postgres = await startPostgres({ dataDir, port: pgPort });
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await sleep(250);
    }
  }
}

const acks = { beforeKill: 0, afterKill: 0 };
let killedAt = 0;

beforeAll(async () => {
  stateDir = await mkdtemp(path.join(tmpdir(), 'hydrate-durability-'));
  await chmod(stateDir, 0o755); // Postgres runs as its own user when we are root
  dataDir = path.join(stateDir, 'pg');
  pgPort = await freePort();
  const [started, startedBridge] = await Promise.all([startPostgres({ dataDir, port: pgPort }), freePort().then(startWsBridge)]);
  postgres = started;
  bridge = startedBridge;
  await ensureDatabase(postgres.adminUrl, 'agent_gateway');
  const databaseUrl = postgres.databaseUrl('agent_gateway');
  await migrateGateway(databaseUrl);
  await registerCollection(databaseUrl, { chainId: 80002, address: testnet.collection, kind: 'internal' });

  // CLI -> proxy -> worker. After the KILL_AFTER_ACKS-th stored batch the proxy SIGKILLs the
  // postmaster, then passes that acknowledgement on: the CLI holds a 200 for a batch committed
  // just before the crash.
  proxy = await listen(async (req, res, raw) => {
    if (!worker) return answerJson(res, 503, { error: { code: 'dependency_unavailable', message: 'starting' }, requestId: 'proxy' });
    const answer = await forward(worker.url, req, raw);
    if (req.method === 'POST' && req.path.endsWith('/messages') && answer.status === 200) {
      if (killedAt === 0 && ++acks.beforeKill === KILL_AFTER_ACKS) {
        killedAt = Date.now();
        const pid = postgres!.pid!;
        process.kill(pid, 'SIGKILL');
        await waitForExit(pid, 5_000);
        restarted = sleep(1_000).then(restartPostgres);
      } else if (killedAt !== 0) acks.afterKill++;
    }
    answerForwarded(res, answer);
  });
  const origin = proxy.url;
  worker = await startMiniflare({
    scriptPath: stack.scriptPath,
    deployment: 'testnet',
    bindings: {
      ...workerBindingsFor(stack),
      DATABASE_URL: databaseUrl,
      DB_WS_PROXY: bridge.proxy,
      SIWE_DOMAIN: new URL(origin).host,
      SIWE_URI: origin,
    },
  });
}, 120_000);

afterAll(async () => {
  await restarted?.catch(() => undefined);
  await proxy?.close().catch(() => undefined);
  await worker?.dispose().catch(() => undefined);
  await bridge?.stop().catch(() => undefined);
  await postgres?.stop().catch(() => undefined);
  if (stateDir) await rm(stateDir, { recursive: true, force: true });
});

describe('hydrate when Postgres is killed half-way and restarted', () => {
  it('keeps every acknowledged batch; the rerun stores nothing twice; every key is exact and in file order', async () => {
    const owner = newWallet();
    const tokenFile = path.join(stateDir, 'token.json');
    const env = cliEnv({ HOME: stateDir, AGENT_GATEWAY_URL: proxy!.url, AGENT_GATEWAY_TOKEN_FILE: tokenFile });
    const [tokenId, loggedIn] = await Promise.all([
      mintFreshAgent(testnet, owner.address),
      runCli(['login'], { ...env, AGENT_GATEWAY_PRIVATE_KEY: owner.privateKey }),
    ]);
    expect(loggedIn.code, loggedIn.output).toBe(0);

    const lines = Array.from({ length: LINES }, (_, i) => ({ key: KEYS[i % KEYS.length]!, role: 'user', message: `line ${i + 1}` }));
    const file = path.join(stateDir, 'memory.jsonl');
    await writeFile(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    const args = [
      'hydrate',
      '--file',
      file,
      '--create-missing',
      '--parallel',
      '2',
      '--json',
      '--collection',
      testnet.collection,
      '--token-id',
      tokenId.toString(),
    ];

    const first = await runCli(args, env, 150_000);
    expect(killedAt, `Postgres was never killed:\n${first.output}`).toBeGreaterThan(0);
    await restarted;
    expect(acks.afterKill, `batches stored after the restart:\n${first.output}`).toBeGreaterThan(0);
    expect(first.code, first.output).toBe(0);
    expect(first.stderr).toMatch(/retry/);

    // The documented rerun: every batch is already stored, so every one is a replay.
    const again = await runCli(args, env, 150_000);
    expect(again.code, again.output).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ valid: LINES, sent: 0, replayed: LINES, failed: 0 });

    const token = (JSON.parse(await readFile(tokenFile, 'utf8')) as { logins: Record<string, { token: string }> }).logins[proxy!.url]!
      .token;
    const agent = createGatewayClient({ baseUrl: worker!.url, token }).agent(testnet.collection, tokenId);
    for (const key of KEYS) {
      const stored: string[] = [];
      for await (const m of agent.messages(key)) stored.push(m.message);
      expect(stored, key).toEqual(lines.filter((l) => l.key === key).map((l) => l.message));
    }
  }, 300_000);
});
