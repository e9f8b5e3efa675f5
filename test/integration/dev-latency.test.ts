/**
 * The latency switches of the local stack: the stand-ins delay each exchange with the
 * database (the bridge: POST /sql, the WebSocket upgrade, each chunk from Postgres) or the chain
 * RPC (the proxy in front of anvil) by the configured ms, and at 0 work as before. Only lower
 * bounds are asserted: that is the switches' function, and a loaded machine only adds time.
 * One `npm run dev` with both switches set checks the wiring end to end.
 */
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, neonConfig } from '@neondatabase/serverless';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import WebSocket from 'ws';
import { collectStackPids, freeDevPorts, spawnDev, stillRunning, waitUntil } from '../../scripts/lib/stack-processes';
import { freePort } from '../../scripts/lib/processes';
import { startRpcProxy, type RpcProxy } from '../../scripts/lib/rpc-proxy';
import { startWsBridge, type RunningBridge } from '../../scripts/lib/ws-bridge';
import { startDevStack } from '../support/dev-run';

const stack = inject('stack');
const LATENCY_MS = 150;

let plain: RunningBridge;
let slow: RunningBridge;
let directRpc: RpcProxy;
let slowRpc: RpcProxy;
const cleanups: (() => Promise<void>)[] = [];

/** The bridge the Neon driver in this process talks to (set per test). */
let bridgeProxy = '';
neonConfig.webSocketConstructor = WebSocket;
neonConfig.wsProxy = (host, port) => `${bridgeProxy}/v1?address=${host}:${port}`;
neonConfig.useSecureWebSocket = false;
neonConfig.pipelineTLS = false;
neonConfig.pipelineConnect = 'password'; // as the worker does (src/storage/db.ts)

beforeAll(async () => {
  [plain, slow, directRpc, slowRpc] = await Promise.all([
    freePort().then((port) => startWsBridge(port)),
    freePort().then((port) => startWsBridge(port, { latencyMs: LATENCY_MS })),
    startRpcProxy(stack.testnet.rpcUrl),
    startRpcProxy(stack.testnet.rpcUrl, { latencyMs: LATENCY_MS }),
  ]);
});

afterAll(async () => {
  await Promise.all([plain?.stop(), slow?.stop(), directRpc?.close(), slowRpc?.close()]);
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - start };
}

async function postSql(bridge: RunningBridge) {
  const res = await fetch(`http://${bridge.proxy}/sql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'neon-connection-string': stack.databaseUrl },
    body: JSON.stringify({ query: 'select 1 as one', params: [] }),
  });
  return { status: res.status, body: (await res.json()) as unknown };
}

/** Connects a Neon driver client through `bridge`, then runs two queries on that one connection. */
async function overWebSocket(bridge: RunningBridge) {
  bridgeProxy = bridge.proxy;
  const client = new Client(stack.databaseUrl);
  const connect = await timed(() => client.connect());
  try {
    const first = await timed(() => client.query('select 1 as one'));
    const second = await timed(() => client.query('select 2 as two'));
    return { connectMs: connect.ms, first, second };
  } finally {
    await client.end();
  }
}

async function chainId(proxy: RpcProxy) {
  const res = await fetch(proxy.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
  });
  return ((await res.json()) as { result: string }).result;
}

describe('DEV_DB_LATENCY_MS: the bridge', () => {
  it('at 0 answers POST /sql and WebSocket queries as before', async () => {
    expect(await postSql(plain)).toMatchObject({ status: 200, body: { rows: [['1']] } });
    const ws = await overWebSocket(plain);
    expect(ws.first.value.rows).toEqual([{ one: 1 }]);
    expect(ws.second.value.rows).toEqual([{ two: 2 }]);
  });

  it(`with ${LATENCY_MS} ms answers POST /sql no sooner than that`, async () => {
    const answer = await timed(() => postSql(slow));
    expect(answer.value).toMatchObject({ status: 200, body: { rows: [['1']] } });
    expect(answer.ms).toBeGreaterThanOrEqual(LATENCY_MS);
  });

  it(`with ${LATENCY_MS} ms: the upgrade and each WebSocket exchange cost it, the answers are intact`, async () => {
    const ws = await overWebSocket(slow);
    // Opening: the upgrade (the driver pipelines startup and password, so it is open after that).
    expect(ws.connectMs).toBeGreaterThanOrEqual(LATENCY_MS);
    expect(ws.first.ms).toBeGreaterThanOrEqual(LATENCY_MS);
    expect(ws.second.ms).toBeGreaterThanOrEqual(LATENCY_MS);
    expect(ws.first.value.rows).toEqual([{ one: 1 }]);
    expect(ws.second.value.rows).toEqual([{ two: 2 }]);
  });
});

describe('DEV_RPC_LATENCY_MS: the JSON-RPC proxy in front of anvil', () => {
  it('at 0 forwards at once; with a latency answers no sooner than that, with the same answer', async () => {
    expect(await chainId(directRpc)).toBe('0x13882');
    const slowAnswer = await timed(() => chainId(slowRpc));
    expect(slowAnswer.value).toBe('0x13882');
    expect(slowAnswer.ms).toBeGreaterThanOrEqual(LATENCY_MS);
  });
});

describe('npm run dev with the latency switches', () => {
  it('refuses a value that is not 0..10000 ms, naming the variable, before starting anything', async () => {
    const devDir = await mkdtemp(path.join(tmpdir(), 'agent-gateway-latency-bad-'));
    cleanups.push(() => rm(devDir, { recursive: true, force: true }));
    const run = spawnDev(devDir, await freeDevPorts(), { env: { DEV_DB_LATENCY_MS: '20ms' } });
    expect(await run.exited).toBe(1);
    expect(run.output()).toContain('DEV_DB_LATENCY_MS=20ms');
  }, 60_000);

  it('records the latencies in stack.json, says so in the banner, and a gateway request pays them (workers run as bundles: DEV_WRANGLER=0)', async () => {
    const devDir = await mkdtemp(path.join(tmpdir(), 'agent-gateway-latency-'));
    await chmod(devDir, 0o755); // Postgres runs as its own user when we are root
    cleanups.push(() => rm(devDir, { recursive: true, force: true }));
    const rpcMs = 300;
    const dbMs = 100;
    const dev = await startDevStack(devDir, cleanups, undefined, {
      DEV_RPC_LATENCY_MS: String(rpcMs),
      DEV_DB_LATENCY_MS: String(dbMs),
      DEV_WRANGLER: '0',
    });
    expect(dev.stack.latency).toEqual({ rpcMs, dbMs });
    // DEV_WRANGLER=0: each worker is a workerd of its own (no wrangler dev), recorded for clean-up.
    const pids = JSON.parse(await readFile(path.join(devDir, 'pids.json'), 'utf8')) as { kind: string; pid: number }[];
    const kinds = pids.map((p) => p.kind);
    expect(kinds).toEqual(expect.arrayContaining(['workerd-mainnet', 'workerd-testnet']));
    expect(kinds.some((k) => k.startsWith('wrangler-'))).toBe(false);
    const workerd = pids.find((p) => p.kind === 'workerd-testnet')!;
    expect(await readFile(`/proc/${workerd.pid}/cmdline`, 'utf8')).toContain('workerd');
    // /health asks the database and the chain at once: it waits for the slower of the two.
    const health = await timed(() => fetch(`${dev.stack.testnet.baseUrl}/health`, { signal: AbortSignal.timeout(15_000) }));
    expect(health.value.status).toBe(200);
    expect(health.ms).toBeGreaterThanOrEqual(rpcMs);
    // stack.json's rpcUrl is anvil itself: scripts pay no delay there.
    const direct = await timed(() =>
      fetch(dev.stack.testnet.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      }).then((res) => res.json()),
    );
    expect(direct.value).toMatchObject({ result: '0x13882' });
    const banner = `chain RPC ${rpcMs} ms, database ${dbMs} ms`;
    await waitUntil(() => dev.run.output().includes('ready in'), 30_000);
    expect(dev.run.output()).toContain(banner);
    expect(dev.run.output()).toContain('no live reload, no DevTools (DEV_WRANGLER=0)');
    // Ctrl-C (SIGINT) stops everything in order, Postgres included: Miniflare, in this process,
    // adds its own exit hook, which used to end the process mid-shutdown and orphan Postgres.
    collectStackPids(dev.known, devDir, dev.run.pid);
    process.kill(dev.run.pid, 'SIGINT');
    await Promise.race([dev.run.exited, new Promise((r) => setTimeout(r, 20_000))]);
    await waitUntil(() => stillRunning(dev.known).length === 0, 5_000);
    expect(dev.run.output()).toContain('\nstopped.\n');
    expect(stillRunning(dev.known).map((p) => p.cmdline)).toEqual([]);
    await dev.stop();
  }, 150_000);
});
