import { existsSync, readdirSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import {
  busyPorts,
  cmdlineOf,
  collectStackPids,
  freeDevPorts,
  killAll,
  type ProcessRef,
  type StackFile,
  spawnDev,
  stillRunning,
  waitForStackFile,
  waitUntil,
} from '../../scripts/lib/stack-processes';

const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const READY_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 30_000;

export interface BrowserStack {
  stack: StackFile;
  /** The stack's DEV_DIR (its stack.json): what `npm run mint` and the CLI read. */
  devDir: string;
  context: BrowserContext;
  /** Closes Chromium, then stops the stack; throws when anything is left running. */
  stop(): Promise<void>;
}

/**
 * The whole `npm run dev` stack on free ports with a temporary DEV_DIR, and headless Chromium
 * (Debian's `chromium`, or CHROMIUM_PATH) with a throwaway profile: what test/browser/docs.test.ts
 * does inline, for the browser tests that came after it.
 */
export async function startBrowserStack(name: string): Promise<BrowserStack> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`${CHROMIUM_PATH} not found: apt-get install chromium, or set CHROMIUM_PATH`);
  const known = new Map<number, ProcessRef>();
  const devDir = await mkdtemp(path.join(tmpdir(), `agent-gateway-${name}-`));
  await chmod(devDir, 0o755); // Postgres runs as its own user when we are root
  const ports = await freeDevPorts();
  const run = spawnDev(devDir, ports);
  let stack: StackFile;
  try {
    stack = await waitForStackFile(devDir, READY_TIMEOUT_MS, { child: run.child, notBefore: run.spawnedAt });
  } catch (err) {
    throw new Error(`${err instanceof Error ? err.message : String(err)}\nnpm run dev output:\n${run.output().slice(-4000)}`);
  }
  collectStackPids(known, devDir, run.pid);
  const userDataDir = await mkdtemp(path.join(tmpdir(), `agent-gateway-${name}-chromium-`));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
    headless: true,
  });
  const browserProcesses = () =>
    readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid)
      .map((pid) => ({ pid, cmdline: cmdlineOf(Number(pid)) }))
      .filter((p) => p.cmdline.includes(userDataDir))
      .map((p) => `${p.pid}: ${p.cmdline.slice(0, 200)}`);

  const stop = async () => {
    const problems: string[] = [];
    await context.close().catch((err: unknown) => problems.push(`closing the browser: ${String(err)}`));
    if (!(await waitUntil(() => browserProcesses().length === 0, 10_000))) {
      problems.push(`browser processes left: ${browserProcesses().join('; ')}`);
    }
    await rm(userDataDir, { recursive: true, force: true });
    collectStackPids(known, devDir, run.pid);
    try {
      process.kill(run.pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
    const started = Date.now();
    await Promise.race([run.exited, new Promise((resolve) => setTimeout(resolve, STOP_TIMEOUT_MS))]);
    await waitUntil(() => stillRunning(known).length === 0, Math.max(0, STOP_TIMEOUT_MS - (Date.now() - started)));
    collectStackPids(known, devDir);
    const left = stillRunning(known);
    if (left.length > 0) {
      problems.push(`stack processes still running after SIGTERM: ${left.map((p) => `${p.pid} ${p.cmdline}`).join('; ')}`);
      try {
        process.kill(-run.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
      killAll(known);
    }
    const busy = await busyPorts(ports);
    if (busy.length > 0) problems.push(`ports still in use: ${busy.join(', ')}`);
    await rm(devDir, { recursive: true, force: true });
    if (problems.length > 0) throw new Error(problems.join('\n'));
  };
  return { stack, devDir, context, stop };
}
