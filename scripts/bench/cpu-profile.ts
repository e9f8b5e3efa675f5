/**
 * `npm run bench:cpu -- --profile <dir>`: after the measured runs (so their figures are not the
 * profiler's), one V8 CPU profile of the worker per request type through its inspector
 * (`DEV_WRANGLER=0 DEV_INSPECT=1 npm run dev`), written as `<dir>/<n>-<type>.cpuprofile`, and a
 * summary per request: sampled ms in the bundle's JS, the runtime and GC, the packages and `src/`
 * rooms the samples fell in, and the top functions.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BenchError, runCount } from './lib';
import { bundleModules, connectProfiler, summarizeProfile } from './lib/profile';

export interface ProfiledType {
  name: string;
  prepare?: (count: number) => Promise<void>;
  run: (i: number) => Promise<void>;
}

const cell = (v: number) => v.toFixed(3);

/** Profiles `count` requests of each type (`clients` at once), prints the summaries. */
export async function profileTypes(options: {
  inspectorPort: number | undefined;
  bundle: string;
  dir: string;
  types: readonly ProfiledType[];
  count: number;
  clients: (type: ProfiledType) => number;
  offset: number;
}): Promise<void> {
  if (options.inspectorPort === undefined) {
    throw new BenchError('--profile needs the stack started with DEV_WRANGLER=0 DEV_INSPECT=1 (stack.json names no inspectorPort)');
  }
  const profiler = await connectProfiler(options.inspectorPort);
  const modules = bundleModules(options.bundle);
  await mkdir(options.dir, { recursive: true });
  try {
    for (const [n, type] of options.types.entries()) {
      const clients = options.clients(type);
      await type.prepare?.(options.count);
      await profiler.start();
      await runCount(options.count, clients, (_c, i) => type.run(options.offset + n * options.count + i));
      const profile = await profiler.stop();
      const slug = type.name
        .replace(/[^A-Za-z0-9]+/g, '-')
        .replace(/^-|-$/g, '')
        .toLowerCase();
      const file = path.join(options.dir, `${n + 1}-${slug}${clients > 1 ? `-${clients}-clients` : ''}.cpuprofile`);
      await writeFile(file, JSON.stringify(profile));
      const s = summarizeProfile(profile, options.count, modules);
      const lines = [
        `\n#### ${type.name}${clients > 1 ? `, ${clients} clients` : ''}: sampled ms per request (${path.relative(process.cwd(), file)})`,
        `JS in the bundle ${cell(s.totals.js)}, runtime (no script) ${cell(s.totals.runtime)}, GC ${cell(s.totals.gc)}; idle ${cell(s.totals.idle)}`,
        `by package / room: ${s.byGroup.map(([g, v]) => `${g} ${cell(v)}`).join(', ')}`,
        'top functions (self):',
        ...s.byFunction.map(([f, v]) => `  ${cell(v)}  ${f}`),
      ];
      console.log(lines.join('\n'));
    }
  } finally {
    profiler.close();
  }
}
