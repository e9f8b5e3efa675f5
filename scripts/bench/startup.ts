/**
 * `npm run bench:startup [-- --rounds N] [bundle.js ...]`: the CPU a worker's start-up costs in
 * workerd, measured from /proc as the CPU time (utime + stime) of a workerd that Miniflare starts
 * with the bundle until it is ready, minus that of one started with a one-line worker, in
 * alternating rounds (the median and the minimum of each). The default bundle is what `npm run
 * build` wrote (.wrangler/dry-run/index.js). For a V8 profile of the same phase:
 * `wrangler deploy --dry-run --outfile w.bundle -c wrangler.testnet.toml` then
 * `wrangler check startup -c wrangler.testnet.toml --worker w.bundle` (a .cpuprofile, wall time).
 * Prints figures, never asserts on them. Linux only (/proc).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Miniflare } from 'miniflare';
import { readWranglerConfig } from '../lib/worker-bundle';
import { BenchError, numberFlag, parseFlags, REPO_ROOT, runBench } from './lib';
import { clockTicks } from './proc-cpu';

const TRIVIAL = 'export default { fetch() { return new Response("ok"); } }';

/** CPU ms of this process's workerd children so far. */
function workerdCpuMs(): number {
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(f[1]) !== process.pid || !readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('workerd')) continue;
      ticks += Number(f[11]) + Number(f[12]);
    } catch {
      /* gone meanwhile */
    }
  }
  return (ticks * 1000) / clockTicks();
}

/** Starts workerd with `script` (a bundle's path, or undefined for the one-line worker) and returns its CPU ms once ready. */
async function startOnce(script: string | undefined): Promise<number> {
  const config = readWranglerConfig('testnet');
  const mf = new Miniflare({
    modules: true,
    ...(script ? { scriptPath: script, modulesRoot: path.dirname(script) } : { script: TRIVIAL }),
    compatibilityDate: config.compatibility_date,
    compatibilityFlags: config.compatibility_flags ?? [],
  });
  try {
    await mf.ready;
    return workerdCpuMs();
  } finally {
    await mf.dispose();
  }
}

async function main(): Promise<number> {
  if (process.platform !== 'linux') throw new BenchError('reads /proc: Linux only');
  const argv = process.argv.slice(2);
  const files = argv.filter((a) => !a.startsWith('--') && /\.m?js$/.test(a)).map((f) => path.resolve(f));
  const flags = parseFlags(argv.filter((a) => !files.includes(path.resolve(a))));
  const rounds = Math.round(numberFlag(flags, 'rounds', 7));
  const bundles = files.length > 0 ? files : [path.join(REPO_ROOT, '.wrangler/dry-run/index.js')];
  const samples = new Map<string, number[]>([['one-line worker', []], ...bundles.map((b): [string, number[]] => [b, []])]);
  for (let r = 0; r < rounds; r++) {
    samples.get('one-line worker')?.push(await startOnce(undefined));
    for (const b of bundles) samples.get(b)?.push(await startOnce(b));
  }
  const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)] ?? NaN;
  const base = samples.get('one-line worker') ?? [];
  console.log('| worker | workerd CPU to ready, median | min | start-up (median − one-line worker) |');
  console.log('|---|--:|--:|--:|');
  for (const [name, v] of samples) {
    const label = name === 'one-line worker' ? name : path.relative(process.cwd(), name);
    const extra = name === 'one-line worker' ? '' : `${(median(v) - median(base)).toFixed(0)} ms`;
    console.log(`| ${label} | ${median(v).toFixed(0)} ms | ${Math.min(...v).toFixed(0)} ms | ${extra} |`);
  }
  return 0;
}

runBench('bench:startup', main);
