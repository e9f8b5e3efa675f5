/**
 * `npm run smoke`: the CI smoke test through `wrangler dev`. Starts `npm run dev` with a fresh
 * state directory and every port moved to a free one, checks both deployments over HTTP
 * (/health, /docs, /openapi.json), stops the stack with SIGTERM and fails when any of its
 * processes is still running 30 s later. Exits 1 on any failed check, always stopping the stack
 * first.
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  busyPorts,
  collectStackPids,
  freeDevPorts,
  killAll,
  readySeconds,
  spawnDev,
  stillRunning,
  waitForStackFile,
  waitUntil,
  type DevRun,
  type ProcessRef,
  type StackFile,
} from './lib/stack-processes';

const READY_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 30_000;

const failures: string[] = [];
function report(ok: boolean, what: string, detail = ''): boolean {
  console.log(`smoke: ${ok ? 'PASS' : 'FAIL'} ${what}${detail ? ` (${detail})` : ''}`);
  if (!ok) failures.push(what);
  return ok;
}

async function get(url: string): Promise<{ status: number; contentType: string; text: string }> {
  const res = await fetch(url, { signal: AbortSignal.timeout(15_000), redirect: 'manual' });
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text: await res.text() };
}

async function check(what: string, run: () => Promise<string | true>): Promise<void> {
  try {
    const result = await run();
    report(result === true, what, result === true ? '' : result);
  } catch (err) {
    report(false, what, err instanceof Error ? err.message : String(err));
  }
}

async function checkDeployment(name: 'mainnet' | 'testnet', info: StackFile['mainnet']): Promise<void> {
  await check(`${name} GET /health is 200`, async () => {
    const res = await get(`${info.baseUrl}/health`);
    return res.status === 200 || `status ${res.status}: ${res.text.slice(0, 300)}`;
  });
  await check(`${name} GET /docs is 200 HTML`, async () => {
    const res = await get(`${info.baseUrl}/docs`);
    if (res.status !== 200) return `status ${res.status}`;
    return res.contentType.includes('text/html') || `content-type ${res.contentType}`;
  });
  await check(`${name} GET /openapi.json is 200 OpenAPI 3.1`, async () => {
    const res = await get(`${info.baseUrl}/openapi.json`);
    if (res.status !== 200) return `status ${res.status}`;
    const version = (JSON.parse(res.text) as { openapi?: unknown }).openapi;
    return (typeof version === 'string' && version.startsWith('3.1')) || `openapi is ${JSON.stringify(version)}`;
  });
}

let run: DevRun | undefined;
let devDir = '';
const known = new Map<number, ProcessRef>();

/** SIGTERM to the npm process; true when it and every stack process are gone within the timeout. */
async function stopStack(): Promise<{ stopped: boolean; left: { pid: number; cmdline: string }[]; seconds: number }> {
  const started = Date.now();
  if (!run) return { stopped: true, left: [], seconds: 0 };
  collectStackPids(known, devDir, run.pid);
  try {
    process.kill(run.pid, 'SIGTERM');
  } catch {
    /* already gone */
  }
  const deadline = started + STOP_TIMEOUT_MS;
  const npmExited = await Promise.race([
    run.exited.then(() => true),
    new Promise<false>((r) => setTimeout(() => r(false), STOP_TIMEOUT_MS)),
  ]);
  await waitUntil(() => stillRunning(known).length === 0, Math.max(0, deadline - Date.now()));
  collectStackPids(known, devDir); // anything recorded late (pids.json is removed on a clean stop)
  const left = stillRunning(known);
  return { stopped: npmExited && left.length === 0, left, seconds: (Date.now() - started) / 1000 };
}

/** Last resort: SIGKILL whatever of the stack still runs, and its process groups. */
function killLeftovers(): void {
  if (run) {
    try {
      process.kill(-run.pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  if (devDir) collectStackPids(known, devDir);
  killAll(known);
}

async function main(): Promise<number> {
  devDir = await mkdtemp(path.join(tmpdir(), 'agent-gateway-smoke-'));
  await chmod(devDir, 0o755); // Postgres runs as its own user when we are root
  const ports = await freeDevPorts();
  console.log(`smoke: starting npm run dev (DEV_DIR=${devDir}, ports ${Object.values(ports).join(', ')})`);
  const startedAt = Date.now();
  run = spawnDev(devDir, ports, { echo: true });

  let stack: StackFile | undefined;
  try {
    stack = await waitForStackFile(devDir, READY_TIMEOUT_MS, { child: run.child, notBefore: run.spawnedAt });
    report(true, 'stack.json written', `${((Date.now() - startedAt) / 1000).toFixed(1)} s after spawn`);
  } catch (err) {
    report(false, 'stack.json written', err instanceof Error ? err.message : String(err));
  }

  if (stack) {
    collectStackPids(known, devDir, run.pid);
    await checkDeployment('mainnet', stack.mainnet);
    await checkDeployment('testnet', stack.testnet);
    const current = run;
    await waitUntil(() => readySeconds(current.output()) !== undefined, 10_000);
    const seconds = readySeconds(run.output());
    report(seconds !== undefined, 'banner printed "ready in N s"', seconds !== undefined ? `ready in ${seconds} s` : '');
    collectStackPids(known, devDir, run.pid);
    // npm, dev.ts, postgres, two anvils, two wranglers and their workerd at least: else the
    // "nothing left" check below would prove little.
    const running = stillRunning(known).length;
    report(running >= 7, 'stack processes found', `${running} running`);
  }

  const { stopped, left, seconds } = await stopStack();
  report(
    stopped,
    `every stack process stopped within ${STOP_TIMEOUT_MS / 1000} s of SIGTERM`,
    stopped
      ? `${seconds.toFixed(1)} s, ${known.size} processes`
      : left.map((p) => `${p.pid} ${p.cmdline}`).join('; ') || 'npm run dev did not exit',
  );
  if (!stopped) killLeftovers();
  const busy = await busyPorts(ports);
  report(busy.length === 0, 'every port free again', busy.join(', '));
  report(!existsSync(path.join(devDir, 'stack.json')), 'stack.json removed on stop');

  const readyIn = readySeconds(run.output());
  if (failures.length > 0) {
    console.error(`\nsmoke: FAILED (${failures.length}): ${failures.join('; ')}`);
    if (!stack) console.error(`\nnpm run dev output:\n${run.output().slice(-4000)}`);
    return 1;
  }
  console.log(`\nsmoke: all checks passed; stack ready in ${readyIn ?? '?'} s`);
  return 0;
}

let exiting = false;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (exiting) return;
    exiting = true;
    console.error(`smoke: ${signal}: stopping the stack`);
    void stopStack()
      .catch(() => undefined)
      .then(async () => {
        killLeftovers();
        if (devDir) await rm(devDir, { recursive: true, force: true }).catch(() => undefined);
      })
      .finally(() => process.exit(1));
  });
}

void main()
  .catch(async (err: unknown) => {
    console.error(`smoke: FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    await stopStack().catch(() => undefined);
    killLeftovers();
    return 1;
  })
  .then(async (code) => {
    if (devDir) await rm(devDir, { recursive: true, force: true }).catch(() => undefined);
    process.exit(code);
  });
