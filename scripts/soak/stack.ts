/**
 * The soak's own local stack, composed from the same parts `npm run dev` starts (DEV_WRANGLER=0:
 * the deployable bundle in workerd through Miniflare) in a temp DEV_DIR on free ports, with a
 * handle on every part a fault needs: a fault proxy in front of the testnet chain's RPC, the
 * stand-in model with a stall switch, the example tool server behind a fault proxy, and Postgres
 * that can be SIGKILLed and started again the way the stack starts it (same data dir and port).
 * Only the testnet worker runs (both chains start, as in `npm run dev`).
 */
import { Worker } from 'node:worker_threads';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { removePostgresData } from '../lib/postgres-placement';
import { startPostgres, type RunningPostgres } from '../lib/postgres';
import { freePort, sleep, waitForExit } from '../lib/processes';
import { startToolServer } from '../lib/tool-server';
import { newJwtSecret, newVaultKek, startBackends, workerBindings, type Backends } from '../lib/stack';
import { standinSettings } from '../lib/stack-llm';
import { type ProcessRef, descendantsOf, killAll, processRef, stillRunning } from '../lib/stack-processes';
import type { StackLlm } from '../lib/stack-processes';
import { buildWorker, startBundledWorker } from '../lib/worker-bundle';
import type { ProxyMode } from './fault-proxy';
import type { SidecarMessage } from './sidecar';
import { LLM_TIMEOUT_MS } from './timeouts';

export interface SoakStack {
  dir: string;
  baseUrl: string;
  chainId: number;
  collection: string;
  /** anvil itself (minting), not the proxy. */
  rpcUrl: string;
  llm: StackLlm;
  toolUrl: string;
  toolKey: string;
  setRpcMode(mode: ProxyMode): void;
  setToolMode(mode: ProxyMode): void;
  /** While true the stand-in answers every completion after MODEL_STALL_MS. */
  setModelStalled(stalled: boolean): void;
  /**
   * Resolves when the stand-in receives its next completion (a reply holds its context's lease and
   * has stored its message), which it answers `holdMs` late; false after `timeoutMs` without one.
   */
  nextCompletion(holdMs: number, timeoutMs: number): Promise<boolean>;
  /** SIGKILLs the postmaster and every Postgres process under it; resolves once all are gone. */
  killPostgres(): Promise<void>;
  /** Starts Postgres again on the same data dir and port; resolves once it accepts connections. */
  restartPostgres(): Promise<void>;
  /** Adds every process the stack runs now to the set checked for leftovers. */
  track(): void;
  stop(): Promise<void>;
  /** Processes of the stack still running (call after `stop`). */
  leftovers(): { pid: number; cmdline: string }[];
}

export async function startSoakStack(log: (line: string) => void): Promise<SoakStack> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'agent-gateway-soak-'));
  const known = new Map<number, ProcessRef>();
  const remember = (ref: ProcessRef | undefined) => {
    if (ref) known.set(ref.pid, ref);
  };
  const track = () => {
    for (const ref of descendantsOf(process.pid)) remember(ref);
    if (postgres?.pid !== undefined) {
      remember(processRef(postgres.pid));
      for (const ref of descendantsOf(postgres.pid)) remember(ref);
    }
  };
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  };
  const pgPort = await freePort();
  let postgres: RunningPostgres | undefined;
  try {
    const backends: Backends = await startBackends({
      stateDir: dir,
      ports: { postgres: pgPort, bridge: await freePort(), anvil: { mainnet: await freePort(), testnet: await freePort() } },
    });
    postgres = backends.postgres;
    stops.push(() => backends.stop());
    stops.push(async () => postgres?.stop()); // the latest incarnation (backends.stop holds the first)
    const chain = backends.chains.testnet;
    const toolKey = randomUUID();
    const tools = await startToolServer(toolKey, 200);
    stops.push(async () => {
      tools.child.kill('SIGTERM');
      if (tools.child.pid !== undefined && !(await waitForExit(tools.child.pid, 3_000))) tools.child.kill('SIGKILL');
    });
    // The model and the fault proxies in a thread of their own (see sidecar.ts).
    const sidecar = new Worker(fileURLToPath(new URL('./sidecar.ts', import.meta.url).href), {
      workerData: { rpcTarget: chain.rpcUrl, toolTarget: tools.url },
    });
    stops.push(async () => {
      const closed = new Promise((resolve) => sidecar.on('message', (m: { type: string }) => m.type === 'closed' && resolve(undefined)));
      sidecar.postMessage({ type: 'close' } satisfies SidecarMessage);
      await Promise.race([closed, sleep(3_000)]);
      await sidecar.terminate();
    });
    const urls = await new Promise<{ rpcUrl: string; toolUrl: string; llmBaseUrl: string }>((resolve, reject) => {
      sidecar.once('error', reject);
      sidecar.on('message', (m: { type: string; rpcUrl: string; toolUrl: string; llmBaseUrl: string }) => {
        if (m.type === 'ready') resolve(m);
      });
    });
    const send = (message: SidecarMessage) => sidecar.postMessage(message);

    log('building the worker bundle...');
    const bundle = await buildWorker(path.join(dir, 'bundle'));
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const secrets = { jwtSecret: newJwtSecret(), vaultKek: newVaultKek() };
    const worker = await startBundledWorker({
      scriptPath: bundle,
      deployment: 'testnet',
      port,
      logFile: path.join(dir, 'testnet.log'),
      bindings: {
        ...workerBindings(backends, 'testnet', origin, secrets),
        RPC_URL: urls.rpcUrl,
        DEV_LOOPBACK_TARGETS: '1',
        DEV_RATE_LIMITS: '0',
        LLM_TIMEOUT_MS: String(LLM_TIMEOUT_MS),
      },
    });
    stops.push(worker.stop);
    track();

    const postgresDir = path.join(dir, 'postgres');
    return {
      dir,
      baseUrl: worker.baseUrl,
      chainId: chain.chainId,
      collection: chain.collection,
      rpcUrl: chain.rpcUrl,
      llm: standinSettings({ baseUrl: urls.llmBaseUrl }),
      toolUrl: urls.toolUrl,
      toolKey,
      setRpcMode: (mode) => send({ type: 'mode', proxy: 'rpc', mode }),
      setToolMode: (mode) => send({ type: 'mode', proxy: 'tool', mode }),
      setModelStalled: (value) => send({ type: 'stall', value }),
      nextCompletion: (holdMs, timeoutMs) =>
        new Promise<boolean>((resolve) => {
          const onMessage = (m: { type: string }) => {
            if (m.type !== 'held') return;
            clearTimeout(timer);
            sidecar.off('message', onMessage);
            resolve(true);
          };
          const timer = setTimeout(() => {
            sidecar.off('message', onMessage);
            send({ type: 'unhold' });
            resolve(false);
          }, timeoutMs);
          sidecar.on('message', onMessage);
          send({ type: 'hold', holdMs });
        }),
      async killPostgres() {
        track();
        const pid = postgres?.pid;
        if (pid === undefined) throw new Error('no postmaster pid');
        const tree = [processRef(pid), ...descendantsOf(pid)].filter((r): r is ProcessRef => r !== undefined);
        killAll(tree);
        for (const ref of tree) await waitForExit(ref.pid, 10_000);
        if (stillRunning(tree).length > 0) throw new Error('postgres survived SIGKILL');
      },
      async restartPostgres() {
        postgres = await startPostgres({ dataDir: postgresDir, port: pgPort });
        track();
      },
      track,
      async stop() {
        track();
        await stopAll();
        killAll(known); // whatever a stop left behind
        await removePostgresData(postgresDir).catch(() => undefined);
        await rm(dir, { recursive: true, force: true });
      },
      leftovers: () => stillRunning(known),
    };
  } catch (err) {
    track();
    await stopAll();
    killAll(known);
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}
