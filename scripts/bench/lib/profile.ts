/**
 * V8 CPU profiles of the bundled worker through its inspector (`DEV_WRANGLER=0 DEV_INSPECT=1 npm
 * run dev`), for `npm run bench:cpu -- --profile <dir>`: start, stop, write the `.cpuprofile`
 * (open it in Chrome DevTools) and summarise where the samples fell, by bundled module (esbuild
 * marks each module's first line with a `// path` comment) and by function.
 */
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';
import { BenchError } from '../lib';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  hitCount?: number;
  children?: number[];
}
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

/** An open DevTools protocol session with the worker's isolate. */
export interface Profiler {
  start(): Promise<void>;
  stop(): Promise<CpuProfile>;
  close(): void;
}

/** Connects to the inspector on `port` (the first worker it lists, or the one named `worker`). */
export async function connectProfiler(port: number, worker?: string): Promise<Profiler> {
  const res = await fetch(`http://127.0.0.1:${port}/json/list`).catch(() => undefined);
  if (!res?.ok) throw new BenchError(`no inspector on port ${port}: start the stack with DEV_WRANGLER=0 DEV_INSPECT=1`);
  const targets = (await res.json()) as { title?: string; id?: string; webSocketDebuggerUrl?: string }[];
  const target = targets.find((t) => t.webSocketDebuggerUrl && (!worker || t.title?.includes(worker) || t.id?.includes(worker)));
  if (!target?.webSocketDebuggerUrl) throw new BenchError(`the inspector on port ${port} lists no worker${worker ? ` ${worker}` : ''}`);
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  let next = 0;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: { message: string } };
    const entry = message.id !== undefined ? waiting.get(message.id) : undefined;
    if (!entry || message.id === undefined) return;
    waiting.delete(message.id);
    if (message.error) entry.reject(new BenchError(`inspector: ${message.error.message}`));
    else entry.resolve(message.result);
  });
  const send = (method: string, params: Record<string, unknown> = {}): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const id = ++next;
      waiting.set(id, { resolve, reject });
      socket.send(JSON.stringify({ id, method, params }));
    });
  await send('Profiler.enable');
  await send('Profiler.setSamplingInterval', { interval: 100 });
  return {
    start: async () => void (await send('Profiler.start')),
    stop: async () => ((await send('Profiler.stop')) as { profile: CpuProfile }).profile,
    close: () => socket.close(),
  };
}

/** Where each bundled module starts: esbuild's `// path` comment lines, in order. */
export function bundleModules(bundlePath: string): { line: number; module: string }[] {
  const lines = readFileSync(bundlePath, 'utf8').split('\n');
  const out: { line: number; module: string }[] = [];
  for (const [i, text] of lines.entries()) {
    const m = /^\/\/ ((?:\.\.\/)*(?:main\/)?(?:node_modules\/|src\/)\S+)$/.exec(text);
    if (m?.[1]) out.push({ line: i, module: m[1].replace(/^(\.\.\/)+(main\/)?/, '') });
  }
  return out;
}

function moduleAt(modules: readonly { line: number; module: string }[], line: number): string {
  let lo = 0;
  let hi = modules.length - 1;
  let found = '(bundle prelude)';
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const entry = modules[mid]!;
    if (entry.line <= line) {
      found = entry.module;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** A module's group in the summary: a package name, or `src/<room>`. */
function groupOf(module: string): string {
  const pkg = /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(module);
  if (pkg?.[1]) return pkg[1];
  const src = /^src\/([^/]+)/.exec(module);
  return src?.[1] ? `src/${src[1].replace(/\.ts$/, '')}` : module;
}

export interface ProfileSummary {
  /** Sampled ms per request, by group (package or src room), by function; idle left out. */
  byGroup: [string, number][];
  byFunction: [string, number][];
  /** ms per request of samples in the worker's JS (bundle), the runtime (no script) and GC. */
  totals: { js: number; runtime: number; gc: number; idle: number };
}

/** Sums each sample's time (its time delta) onto the frame it fell in, per request. */
export function summarizeProfile(
  profile: CpuProfile,
  requests: number,
  modules: readonly { line: number; module: string }[],
  top = 12,
): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const groups = new Map<string, number>();
  const functions = new Map<string, number>();
  const totals = { js: 0, runtime: 0, gc: 0, idle: 0 };
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    const node = byId.get(samples[i]!);
    // A sample's delta is the time before it; the next one's is the time it stands for.
    const us = deltas[i + 1] ?? 0;
    if (!node) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') {
      totals.idle += us;
      continue;
    }
    if (functionName === '(garbage collector)') totals.gc += us;
    else if (url.endsWith('index.js') || url.includes('/bundle/')) totals.js += us;
    else totals.runtime += us;
    const module = url ? (url.endsWith('index.js') ? moduleAt(modules, lineNumber) : url) : functionName;
    const group = groupOf(module);
    groups.set(group, (groups.get(group) ?? 0) + us);
    const fn = `${functionName || '(anonymous)'} ${module}:${lineNumber + 1}`;
    functions.set(fn, (functions.get(fn) ?? 0) + us);
  }
  const perRequest = (us: number) => us / 1000 / requests;
  const sorted = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, v]): [string, number] => [k, perRequest(v)]);
  return {
    byGroup: sorted(groups),
    byFunction: sorted(functions),
    totals: { js: perRequest(totals.js), runtime: perRequest(totals.runtime), gc: perRequest(totals.gc), idle: perRequest(totals.idle) },
  };
}
