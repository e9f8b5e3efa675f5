/**
 * CPU time of the local stack's processes, from /proc (Linux only), for `npm run bench:cpu`.
 *
 * Each part of the stack is a set of process trees found from `<DEV_DIR>/pids.json` and the
 * postmaster's pid file: a tree's CPU is, for each of its live processes, user + system time plus
 * the time of its children it has reaped (cutime + cstime). A child that exits and is reaped in
 * a window moves from "live" to its parent's cutime, so short-lived processes (Postgres backends
 * of WebSocket connections) are counted too. This process (the benchmark's client) is read the
 * same way. Resolution is one clock tick (usually 10 ms): measure many requests per window.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cmdlineOf, descendantsOf, postmasterPid, procStat, readPidFile } from '../lib/stack-processes';
import { BenchError } from './lib';

/** The parts of the stack, in the order the tables show them. */
export const PARTS = ['worker', 'wrangler', 'bridge', 'anvil', 'postgres', 'client', 'idle'] as const;
export type Part = (typeof PARTS)[number];

export const PART_LABELS: Record<Part, string> = {
  worker: "workerd running the testnet worker (the product's code)",
  wrangler:
    'wrangler dev around it: its node processes and its proxy workerd (which also relays every inspector event of the worker, e.g. Network.* for each subrequest, to node as an HTTP POST); absent in production',
  bridge: 'dev.ts node: bridge + SQL-over-HTTP (+ RPC proxy)',
  anvil: 'anvil (testnet)',
  postgres: 'Postgres (postmaster + backends)',
  client: 'client (this benchmark)',
  idle: 'mainnet worker and anvil (idle)',
};

/** How one part's processes are found: root pids; with `descendants`, their trees as well. */
interface PartRoots {
  part: Part;
  roots: () => number[];
  /** Include descendants of the roots (excluding pids any earlier part claimed). */
  descendants: boolean;
  /** Count reaped children's time (cutime, cstime) of each process. */
  reaped: boolean;
}

let ticksPerSecond: number | undefined;

/** Clock ticks per second (`getconf CLK_TCK`; 100 on nearly every Linux). */
export function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** utime, stime, cutime, cstime of a process in ticks; undefined when it is gone. */
function cpuTicks(pid: number): { own: number; reaped: number } | undefined {
  let raw: string;
  try {
    raw = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const fields = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state); utime is field 14, stime 15, cutime 16, cstime 17.
  const at = (n: number) => Number(fields[n - 3]);
  return { own: at(14) + at(15), reaped: at(16) + at(17) };
}

/** Busy ticks of the whole machine (all CPUs) since boot, from /proc/stat. */
export function machineTicks(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const [, user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).map(Number);
  return (user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0);
}

export interface StackProcesses {
  /** CPU ticks per part now (cumulative since each process started). */
  sample(): Record<Part, number>;
  /** Which pids each part covers now, with a command-line hint, for the report's footnote. */
  describe(): string;
}

/** Finds the parts of the `npm run dev` stack whose state is in `devDir`. */
export function stackProcesses(devDir: string): StackProcesses {
  const entries = readPidFile(devDir);
  const pidOf = (kind: string): number => {
    const entry = entries.find((e) => e.kind === kind);
    if (!entry || !procStat(entry.pid)) {
      throw new BenchError(`${devDir}/pids.json names no running ${kind}: is the stack from this DEV_DIR running?`);
    }
    return entry.pid;
  };
  // DEV_WRANGLER=0: each worker is a workerd of its own (Miniflare's, a child of dev.ts), no wrangler.
  const bundled = entries.some((e) => e.kind === 'workerd-testnet');
  const testnetRoot = pidOf(bundled ? 'workerd-testnet' : 'wrangler-testnet');
  const devNode = procStat(testnetRoot)?.ppid ?? 0;
  if (!cmdlineOf(devNode).includes('scripts/dev.ts')) {
    throw new BenchError(`the parent of the testnet worker (pid ${devNode}) is not scripts/dev.ts; cannot find the bridge's process`);
  }
  const postmaster = postmasterPid(devDir);
  if (postmaster === undefined || !procStat(postmaster)) throw new BenchError(`no running postmaster for ${devDir}`);
  // wrangler dev runs two workerd: its proxy (serving the deployment's port) and the worker
  // itself, the one with an inspector address.
  const workerdOf = (root: number) =>
    descendantsOf(root)
      .filter((p) => cmdlineOf(p.pid).includes('workerd') && cmdlineOf(p.pid).includes('--inspector-addr'))
      .map((p) => p.pid);
  const parts: PartRoots[] = [
    { part: 'worker', roots: () => (bundled ? [testnetRoot] : workerdOf(testnetRoot)), descendants: true, reaped: true },
    { part: 'wrangler', roots: () => (bundled ? [] : [testnetRoot]), descendants: true, reaped: true },
    { part: 'bridge', roots: () => [devNode], descendants: false, reaped: false },
    { part: 'anvil', roots: () => [pidOf('anvil-testnet')], descendants: true, reaped: true },
    { part: 'postgres', roots: () => [postmaster], descendants: true, reaped: true },
    {
      part: 'idle',
      roots: () => [pidOf(bundled ? 'workerd-mainnet' : 'wrangler-mainnet'), pidOf('anvil-mainnet')],
      descendants: true,
      reaped: true,
    },
  ];
  const members = (): Map<Part, { pids: number[]; reaped: boolean }> => {
    const claimed = new Set<number>();
    const out = new Map<Part, { pids: number[]; reaped: boolean }>();
    for (const spec of parts) {
      const pids: number[] = [];
      for (const root of spec.roots()) {
        for (const pid of [root, ...(spec.descendants ? descendantsOf(root).map((p) => p.pid) : [])]) {
          if (!claimed.has(pid)) {
            claimed.add(pid);
            pids.push(pid);
          }
        }
      }
      out.set(spec.part, { pids, reaped: spec.reaped });
    }
    return out;
  };
  return {
    sample() {
      const totals = Object.fromEntries(PARTS.map((p) => [p, 0])) as Record<Part, number>;
      for (const [part, { pids, reaped }] of members()) {
        for (const pid of pids) {
          const t = cpuTicks(pid);
          if (t) totals[part] += t.own + (reaped ? t.reaped : 0);
        }
      }
      const self = cpuTicks(process.pid);
      totals.client = self ? self.own : 0;
      return totals;
    },
    describe() {
      return [...members()]
        .map(
          ([part, { pids }]) =>
            `${part}: ${pids.map((pid) => `${pid} (${cmdlineOf(pid).split(' ')[0]?.split('/').pop() ?? '?'})`).join(', ')}`,
        )
        .join('; ');
    },
  };
}

/** Milliseconds of CPU per request of each part between two samples. */
export function perRequestMs(before: Record<Part, number>, after: Record<Part, number>, requests: number): Record<Part, number> {
  const msPerTick = 1000 / clockTicks();
  return Object.fromEntries(PARTS.map((p) => [p, ((after[p] - before[p]) * msPerTick) / requests])) as Record<Part, number>;
}
