/**
 * Measuring gateway requests beside their floors: sequential rounds where every case runs once
 * per round (drift on this shared machine hits every case alike), concurrent runs, and the
 * markdown rows the benchmarks print.
 */
import { Counter, ms, ratio, runConcurrent, runCount, summarize, type Align, type Summary } from '../lib';
import type { Step } from './client';

/** Pause between a sequential gateway request and its floor statement, not counted. */
export const SETTLE_MS = 10;

export interface PairResult {
  gateway: Summary;
  floor: Summary;
  failures: Counter<string>;
}

export interface Case {
  gateway: () => Promise<Step>;
  floor: (() => Promise<Step>) | null;
}

/**
 * `warmUp + n` sequential rounds; each round runs every case once, in order, its gateway request
 * followed by its floor statement (after SETTLE_MS, so the worker's after-response work is done).
 */
export async function measureCases(
  warmUp: number,
  n: number,
  cases: readonly Case[],
  onRound?: (round: number) => void,
): Promise<PairResult[]> {
  const samples = cases.map(() => ({ g: [] as number[], f: [] as number[], failures: new Counter<string>() }));
  for (let i = 0; i < warmUp + n; i++) {
    for (const [k, c] of cases.entries()) {
      const a = await c.gateway();
      if (c.floor) await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      const b = c.floor ? await c.floor() : null;
      if (i < warmUp) continue;
      const acc = samples[k]!;
      if (a.failure) acc.failures.add(a.failure);
      else acc.g.push(a.ms);
      if (b?.failure) acc.failures.add(b.failure);
      else if (b) acc.f.push(b.ms);
    }
    onRound?.(i + 1);
  }
  return samples.map((x) => ({ gateway: summarize(x.g), floor: summarize(x.f), failures: x.failures }));
}

export interface ConcurrentResult {
  /** Successful steps. */
  count: number;
  elapsedMs: number;
  latency: Summary;
  failures: Counter<string>;
}

/** One warm-up step per client (not counted), then `total` steps shared by `concurrency` clients. */
export async function measureConcurrent(
  total: number,
  concurrency: number,
  step: (client: number, index: number) => Promise<Step>,
): Promise<ConcurrentResult> {
  const samples: number[] = [];
  const failures = new Counter<string>();
  await runConcurrent(concurrency, (c) => step(c, -1 - c));
  const { elapsedMs } = await runCount(total, concurrency, async (client, i) => {
    const r = await step(client, i);
    if (r.failure) failures.add(r.failure);
    else samples.push(r.ms);
  });
  return { count: samples.length, elapsedMs, latency: summarize(samples), failures };
}

export function mergeCounters(...counters: Counter<string>[]): Counter<string> {
  const merged = new Counter<string>();
  for (const c of counters) for (const [k, v] of c.counts) merged.add(k, v);
  return merged;
}

export function failuresCell(counter: Counter<string>): string {
  return counter.total() === 0 ? '0' : `${counter.total()} (${counter.format()})`;
}

/** `+1.23 ms` / `−0.50 ms`; `n/a` unless both are finite. */
export function diff(a: number, b: number): string {
  if (!Number.isFinite(a) || !Number.isFinite(b)) return 'n/a';
  return `${a - b >= 0 ? '+' : '−'}${ms(Math.abs(a - b))}`;
}

export const PAIR_HEADERS = [
  'Measurement',
  'Keys',
  'n',
  'Gateway median',
  'Gateway p99',
  'Floor median',
  'Floor p99',
  'Gateway / floor',
  'Gateway − floor',
  'Unexpected',
];
export const PAIR_ALIGN: Align[] = ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right'];

export function pairRow(label: string, keys: string, r: PairResult): string[] {
  const hasFloor = r.floor.n > 0;
  return [
    label,
    keys,
    String(r.gateway.n),
    ms(r.gateway.median),
    ms(r.gateway.p99),
    hasFloor ? ms(r.floor.median) : '',
    hasFloor ? ms(r.floor.p99) : '',
    hasFloor ? ratio(r.gateway.median, r.floor.median) : '',
    hasFloor ? diff(r.gateway.median, r.floor.median) : '',
    failuresCell(r.failures),
  ];
}

/** Met or not; "narrowly" within 20% of the target, where this shared machine's noise can flip it. */
export function met(value: number, target: number): string {
  if (value <= target)
    return `**met${value > 0.8 * target ? ', narrowly' : ''}** (${ms(value)} ≤ ${ms(target)}${value > 0.8 * target ? ", within this run's noise" : ''})`;
  return `**not met${value < 1.2 * target ? ', narrowly' : ''}** (${ms(value)} > ${ms(target)})`;
}
