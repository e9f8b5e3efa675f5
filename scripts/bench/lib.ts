/**
 * Shared helpers of the benchmark scripts (`npm run bench:*`): the running dev stack's
 * description, command-line flags, latency statistics, a concurrency runner, markdown tables,
 * machine facts and BENCHMARKS.md sections.
 *
 * Benchmarks print figures; they never assert on them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { Address, Hex } from 'viem';

/** Repository root (this file lives in `<root>/scripts/bench/`). */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url).href);

// ---------------------------------------------------------------------------
// The running stack
// ---------------------------------------------------------------------------

export interface DeploymentInfo {
  chainId: number;
  baseUrl: string;
  rpcUrl: string;
  collection: Address;
}

export interface StackInfo {
  databaseUrl: string;
  mainnet: DeploymentInfo;
  testnet: DeploymentInfo;
  accounts: { address: Address; privateKey: Hex }[];
}

/** A run's start as sections print it: `2026-11-22 16:40:41Z`. */
export function runDate(date: Date): string {
  return date
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace('T', ' ');
}

/**
 * How the running stack was started, for a section's "against …" line: the `npm run dev` command
 * (its switches: latency from stack.json, how the workers run from pids.json; benchmarks assume
 * DEV_RATE_LIMITS=0) and what the workers run in.
 */
export function stackRun(): { command: string; runner: string } {
  const devDir = path.resolve(REPO_ROOT, process.env.DEV_DIR ?? '.dev');
  let latency = { rpcMs: 0, dbMs: 0 };
  let bundled = false;
  try {
    latency = (JSON.parse(readFileSync(path.join(devDir, 'stack.json'), 'utf8')) as { latency?: typeof latency }).latency ?? latency;
    const pids = JSON.parse(readFileSync(path.join(devDir, 'pids.json'), 'utf8')) as { kind: string }[];
    bundled = pids.some((p) => p.kind.startsWith('workerd-'));
  } catch {
    /* an older stack: described as wrangler dev without latency */
  }
  const vars = [
    bundled ? 'DEV_WRANGLER=0' : '',
    'DEV_RATE_LIMITS=0',
    latency.rpcMs > 0 ? `DEV_RPC_LATENCY_MS=${latency.rpcMs}` : '',
    latency.dbMs > 0 ? `DEV_DB_LATENCY_MS=${latency.dbMs}` : '',
  ].filter(Boolean);
  return {
    command: `${vars.join(' ')} npm run dev`,
    runner: bundled ? 'workerd through Miniflare (`DEV_WRANGLER=0`)' : '`wrangler dev`',
  };
}

/** Thrown for anything the user must fix before a benchmark can run; printed without a stack. */
export class BenchError extends Error {
  override readonly name = 'BenchError';
}

/**
 * Reads `<DEV_DIR>/stack.json` (DEV_DIR defaults to `.dev`, relative to the repository root)
 * and checks that both workers answer `/health`. Throws a BenchError telling how to start the
 * stack when it is not running.
 */
export async function readStack(): Promise<StackInfo> {
  const devDir = path.resolve(REPO_ROOT, process.env.DEV_DIR ?? '.dev');
  const file = path.join(devDir, 'stack.json');
  const hint = 'start the local stack first with `npm run dev` in another terminal (same DEV_DIR), wait for "ready", then run this again';
  if (!existsSync(file))
    throw new BenchError(`${path.relative(process.cwd(), file) || file} not found: the local stack is not running; ${hint}`);
  let stack: StackInfo;
  try {
    stack = JSON.parse(readFileSync(file, 'utf8')) as StackInfo;
  } catch (err) {
    throw new BenchError(`${file} is not readable JSON (${err instanceof Error ? err.message : String(err)}); ${hint}`);
  }
  for (const name of ['mainnet', 'testnet'] as const) {
    const info = stack[name];
    if (!info?.baseUrl || !info.rpcUrl || !info.collection || !info.chainId) {
      throw new BenchError(`${file} has no complete "${name}" entry; ${hint}`);
    }
    try {
      const res = await fetch(`${info.baseUrl}/health`, { signal: AbortSignal.timeout(5_000) });
      await res.arrayBuffer();
      if (res.status !== 200)
        throw new BenchError(`${name} worker at ${info.baseUrl} answered /health with ${res.status}; is the stack healthy?`);
    } catch (err) {
      if (err instanceof BenchError) throw err;
      throw new BenchError(`${name} worker at ${info.baseUrl} does not answer (${describe(err)}): ${file} is stale; ${hint}`);
    }
  }
  return stack;
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as Error & { cause?: unknown }).cause;
    return cause instanceof Error ? `${err.message}: ${cause.message}` : err.message;
  }
  return String(err);
}

// ---------------------------------------------------------------------------
// Command line
// ---------------------------------------------------------------------------

export interface Flags {
  /** `--name value` or `--name=value` as strings; bare `--name` as 'true'. */
  values: Map<string, string>;
}

export function parseFlags(argv: readonly string[] = process.argv.slice(2)): Flags {
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) throw new BenchError(`unexpected argument ${JSON.stringify(arg)}`);
    const eq = arg.indexOf('=');
    if (eq > 0) {
      values.set(arg.slice(2, eq), arg.slice(eq + 1));
    } else if (i + 1 < argv.length && !argv[i + 1]!.startsWith('--')) {
      values.set(arg.slice(2), argv[++i]!);
    } else {
      values.set(arg.slice(2), 'true');
    }
  }
  return { values };
}

/** A positive number flag, or `fallback` when absent. */
export function numberFlag(flags: Flags, name: string, fallback: number): number {
  const raw = flags.values.get(name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new BenchError(`--${name} must be a positive number, got ${JSON.stringify(raw)}`);
  return value;
}

export function booleanFlag(flags: Flags, name: string): boolean {
  const raw = flags.values.get(name);
  return raw !== undefined && raw !== 'false' && raw !== '0';
}

/** Refuses flags the script does not know (typos would otherwise be silently ignored). */
export function rejectUnknownFlags(flags: Flags, known: readonly string[]): void {
  for (const name of flags.values.keys()) {
    if (!known.includes(name)) throw new BenchError(`unknown flag --${name}; known: ${known.map((k) => `--${k}`).join(', ')}`);
  }
}

// ---------------------------------------------------------------------------
// Statistics
// ---------------------------------------------------------------------------

/** Milliseconds since an arbitrary origin, sub-millisecond resolution. */
export const now = (): number => performance.now();

/** Nearest-rank percentile (0 < p <= 100) of ascending `sorted`; NaN when empty. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/** Median: the mean of the two middle values for an even count. */
export function median(sorted: readonly number[]): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const mid = Math.floor(n / 2);
  return n % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export interface Summary {
  n: number;
  median: number;
  p99: number;
  mean: number;
  min: number;
  max: number;
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const n = sorted.length;
  return {
    n,
    median: median(sorted),
    p99: percentile(sorted, 99),
    mean: n === 0 ? NaN : sorted.reduce((s, v) => s + v, 0) / n,
    min: n === 0 ? NaN : sorted[0]!,
    max: n === 0 ? NaN : sorted[n - 1]!,
  };
}

/** Counts of occurrences, e.g. HTTP statuses. */
export class Counter<K> {
  readonly counts = new Map<K, number>();
  add(key: K, by = 1): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + by);
  }
  get(key: K): number {
    return this.counts.get(key) ?? 0;
  }
  total(): number {
    let sum = 0;
    for (const v of this.counts.values()) sum += v;
    return sum;
  }
  /** `200×12, 401×1` */
  format(): string {
    return [...this.counts.entries()].map(([k, v]) => `${String(k)}×${v}`).join(', ') || 'none';
  }
}

// ---------------------------------------------------------------------------
// Concurrency
// ---------------------------------------------------------------------------

/** Runs `worker(0..concurrency-1)` at once and waits for all; the first failure rejects. */
export async function runConcurrent<T>(concurrency: number, worker: (index: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: concurrency }, (_, i) => worker(i)));
}

/**
 * `concurrency` clients, each calling `step(client, iteration)` back to back until `durationMs`
 * has passed (a step started before the deadline is finished). Returns the wall time in ms
 * from the start until the last step ended.
 */
export async function runForDuration(
  concurrency: number,
  durationMs: number,
  step: (client: number, iteration: number) => Promise<void>,
): Promise<{ elapsedMs: number }> {
  const start = now();
  const deadline = start + durationMs;
  await runConcurrent(concurrency, async (client) => {
    for (let i = 0; now() < deadline; i++) await step(client, i);
  });
  return { elapsedMs: now() - start };
}

// ---------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------

export type Align = 'left' | 'right';

/** A markdown table with padded columns (readable as plain text too). */
export function markdownTable(headers: readonly string[], rows: readonly (readonly string[])[], align: readonly Align[] = []): string {
  const widths = headers.map((h, i) => Math.max(h.length, 3, ...rows.map((r) => (r[i] ?? '').length)));
  const pad = (cell: string, i: number) => (align[i] === 'right' ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!));
  const line = (cells: readonly string[]) => `| ${cells.map((c, i) => pad(c, i)).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (align[i] === 'right' ? `${'-'.repeat(w + 1)}:` : `${'-'.repeat(w + 2)}`)).join('|')}|`;
  return [line(headers), rule, ...rows.map((r) => line(headers.map((_, i) => r[i] ?? '')))].join('\n');
}

/** Milliseconds with a precision that suits their size. */
export function ms(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  if (Math.abs(value) >= 100) return `${value.toFixed(0)} ms`;
  if (Math.abs(value) >= 10) return `${value.toFixed(1)} ms`;
  return `${value.toFixed(2)} ms`;
}

export function perSecond(count: number, elapsedMs: number): string {
  if (elapsedMs <= 0) return 'n/a';
  const rate = (count * 1000) / elapsedMs;
  return `${rate >= 100 ? rate.toFixed(0) : rate.toFixed(1)}/s`;
}

export interface MachineFacts {
  cores: number;
  model: string;
  node: string;
  os: string;
}

export function machineFacts(): MachineFacts {
  const cpus = os.cpus();
  return {
    cores: cpus.length,
    model: (cpus[0]?.model ?? 'unknown CPU').replace(/\s+/g, ' ').trim(),
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
  };
}

export function describeMachine(m: MachineFacts = machineFacts()): string {
  return `${m.cores} cores (${m.model}), Node ${m.node}, ${m.os}`;
}

/**
 * The load average at a run's start and end, and whether other work shared the cores: the run
 * itself keeps about one core busy, so an average above one and a half says something else ran.
 */
export function describeLoad(atStart: number, atEnd: number): string {
  const shared = Math.max(atStart, atEnd) > 1.5 ? 'other work shared these cores' : 'nothing else ran beside it';
  return `load average ${atStart.toFixed(2)} at the start and ${atEnd.toFixed(2)} at the end (${shared})`;
}

const BENCHMARKS_INTRO = `# Benchmarks

Figures the benchmark scripts under \`scripts/bench/\` measured. They print numbers and never
fail on them: they are for spotting regressions and for knowing where time goes, not a test.

To run one, start the local stack in one terminal and run the benchmark in another:

\`\`\`sh
DEV_WRANGLER=0 DEV_RATE_LIMITS=0 npm run dev   # terminal 1: no rate limits, workers without wrangler dev's wrapper; wait for "ready"
npm run bench:identity -- --write              # terminal 2: prints the table and updates its section below
\`\`\`

Without \`--write\` a benchmark only prints. The figures are medians, p99s and ratios from one run
on a 2-core machine, over loopback (workerd, local KV, embedded Postgres behind the Neon stand-in,
anvil): compare ratios and orders of magnitude, not absolute numbers against production. Each
run replaces its own sections.
`;

/**
 * Replaces the section starting at the line `heading` (up to the next `## ` heading) in
 * `<repo>/BENCHMARKS.md` with `heading + body`, or appends it; creates the file with its intro.
 */
export async function writeBenchmarkSection(heading: string, body: string, file = path.join(REPO_ROOT, 'BENCHMARKS.md')): Promise<string> {
  let text = existsSync(file) ? await readFile(file, 'utf8') : BENCHMARKS_INTRO;
  const section = `${heading}\n\n${body.trim()}\n`;
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.trim() === heading.trim());
  if (start >= 0) {
    let end = lines.findIndex((l, i) => i > start && /^## /.test(l));
    if (end < 0) end = lines.length;
    const before = lines.slice(0, start).join('\n').replace(/\n*$/, '\n\n');
    const after = lines.slice(end).join('\n');
    text = before + section + (after.trim() ? `\n${after.replace(/^\n+/, '')}` : '');
  } else {
    text = `${text.replace(/\n*$/, '\n\n')}${section}`;
  }
  if (!text.endsWith('\n')) text += '\n';
  await writeFile(file, text);
  return file;
}

// ---------------------------------------------------------------------------
// Added for the memory benchmark (bench:memory)
// ---------------------------------------------------------------------------

/**
 * `concurrency` clients taking steps from one shared counter until `total` steps have been
 * started; `step(client, index)` gets a unique index in 0..total-1. Returns the wall time in ms.
 */
export async function runCount(
  total: number,
  concurrency: number,
  step: (client: number, index: number) => Promise<void>,
): Promise<{ elapsedMs: number }> {
  let next = 0;
  const start = now();
  await runConcurrent(concurrency, async (client) => {
    for (let i = next++; i < total; i = next++) await step(client, i);
  });
  return { elapsedMs: now() - start };
}

/** `×1.23` (numerator / denominator); `n/a` when either is not a positive finite number. */
export function ratio(numerator: number, denominator: number): string {
  if (!Number.isFinite(numerator) || !Number.isFinite(denominator) || denominator <= 0 || numerator < 0) return 'n/a';
  const r = numerator / denominator;
  return `×${r >= 100 ? r.toFixed(0) : r >= 10 ? r.toFixed(1) : r.toFixed(2)}`;
}

/** Bytes as B, kB, MB or GB (powers of 1024). */
export function bytes(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let v = value;
  let u = 0;
  while (Math.abs(v) >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${u === 0 ? v.toFixed(0) : v.toFixed(1)} ${units[u]}`;
}

/** An integer with thousands separators: 1,000,000. */
export function count(value: number | bigint): string {
  return value.toLocaleString('en-US');
}

/** Runs a benchmark's main: exits with its code; a BenchError prints its message, anything else its stack. */
export function runBench(name: string, main: () => Promise<number>): void {
  main()
    .then((code) => process.exit(code))
    .catch((err: unknown) => {
      if (err instanceof BenchError) console.error(`${name}: ${err.message}`);
      else console.error(`${name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      process.exit(1);
    });
}
