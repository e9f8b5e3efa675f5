/**
 * A worker's start-up evaluates only its entry (src/index.ts builds the app on the first request),
 * and no model provider is evaluated for a request that calls no model (issue 24): the AI SDK (`ai`) and the provider packages are reached from the worker's entry only
 * through `import()` (src/replies/engine.ts, then one provider in src/replies/model.ts), which the
 * bundle turns into modules evaluated on first use. Bundles src/index.ts as `wrangler deploy` does
 * (esbuild with wrangler's conditions) and walks the graph from the entry: through static imports
 * none of them may be reached; through the dynamic ones each must be (so the walk saw them).
 */
import { builtinModules } from 'node:module';
import path from 'node:path';
import { build, type Metafile } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const ENTRY = 'src/index.ts';
/** The AI SDK and each provider `languageModel` can load. */
const LAZY = [
  /node_modules\/ai\//,
  /node_modules\/@ai-sdk\/openai\//,
  /node_modules\/@ai-sdk\/anthropic\//,
  /node_modules\/@ai-sdk\/openai-compatible\//,
  /node_modules\/workers-ai-provider\//,
];

let meta: Metafile;

beforeAll(async () => {
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: [ENTRY],
    bundle: true,
    write: false,
    metafile: true,
    format: 'esm',
    conditions: ['workerd', 'worker', 'browser'],
    external: ['cloudflare:*', 'node:*', ...builtinModules],
    logLevel: 'silent',
  });
  meta = result.metafile;
}, 60_000);

/** Inputs reachable from the entry, following dynamic imports too or not. */
function reachable(withDynamic: boolean): string[] {
  const seen = new Set<string>([ENTRY]);
  const queue = [ENTRY];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    for (const edge of meta.inputs[file]?.imports ?? []) {
      if (edge.external || (!withDynamic && edge.kind === 'dynamic-import')) continue;
      if (!seen.has(edge.path)) {
        seen.add(edge.path);
        queue.push(edge.path);
      }
    }
  }
  return [...seen];
}

describe('the worker bundle', () => {
  it('evaluates nothing but its entry at start-up: the app and the Cron clean-up are reached through import()', () => {
    const atStartUp = reachable(false);
    expect(atStartUp.filter((f) => !/^src\/(index|env)\.ts$/.test(f))).toEqual([]);
    const everything = reachable(true);
    for (const module of ['src/app.ts', 'src/maintenance/scheduled.ts', 'node_modules/hono/']) {
      expect(everything.some((f) => f.includes(module), `${module} is in the bundle at all`)).toBe(true);
    }
  });

  it('reaches the AI SDK and the providers only through import()', () => {
    const everything = reachable(true);
    const atStartUp = reachable(false);
    for (const pattern of LAZY) {
      expect(
        everything.some((f) => pattern.test(f)),
        `${pattern} is in the bundle at all`,
      ).toBe(true);
      expect(
        atStartUp.filter((f) => pattern.test(f)),
        `${pattern} reached from ${ENTRY} by static imports`,
      ).toEqual([]);
    }
  });
});
