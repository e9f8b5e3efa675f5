/**
 * The /docs reference page in a real browser: headless Chromium (Debian's `chromium` package,
 * or CHROMIUM_PATH) driven by playwright-core, against the whole `npm run dev` stack started on
 * free ports with a temporary DEV_DIR. For both deployments the page must render every operation
 * of /openapi.json, log no console error or page error, have no failed request, and "Try it" on
 * GET /health must show 200. Screenshots go to /tmp/docs-<deployment>.png (top of the page) and
 * /tmp/docs-<deployment>-health.png (the GET /health section after Try it).
 *
 * Run with `npm run test:browser` (not part of `npm test`).
 */
import { existsSync, readdirSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type ConsoleMessage, type Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  busyPorts,
  cmdlineOf,
  collectStackPids,
  freeDevPorts,
  killAll,
  spawnDev,
  stillRunning,
  waitForStackFile,
  waitUntil,
  type DevPorts,
  type DevRun,
  type ProcessRef,
  type StackFile,
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
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

let devDir = '';
let ports: DevPorts | undefined;
let run: DevRun | undefined;
let stack: StackFile | undefined;
const known = new Map<number, ProcessRef>();
let userDataDir = '';
let context: BrowserContext | undefined;

/** Every `METHOD /path` of an OpenAPI document, as the page labels its operations. */
function operationsOf(spec: { paths?: Record<string, Record<string, unknown>> }): string[] {
  const ops: string[] = [];
  for (const [route, item] of Object.entries(spec.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (typeof op === 'object' && op !== null) ops.push(`${method.toUpperCase()} ${route}`);
    }
  }
  return ops.sort();
}

/** Processes whose command line names our browser profile (Chromium and its helpers). */
function browserProcesses(): string[] {
  if (userDataDir === '') return [];
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid)
    .map((pid) => ({ pid, cmdline: cmdlineOf(Number(pid)) }))
    .filter((p) => p.cmdline.includes(userDataDir))
    .map((p) => `${p.pid}: ${p.cmdline.slice(0, 200)}`);
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`${CHROMIUM_PATH} not found: apt-get install chromium, or set CHROMIUM_PATH`);
  }
  devDir = await mkdtemp(path.join(tmpdir(), 'agent-gateway-browser-'));
  await chmod(devDir, 0o755); // Postgres runs as its own user when we are root
  ports = await freeDevPorts();
  run = spawnDev(devDir, ports);
  try {
    stack = await waitForStackFile(devDir, READY_TIMEOUT_MS, { child: run.child, notBefore: run.spawnedAt });
  } catch (err) {
    throw new Error(`${err instanceof Error ? err.message : String(err)}\nnpm run dev output:\n${run.output().slice(-4000)}`);
  }
  collectStackPids(known, devDir, run.pid);

  userDataDir = await mkdtemp(path.join(tmpdir(), 'agent-gateway-chromium-'));
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
    headless: true,
    viewport: { width: 1280, height: 900 },
  });
});

afterAll(async () => {
  const problems: string[] = [];
  // The browser first: closing the persistent context ends Chromium and its helpers.
  await context?.close().catch((err: unknown) => problems.push(`closing the browser: ${String(err)}`));
  if (userDataDir !== '') {
    if (!(await waitUntil(() => browserProcesses().length === 0, 10_000))) {
      problems.push(`browser processes left: ${browserProcesses().join('; ')}`);
    }
    await rm(userDataDir, { recursive: true, force: true });
  }
  // Then the stack: SIGTERM to npm run dev, which stops everything it started.
  if (run) {
    collectStackPids(known, devDir, run.pid);
    try {
      process.kill(run.pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
    const started = Date.now();
    const current = run;
    await Promise.race([current.exited, new Promise((resolve) => setTimeout(resolve, STOP_TIMEOUT_MS))]);
    await waitUntil(() => stillRunning(known).length === 0, Math.max(0, STOP_TIMEOUT_MS - (Date.now() - started)));
    collectStackPids(known, devDir);
    const left = stillRunning(known);
    if (left.length > 0) {
      problems.push(`stack processes still running ${STOP_TIMEOUT_MS / 1000} s after SIGTERM: ${left.map((p) => `${p.pid} ${p.cmdline}`).join('; ')}`);
      try {
        process.kill(-current.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
      killAll(known);
    }
    if (ports) {
      const busy = await busyPorts(ports);
      if (busy.length > 0) problems.push(`ports still in use: ${busy.join(', ')}`);
    }
  }
  if (devDir !== '') await rm(devDir, { recursive: true, force: true });
  expect(problems).toEqual([]);
});

describe('/docs in headless Chromium', () => {
  it.each(['mainnet', 'testnet'] as const)('%s: renders every operation, no errors, Try it on GET /health', async (net) => {
    const deployment = stack![net];
    const specRes = await fetch(`${deployment.baseUrl}/openapi.json`);
    expect(specRes.status).toBe(200);
    const expected = operationsOf((await specRes.json()) as { paths?: Record<string, Record<string, unknown>> });
    expect(expected.length).toBeGreaterThan(10);
    expect(expected).toContain('GET /health');

    const page = await context!.newPage();
    const consoleErrors: string[] = [];
    const pageErrors: string[] = [];
    const failedRequests: string[] = [];
    page.on('console', (msg: ConsoleMessage) => {
      if (msg.type() === 'error') consoleErrors.push(`${msg.text()} (${msg.location().url}:${msg.location().lineNumber})`);
    });
    page.on('pageerror', (err: Error) => pageErrors.push(err.message));
    page.on('requestfailed', (req: Request) => failedRequests.push(`${req.method()} ${req.url()}: ${req.failure()?.errorText ?? '?'}`));
    try {
      const res = await page.goto(`${deployment.baseUrl}/docs`, { waitUntil: 'load' });
      expect(res?.status()).toBe(200);
      await page.waitForSelector('body[data-state="ready"], body[data-state="error"]', { timeout: 30_000 });
      const state = await page.getAttribute('body', 'data-state');
      expect(state, (await page.textContent('#status')) ?? '').toBe('ready');

      const shown = await page.$$eval('[data-operation]', (els) => els.map((el) => el.getAttribute('data-operation') ?? ''));
      expect(shown.length).toBe(expected.length);
      for (const op of expected) expect(shown, `operation ${op} on the page`).toContain(op);
      expect([...shown].sort()).toEqual(expected);
      expect(await page.locator('[data-nav]').count()).toBe(expected.length);

      await page.screenshot({ path: `/tmp/docs-${net}.png` });

      // Try it: GET /health needs no parameters and no token.
      const health = page.locator('section[data-operation="GET /health"]');
      await health.locator('details.try > summary').click();
      await health.getByRole('button', { name: 'Send' }).click();
      const status = health.locator('.result .status');
      await status.waitFor({ timeout: 15_000 });
      expect(await status.textContent()).toMatch(/^200\b/);
      expect(await health.locator('.result pre').last().textContent()).toContain('{');
      await health.scrollIntoViewIfNeeded();
      await health.screenshot({ path: `/tmp/docs-${net}-health.png` });

      expect(consoleErrors, 'console errors').toEqual([]);
      expect(pageErrors, 'page errors').toEqual([]);
      expect(failedRequests, 'failed requests').toEqual([]);
    } finally {
      await page.close();
    }
  });
});
