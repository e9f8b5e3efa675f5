/**
 * The `npm run dev` lifecycle, for real: the stack starts on moved ports with its own state
 * directory, serves both deployments, and leaves nothing behind when stopped with SIGTERM; a
 * start after a crashed run (dev.ts SIGKILLed, its children orphaned) stops the orphans and comes
 * up again. Slow (several stack starts): every test has its own generous timeout.
 */
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  busyPorts,
  cmdlineOf,
  collectStackPids,
  descendantsOf,
  freeDevPorts,
  killAll,
  readPidFile,
  postmasterPid,
  readySeconds,
  spawnDev,
  stackPids,
  stillRunning,
  waitForStackFile,
  waitUntil,
  type DevPorts,
  type DevRun,
  type ProcessRef,
  type StackFile,
} from '../../scripts/lib/stack-processes';
import { newWallet } from '../support/chain';
import { earlyInWindow, initBurst } from '../support/rate-limits';
import { requestLineOf } from '../support/worker-log';

const TEST_TIMEOUT_MS = 150_000;
const READY_TIMEOUT_MS = 60_000;
const EXIT_TIMEOUT_MS = 30_000;
/** After npm has exited, how long the stack's processes and ports get to go away. */
const SETTLE_MS = 5_000;

let devDir = '';
let ports: DevPorts;
const runs: (DevRun & { label: string })[] = [];
/** Every process of every stack these tests started, for the checks and for cleanup. */
const known = new Map<number, ProcessRef>();

function start(label: string, env: Record<string, string> = {}): DevRun & { label: string } {
  const run = { ...spawnDev(devDir, ports, { env }), label };
  runs.push(run);
  return run;
}

async function ready(run: DevRun): Promise<StackFile> {
  try {
    const stack = await waitForStackFile(devDir, READY_TIMEOUT_MS, { child: run.child, notBefore: run.spawnedAt });
    collectStackPids(known, devDir, run.pid);
    return stack;
  } catch (err) {
    throw new Error(`${err instanceof Error ? err.message : String(err)}\nnpm run dev output:\n${run.output().slice(-4000)}`);
  }
}

/** Resolves true once the npm process has exited, false after `timeoutMs`. */
function exitWithin(run: DevRun, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    run.exited.then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    }),
  ]).finally(() => clearTimeout(timer));
}

const describeLeft = (left: { pid: number; cmdline: string }[]) => left.map((p) => `${p.pid}: ${p.cmdline}`);

/** SIGTERM to the npm process only (not its group), then every check that nothing is left. */
async function stopAndExpectNothingLeft(run: DevRun, alsoGone: Iterable<ProcessRef> = []): Promise<void> {
  const mine = collectStackPids(new Map(), devDir, run.pid);
  collectStackPids(known, devDir, run.pid);
  // Sanity: we are watching the whole stack, not just npm.
  expect(mine.size, 'processes found for the stack').toBeGreaterThanOrEqual(6);

  process.kill(run.pid, 'SIGTERM');
  expect(await exitWithin(run, EXIT_TIMEOUT_MS), `npm run dev exits within ${EXIT_TIMEOUT_MS / 1000} s of SIGTERM`).toBe(true);

  const watched = [...mine.values(), ...alsoGone];
  await waitUntil(() => stillRunning(watched).length === 0, SETTLE_MS);
  expect(describeLeft(stillRunning(watched)), 'stack processes still running').toEqual([]);
  await waitUntil(async () => (await busyPorts(ports)).length === 0, SETTLE_MS, 200);
  expect(await busyPorts(ports), 'ports still in use').toEqual([]);
  expect(existsSync(path.join(devDir, 'stack.json')), 'stack.json removed').toBe(false);
}

async function expectHealthy(stack: StackFile): Promise<void> {
  for (const name of ['mainnet', 'testnet'] as const) {
    const res = await fetch(`${stack[name].baseUrl}/health`, { signal: AbortSignal.timeout(15_000) });
    expect(res.status, `${name} /health: ${await res.text()}`).toBe(200);
  }
}

/**
 * Each worker's log (`<DEV_DIR>/<name>.log`) gets its request lines through the log level
 * `npm run dev` runs wrangler at: one for a request with a query string, which no line holds.
 */
async function expectRequestLines(stack: StackFile): Promise<void> {
  for (const name of ['mainnet', 'testnet'] as const) {
    const requestId = `dev-log-${crypto.randomUUID()}`;
    const probe = `probe-${crypto.randomUUID()}`;
    const res = await fetch(`${stack[name].baseUrl}/health?probe=${probe}`, { headers: { 'x-request-id': requestId } });
    expect(res.status).toBe(200);
    await res.body?.cancel();
    const line = await requestLineOf(path.join(devDir, `${name}.log`), requestId);
    expect(line).toMatchObject({ route: '/health', status: 200, chainId: stack[name].chainId, credential: 'none' });
    expect(await readFile(path.join(devDir, `${name}.log`), 'utf8')).not.toContain(probe);
  }
}

beforeAll(async () => {
  devDir = await mkdtemp(path.join(tmpdir(), 'agent-gateway-dev-stack-'));
  await chmod(devDir, 0o755); // Postgres runs as its own user when we are root
  ports = await freeDevPorts();
});

afterAll(async () => {
  // Whatever a failed test left: ask politely first, then SIGKILL every process we know of.
  const live = runs.filter((run) => run.child.exitCode === null && run.child.signalCode === null);
  for (const run of live) {
    collectStackPids(known, devDir, run.pid);
    try {
      process.kill(run.pid, 'SIGTERM');
    } catch {
      /* gone */
    }
  }
  for (const run of live) await exitWithin(run, 20_000);
  collectStackPids(known, devDir);
  for (const run of runs) {
    try {
      process.kill(-run.pid, 'SIGKILL');
    } catch {
      /* group gone */
    }
  }
  killAll(known);
  await waitUntil(() => stillRunning(known).length === 0, 5_000);
  const left = stillRunning(known);
  if (left.length > 0) console.error(`dev-stack test: processes left running: ${describeLeft(left).join('; ')}`);
  if (devDir) await rm(devDir, { recursive: true, force: true });
});

describe('npm run dev', () => {
  it(
    'starts the whole stack on moved ports, describes it in stack.json, and stops everything on SIGTERM',
    async () => {
      const run = start('first start');
      const stack = await ready(run);

      const address = expect.stringMatching(/^0x[0-9a-fA-F]{40}$/);
      for (const [name, chainId] of [
        ['mainnet', 137],
        ['testnet', 80002],
      ] as const) {
        expect(stack[name]).toEqual({
          chainId,
          baseUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
          rpcUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
          collection: address,
          rentableCollection: address,
          delegateRegistry: '0x00000000000000447e69651d841bD8D104Bed493',
        });
        expect(stack[name].rentableCollection).not.toBe(stack[name].collection);
      }
      expect(stack.mainnet.baseUrl).toBe(`http://127.0.0.1:${ports.DEV_MAINNET_PORT}`);
      expect(stack.testnet.baseUrl).toBe(`http://127.0.0.1:${ports.DEV_TESTNET_PORT}`);
      expect(stack.mainnet.rpcUrl).toBe(`http://127.0.0.1:${ports.DEV_ANVIL_MAINNET_PORT}`);
      expect(stack.testnet.rpcUrl).toBe(`http://127.0.0.1:${ports.DEV_ANVIL_TESTNET_PORT}`);
      expect(stack.databaseUrl).toMatch(new RegExp(`^postgres(ql)?://.+@127\\.0\\.0\\.1:${ports.DEV_PG_PORT}/\\w+$`));
      expect(stack.accounts.length).toBeGreaterThan(0);
      // DEV_LLM=1 (default): the stand-in model server, named as LLM settings take it.
      expect(stack.llm).toEqual({
        provider: 'openai-compatible',
        baseUrl: `http://127.0.0.1:${ports.DEV_LLM_PORT}/v1`,
        model: 'stand-in',
        standIn: true,
      });
      const models = await fetch(`${stack.llm?.baseUrl}/models`, { signal: AbortSignal.timeout(5_000) });
      expect(models.status).toBe(200);
      await models.body?.cancel();
      for (const account of stack.accounts) {
        expect(account).toEqual({ address, privateKey: expect.stringMatching(/^0x[0-9a-fA-F]{64}$/) });
      }

      await expectHealthy(stack);
      await expectRequestLines(stack);
      for (const name of ['mainnet', 'testnet'] as const) {
        const res = await fetch(`${stack[name].baseUrl}/docs`, { signal: AbortSignal.timeout(15_000) });
        expect(res.status, `${name} /docs`).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^text\/html/);
        await res.body?.cancel();
      }

      // The banner comes right after stack.json and the /health probes.
      await waitUntil(() => readySeconds(run.output()) !== undefined, 15_000);
      const output = run.output();
      expect(output).toContain(stack.mainnet.baseUrl);
      expect(output).toContain(stack.testnet.baseUrl);
      expect(output).toContain('ready in');
      expect(output).toContain(`stand-in at ${stack.llm?.baseUrl}`);

      expect(
        readPidFile(devDir)
          .map((e) => e.kind)
          .sort(),
      ).toEqual(['anvil-mainnet', 'anvil-testnet', 'postgres', 'wrangler-mainnet', 'wrangler-testnet']);
      expect(postmasterPid(devDir)).toBeDefined();

      // wrangler dev runs the rate-limit bindings of the wrangler file.
      await earlyInWindow();
      const statuses = (await initBurst(stack.testnet.baseUrl, newWallet().address, 40)).map((r) => r.status);
      expect(statuses.filter((s) => s === 429).length, 'inits limited in a burst of 40 for one wallet').toBeGreaterThan(0);

      await stopAndExpectNothingLeft(run);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a second start after a crash works',
    async () => {
      const crashed = start('start, then killed');
      await ready(crashed);
      const orphansToBe = stackPids(devDir, crashed.pid);
      const devScript = descendantsOf(crashed.pid).find((p) => cmdlineOf(p.pid).includes('scripts/dev.ts'));
      expect(devScript, 'the node process running scripts/dev.ts').toBeDefined();

      // A crash: dev.ts dies without stopping anything; its children are orphaned.
      process.kill(devScript!.pid, 'SIGKILL');
      expect(await exitWithin(crashed, EXIT_TIMEOUT_MS), 'npm exits after dev.ts was killed').toBe(true);
      const orphans = stillRunning(orphansToBe.filter((p) => p.pid !== crashed.pid && p.pid !== devScript!.pid));
      console.log(`dev-stack: ${orphans.length} processes orphaned by the crash:\n  ${describeLeft(orphans).join('\n  ')}`);
      expect(orphans.length, 'the crash left orphans behind (else this test proves nothing)').toBeGreaterThan(0);

      // The restart also runs with DEV_RATE_LIMITS=0, which dev.ts passes to the workers.
      const again = start('start after the crash', { DEV_RATE_LIMITS: '0' });
      const stack = await ready(again);
      const unlimited = (await initBurst(stack.testnet.baseUrl, newWallet().address, 40)).map((r) => r.status);
      expect(unlimited, 'DEV_RATE_LIMITS=0: no limits').toEqual(Array(40).fill(200));
      await expectHealthy(stack);
      await waitUntil(() => readySeconds(again.output()) !== undefined, 15_000);
      console.log(
        `dev-stack: restart after the crash said:\n  ${again
          .output()
          .split('\n')
          .filter((line) => line.includes('left by an earlier run'))
          .join('\n  ')}`,
      );

      await stopAndExpectNothingLeft(again, orphansToBe);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'prints the time to ready in its banner',
    async () => {
      let figures = runs
        .map((run) => ({ label: run.label, seconds: readySeconds(run.output()) }))
        .filter((figure) => figure.seconds !== undefined);
      if (figures.length === 0) {
        // The earlier tests did not get that far: start one stack for this.
        const run = start('start');
        await ready(run);
        await waitUntil(() => readySeconds(run.output()) !== undefined, 15_000);
        figures = [{ label: run.label, seconds: readySeconds(run.output()) }];
        await stopAndExpectNothingLeft(run);
      }
      for (const { seconds } of figures) expect(seconds).toBeGreaterThan(0);
      // Measured, not asserted: speed targets are tracked, not enforced by a test.
      console.log(`dev-stack: npm run dev ready in ${figures.map((f) => `${f.seconds} s (${f.label})`).join(', ')}`);
    },
    TEST_TIMEOUT_MS,
  );
});
