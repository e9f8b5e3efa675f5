/**
 * The package build (`npm run build:package`, run by `prepack`): `dist/client.js` + `dist/client.d.ts`
 * (the `agent-gateway/client` export, for browsers and Node) and `dist/cli.js` (what
 * `bin/agent-gateway.mjs` runs). esbuild bundles our own modules into each file and leaves the
 * packages in `dependencies` as imports; the declarations are bundled into one self-contained
 * file, types imported from outside `src/client` (route schemas, say) inlined.
 */
import { defineConfig } from 'tsup';

const common = {
  format: 'esm',
  target: 'es2022',
  outDir: 'dist',
  sourcemap: false,
  shims: false,
} as const;

export default defineConfig([
  {
    ...common,
    entry: { client: 'src/client/index.ts' },
    platform: 'neutral', // browsers and Node: no node: imports may sneak in
    splitting: false,
    clean: true,
    dts: { entry: { client: 'src/client/index.ts' }, compilerOptions: { composite: false, incremental: false } },
    tsconfig: 'src/client/tsconfig.json',
  },
  {
    ...common,
    entry: { cli: 'src/cli/main.ts' },
    platform: 'node',
    splitting: true, // keeps main.ts's lazy import() of each command: `--help` does not load viem
    tsconfig: 'src/cli/tsconfig.json',
  },
]);
