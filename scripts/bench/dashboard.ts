/**
 * `npm run bench:dashboard [-- --loads N] [--write]`: the dashboard's weight and its time to
 * interactive on the running local stack (`npm run dev`), in headless Chromium (Debian's
 * `chromium`, or CHROMIUM_PATH).
 *
 * Weight: everything /app loads (HTML, hashed JS and CSS, icon) as served, gzip-compressed (level
 * 9), beside the budget of scripts/lib/dashboard-build.ts. Time to interactive: `--loads` (default
 * 20) cold loads, each in a fresh browser context (empty cache), round-robin with the floor:
 *   (a) the floor: /app/icon.svg, a file from the same server through the same worker route, no
 *       script (navigation start to its load event);
 *   (b) /app: navigation start to the login button on screen, rendered by the page's script.
 * Prints medians and maxima with (b) − (a) and (b)/(a); `--write` replaces the "## The dashboard
 * (issue 26)" section of BENCHMARKS.md. Never asserts on figures.
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import { gzipSync } from 'node:zlib';
import { type Browser, chromium } from 'playwright-core';
import { DASHBOARD_GZIP_BUDGET_BYTES } from '../lib/dashboard-build';
import {
  BenchError,
  booleanFlag,
  describeMachine,
  machineFacts,
  markdownTable,
  ms,
  numberFlag,
  parseFlags,
  readStack,
  rejectUnknownFlags,
  runBench,
  runDate,
  stackRun,
  summarize,
  writeBenchmarkSection,
} from './lib';

const SECTION = '## The dashboard (issue 26)';
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const WARM_UP = 2;

const log = (message: string) => console.error(`bench:dashboard: ${message}`);
const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;

/** The files /app loads, as the worker serves them, with their raw and gzip sizes. */
async function weight(origin: string) {
  const html = await (await fetch(`${origin}/app`)).text();
  const paths = ['/app', ...[...html.matchAll(/(?:src|href)="(\/app\/[^"]+)"/g)].map((m) => m[1] as string)];
  return Promise.all(
    paths.map(async (p) => {
      const res = await fetch(origin + p);
      if (res.status !== 200) throw new BenchError(`GET ${p}: ${res.status}`);
      const bytes = new Uint8Array(await res.arrayBuffer());
      return { path: p, bytes: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
    }),
  );
}

/** One cold load in a fresh context: ms from navigation start to `ready` (the load event, or the login button). */
async function coldLoad(browser: Browser, url: string, until: 'load' | 'login'): Promise<number> {
  const context = await browser.newContext({ colorScheme: 'dark' });
  try {
    const page = await context.newPage();
    await page.addInitScript(() => {
      const scope = globalThis as unknown as {
        document: { getElementById(id: string): unknown; documentElement: unknown };
        MutationObserver: new (cb: () => void) => { observe(node: unknown, o: object): void; disconnect(): void };
        performance: { now(): number };
        __interactiveAt?: number;
      };
      const observer = new scope.MutationObserver(() => {
        if (scope.__interactiveAt === undefined && scope.document.getElementById('login')) {
          scope.__interactiveAt = scope.performance.now();
          observer.disconnect();
        }
      });
      observer.observe(scope.document, { childList: true, subtree: true });
    });
    await page.goto(url, { waitUntil: 'load' });
    if (until === 'load') {
      return await page.evaluate(() => {
        const [nav] = (
          globalThis as unknown as { performance: { getEntriesByType(t: string): { loadEventStart: number }[] } }
        ).performance.getEntriesByType('navigation');
        return nav?.loadEventStart ?? Number.NaN;
      });
    }
    await page.waitForSelector('#login', { timeout: 30_000 });
    return await page.evaluate(() => (globalThis as unknown as { __interactiveAt?: number }).__interactiveAt ?? Number.NaN);
  } finally {
    await context.close();
  }
}

async function main(): Promise<number> {
  const flags = parseFlags();
  rejectUnknownFlags(flags, ['loads', 'write']);
  const loads = Math.max(1, Math.round(numberFlag(flags, 'loads', 20)));
  const write = booleanFlag(flags, 'write');
  if (!existsSync(CHROMIUM_PATH)) throw new BenchError(`${CHROMIUM_PATH} not found: apt-get install chromium, or set CHROMIUM_PATH`);
  const stack = await readStack();
  const origin = new URL(stack.testnet.baseUrl).origin;
  const facts = machineFacts();
  const load = os.loadavg()[0] ?? Number.NaN;
  log(`stack: ${origin}; ${describeMachine(facts)}; load average ${load.toFixed(2)}`);

  const files = await weight(origin);
  const gzip = files.reduce((sum, f) => sum + f.gzip, 0);
  const weightTable = markdownTable(
    ['file', 'bytes', 'gzip'],
    [
      ...files.map((f) => [f.path.replace(/-[A-Z0-9]{8}\./, '-<hash>.'), String(f.bytes), kib(f.gzip)]),
      ['all /app loads', String(files.reduce((s, f) => s + f.bytes, 0)), kib(gzip)],
    ],
    ['left', 'right', 'right'],
  );

  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
  const samples = { floor: [] as number[], app: [] as number[] };
  try {
    log(`${WARM_UP} warm-up + ${loads} cold loads per case, round-robin...`);
    for (let i = 0; i < WARM_UP + loads; i++) {
      const floor = await coldLoad(browser, `${origin}/app/icon.svg`, 'load');
      const app = await coldLoad(browser, `${origin}/app`, 'login');
      if (i >= WARM_UP) {
        samples.floor.push(floor);
        samples.app.push(app);
      }
    }
  } finally {
    await browser.close();
  }
  const floor = summarize(samples.floor);
  const app = summarize(samples.app);
  const ttiTable = markdownTable(
    ['case (cold cache)', 'n', 'median', 'max'],
    [
      ['(a) /app/icon.svg, no script: load event (floor)', String(floor.n), ms(floor.median), ms(floor.max)],
      ['(b) /app: the login button on screen (interactive)', String(app.n), ms(app.median), ms(app.max)],
    ],
    ['left', 'right', 'right', 'right'],
  );
  const text = `The dashboard loads ${kib(gzip)} gzip (budget ${kib(DASHBOARD_GZIP_BUDGET_BYTES)}) and is interactive ${ms(app.median)} after navigation start at the median, ${ms(app.median - floor.median)} above the floor of a script-less file from the same worker (${(app.median / floor.median).toFixed(2)}×).`;
  console.log(`\n${weightTable}\n\n${ttiTable}\n\n${text}\n`);
  if (write) {
    const body = [
      `Command: \`npm run bench:dashboard -- ${loads !== 20 ? `--loads ${loads} ` : ''}--write\` (against \`${stackRun().command}\`, workers in ${stackRun().runner}), run ${runDate(new Date())}, headless Chromium.`,
      `Machine: ${facts.cores} cores (${facts.model}), Node ${facts.node}, ${facts.os}; load average ${load.toFixed(2)} when the run started (other work shares these cores).`,
      '',
      weightTable,
      '',
      ttiTable,
      '',
      text,
    ].join('\n');
    log(`wrote "${SECTION}" in ${await writeBenchmarkSection(SECTION, body)}`);
  }
  return 0;
}

runBench('bench:dashboard', main);
