/**
 * Finding the processes of an `npm run dev` stack, for tests and the CI smoke test that must prove
 * the stack leaves nothing behind. Linux only: reads /proc.
 *
 * A stack's processes are: the `npm run dev` process and all of its descendants, the pids the
 * stack recorded in `<devDir>/pids.json` (anvil, postgres, wrangler: also after they were
 * orphaned by a crash) and their descendants, and the postmaster named in
 * `<devDir>/postgres/postmaster.pid`. Pids are remembered with their start time so that a reused
 * pid is never mistaken for one of ours.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './migrate';
import { freePort, isPortFree, sleep } from './processes';

/** One process, identified by pid and start time (clock ticks after boot). */
export interface ProcessRef {
  pid: number;
  startTime: number;
}

interface ProcStat {
  pid: number;
  ppid: number;
  pgrp: number;
  state: string;
  startTime: number;
}

/** Parses /proc/<pid>/stat; undefined when the process does not exist (any more). */
export function procStat(pid: number): ProcStat | undefined {
  let raw: string;
  try {
    raw = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may contain spaces or parentheses.
  const close = raw.lastIndexOf(')');
  const fields = raw.slice(close + 2).split(' ');
  // fields[0] is field 3 (state), so field n is fields[n - 3].
  return {
    pid,
    state: fields[0] ?? '?',
    ppid: Number(fields[1]),
    pgrp: Number(fields[2]),
    startTime: Number(fields[19]),
  };
}

/** The process's command line, arguments joined by spaces; '' when it is gone. */
export function cmdlineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

function allStats(): ProcStat[] {
  const stats: ProcStat[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(Number(entry));
    if (stat) stats.push(stat);
  }
  return stats;
}

/** Every live descendant of `pid` (children, grandchildren, ...), following ppid links in /proc. */
export function descendantsOf(pid: number): ProcessRef[] {
  const children = new Map<number, ProcStat[]>();
  for (const stat of allStats()) {
    const list = children.get(stat.ppid) ?? [];
    list.push(stat);
    children.set(stat.ppid, list);
  }
  const found: ProcessRef[] = [];
  const queue = [pid];
  const seen = new Set<number>([pid]);
  while (queue.length > 0) {
    const next = queue.shift()!;
    for (const child of children.get(next) ?? []) {
      if (seen.has(child.pid)) continue;
      seen.add(child.pid);
      if (child.state !== 'Z' && child.state !== 'X') found.push({ pid: child.pid, startTime: child.startTime });
      queue.push(child.pid);
    }
  }
  return found;
}

/** The process with this pid as it is now; undefined when there is none or it is a zombie. */
export function processRef(pid: number): ProcessRef | undefined {
  const stat = procStat(pid);
  if (!stat || stat.state === 'Z' || stat.state === 'X') return undefined;
  return { pid, startTime: stat.startTime };
}

/** True while this very process (same pid and start time) runs; zombies count as gone. */
export function isRunning(ref: ProcessRef): boolean {
  const stat = procStat(ref.pid);
  return stat !== undefined && stat.startTime === ref.startTime && stat.state !== 'Z' && stat.state !== 'X';
}

/** `<devDir>/run.json`: the `npm run dev` process (scripts/dev.ts) that owns the stack, while it runs. */
const RUN_FILE = 'run.json';

/** Records this process as the one running the stack in `devDir`. */
export function devRunRecord(): ProcessRef {
  const ref = processRef(process.pid);
  if (!ref) throw new Error('cannot read this process in /proc');
  return ref;
}

export function runFile(devDir: string): string {
  return path.join(devDir, RUN_FILE);
}

/**
 * The `npm run dev` that runs the stack in `devDir` now, if any: the process run.json names, still
 * alive with the same start time (a reused pid is not it) and still running scripts/dev.ts.
 */
export function liveDevRun(devDir: string): ProcessRef | undefined {
  let recorded: Partial<ProcessRef>;
  try {
    recorded = JSON.parse(readFileSync(runFile(devDir), 'utf8')) as Partial<ProcessRef>;
  } catch {
    return undefined;
  }
  if (!Number.isInteger(recorded.pid) || !Number.isInteger(recorded.startTime)) return undefined;
  const ref = { pid: recorded.pid as number, startTime: recorded.startTime as number };
  return isRunning(ref) && cmdlineOf(ref.pid).includes('dev.ts') ? ref : undefined;
}

export interface PidFileEntry {
  kind: string;
  pid: number;
  group: boolean;
}

/** The entries of `<devDir>/pids.json`; [] when it is absent or unreadable. */
export function readPidFile(devDir: string): PidFileEntry[] {
  try {
    const entries = JSON.parse(readFileSync(path.join(devDir, 'pids.json'), 'utf8')) as unknown;
    return Array.isArray(entries) ? (entries as PidFileEntry[]).filter((e) => Number.isInteger(e?.pid)) : [];
  } catch {
    return [];
  }
}

/** The pid in `<devDir>/postgres/postmaster.pid`, when the file exists. */
export function postmasterPid(devDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(path.join(devDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Every live process that belongs to the stack in `devDir` started by `rootPid` (the
 * `npm run dev` process; may be gone already): root and its descendants, the pids in pids.json,
 * the postmaster, and the descendants of each. Deduplicated, with start times.
 */
export function stackPids(devDir: string, rootPid?: number): ProcessRef[] {
  const found = new Map<number, ProcessRef>();
  const add = (ref: ProcessRef | undefined) => {
    if (ref && !found.has(ref.pid)) found.set(ref.pid, ref);
  };
  const roots = [rootPid, ...readPidFile(devDir).map((e) => e.pid), postmasterPid(devDir)];
  for (const pid of roots) {
    if (pid === undefined) continue;
    add(processRef(pid));
    for (const ref of descendantsOf(pid)) add(ref);
  }
  return [...found.values()];
}

/** Adds to `into` every process of the stack that is running now (call repeatedly while it runs). */
export function collectStackPids(into: Map<number, ProcessRef>, devDir: string, rootPid?: number): Map<number, ProcessRef> {
  for (const ref of stackPids(devDir, rootPid)) {
    const known = into.get(ref.pid);
    if (!known || known.startTime !== ref.startTime) into.set(ref.pid, ref);
  }
  return into;
}

/** A set of processes: a list, or a map by pid as collectStackPids fills it. */
export type ProcessRefs = Iterable<ProcessRef> | ReadonlyMap<number, ProcessRef>;

function listOf(refs: ProcessRefs): ProcessRef[] {
  return refs instanceof Map ? [...(refs as ReadonlyMap<number, ProcessRef>).values()] : [...(refs as Iterable<ProcessRef>)];
}

/** Those of `refs` still running, with their command lines (for messages). */
export function stillRunning(refs: ProcessRefs): { pid: number; cmdline: string }[] {
  return listOf(refs)
    .filter(isRunning)
    .map((ref) => ({ pid: ref.pid, cmdline: cmdlineOf(ref.pid) }));
}

/** SIGKILLs every one of `refs` still running, and its process group when it leads one. */
export function killAll(refs: ProcessRefs): void {
  for (const ref of listOf(refs)) {
    if (!isRunning(ref)) continue;
    const stat = procStat(ref.pid);
    try {
      if (stat?.pgrp === ref.pid) process.kill(-ref.pid, 'SIGKILL');
    } catch {
      /* gone */
    }
    try {
      process.kill(ref.pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
}

/** Polls until `check()` is true; returns its last value. */
export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs: number, intervalMs = 100): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(intervalMs);
  }
}

/** What `npm run dev` writes to `<devDir>/stack.json`. */
export interface StackFile {
  startedAt: string;
  databaseUrl: string;
  mainnet: StackDeployment;
  testnet: StackDeployment;
  accounts: { address: string; privateKey: string }[];
  /** DEV_RPC_LATENCY_MS and DEV_DB_LATENCY_MS as the stand-ins apply them (0 = none). */
  latency: { rpcMs: number; dbMs: number };
  /** The stand-in model server (DEV_LLM=1, the default): LLM settings that use it; null with DEV_LLM=0. */
  llm: StackLlm | null;
}

/** `stack.json`'s `llm`: the stand-in model server (deterministic, no weights) as LLM settings take it. */
export interface StackLlm {
  provider: 'openai-compatible';
  baseUrl: string;
  model: string;
  standIn: true;
}

export interface StackDeployment {
  chainId: number;
  baseUrl: string;
  rpcUrl: string;
  collection: string;
  /** The rentable (ERC-4907) demo collection, registered like `collection`. */
  rentableCollection: string;
  /** delegate.xyz v2's registry address, our stand-in's code there. */
  delegateRegistry: string;
}

/**
 * Waits until `<devDir>/stack.json` exists and parses, and returns it. With `notBefore` (ms since
 * the epoch; pass the time `npm run dev` was spawned) a file whose `startedAt` is older, left by
 * a crashed earlier run, does not count. Rejects after `timeoutMs`, or as soon as `child` (the
 * `npm run dev` process, when given) exits.
 */
export async function waitForStackFile(
  devDir: string,
  timeoutMs: number,
  options: { child?: ChildProcess; notBefore?: number } = {},
): Promise<StackFile> {
  const file = path.join(devDir, 'stack.json');
  const deadline = Date.now() + timeoutMs;
  const { child, notBefore } = options;
  for (;;) {
    if (existsSync(file)) {
      try {
        const stack = JSON.parse(readFileSync(file, 'utf8')) as StackFile;
        // startedAt has millisecond precision; allow for clock granularity.
        if (notBefore === undefined || Date.parse(stack.startedAt) >= notBefore - 1_000) return stack;
      } catch {
        /* being written: try again */
      }
    }
    if (child && (child.exitCode !== null || child.signalCode !== null)) {
      throw new Error(`npm run dev exited (${child.exitCode ?? child.signalCode}) before writing ${file}`);
    }
    if (Date.now() >= deadline) throw new Error(`${file} did not appear within ${timeoutMs / 1000} s`);
    await sleep(100);
  }
}

/** The environment variables that move every port of `npm run dev`. */
export const DEV_PORT_VARIABLES = [
  'DEV_PG_PORT',
  'DEV_BRIDGE_PORT',
  'DEV_ANVIL_MAINNET_PORT',
  'DEV_ANVIL_TESTNET_PORT',
  'DEV_MAINNET_PORT',
  'DEV_TESTNET_PORT',
  'DEV_MAINNET_INSPECTOR_PORT',
  'DEV_TESTNET_INSPECTOR_PORT',
  'DEV_LLM_PORT',
] as const;

export type DevPorts = Record<(typeof DEV_PORT_VARIABLES)[number], number>;

/** A distinct free port for every variable of DEV_PORT_VARIABLES. */
export async function freeDevPorts(): Promise<DevPorts> {
  const ports = {} as DevPorts;
  const used = new Set<number>();
  for (const name of DEV_PORT_VARIABLES) {
    let port = await freePort();
    while (used.has(port)) port = await freePort();
    used.add(port);
    ports[name] = port;
  }
  return ports;
}

/** Those of `ports` something still listens on (127.0.0.1). */
export async function busyPorts(ports: DevPorts): Promise<string[]> {
  const busy: string[] = [];
  for (const [name, port] of Object.entries(ports)) {
    if (!(await isPortFree(port))) busy.push(`${name}=${port}`);
  }
  return busy;
}

export interface DevRun {
  child: ChildProcess;
  pid: number;
  /** Everything the stack printed so far (stdout and stderr interleaved). */
  output(): string;
  /** When it was spawned (ms since the epoch), for waitForStackFile's `notBefore`. */
  spawnedAt: number;
  /** Resolves with the exit code (or signal) once the npm process has exited. */
  exited: Promise<number | NodeJS.Signals | null>;
}

/**
 * Spawns `npm run dev` from the repo root in its own process group with DEV_DIR and every port
 * moved, passing `args` (e.g. `--reset`). `echo` copies its output to this process' stdout/stderr as it arrives.
 */
export function spawnDev(
  devDir: string,
  ports: DevPorts,
  options: { echo?: boolean; env?: Record<string, string>; args?: string[] } = {},
): DevRun {
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env, DEV_DIR: devDir };
  for (const [name, port] of Object.entries(ports)) env[name] = String(port);
  const spawnedAt = Date.now();
  const args = options.args?.length ? ['--', ...options.args] : [];
  const child = spawn('npm', ['run', 'dev', ...args], { cwd: REPO_ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (stream: NodeJS.WriteStream) => (chunk: Buffer) => {
    output += chunk.toString();
    if (options.echo) stream.write(chunk);
  };
  child.stdout?.on('data', keep(process.stdout));
  child.stderr?.on('data', keep(process.stderr));
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode ?? child.signalCode);
    child.once('exit', (code, signal) => resolve(code ?? signal));
    child.once('error', () => resolve(null));
  });
  if (child.pid === undefined) throw new Error('could not spawn npm run dev');
  return { child, pid: child.pid, spawnedAt, output: () => output, exited };
}

/** Seconds from the banner's "ready in N s", when it was printed. */
export function readySeconds(output: string): number | undefined {
  const match = /ready in (\d+(?:\.\d+)?) s/.exec(output);
  return match ? Number(match[1]) : undefined;
}
