/**
 * `npm run test:package`: the package as users get it. Packs it (`npm pack`, whose `prepack` builds
 * dist/), installs the tarball with `--omit=dev` into an empty `"type": "module"` project (from
 * npm's cache where it can), and checks there that plain Node imports `agent-gateway/client`, that
 * `npx agent-gateway --help` runs, and that a strict TypeScript file using the client type-checks
 * under `module`/`moduleResolution: nodenext` (this repository's typescript). Also: the tarball
 * holds only what users need, README's guides (docs/*.md) travel with it so its links resolve
 * there, and src/client takes nothing but types from outside src/client.
 * Prints a PASS or FAIL line per check and the tarball's size; exits 1 when any check fails.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brokenLinks } from './lib/markdown';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');
/** The client is plain fetch and small; a bundle past this has pulled in something it should not. */
const CLIENT_JS_MAX_BYTES = 64 * 1024;
/** Files the docs link that stay in the repository (figures and the security policy, not for using the package). */
const REPOSITORY_ONLY = new Set(['SECURITY.md', 'BENCHMARKS.md']);
const GUIDES = readdirSync(path.join(ROOT, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => `docs/${name}`);

let failures = 0;
function report(ok: boolean, what: string, detail = ''): void {
  if (!ok) failures += 1;
  console.log(`${ok ? 'PASS' : 'FAIL'} ${what}${detail ? `: ${detail}` : ''}`);
}

function run(command: string, args: string[], cwd: string): { ok: boolean; out: string } {
  const env = {
    ...process.env,
    NODE_OPTIONS: '',
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  };
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const out = `${result.stdout ?? ''}${result.stderr ?? ''}${result.error ? String(result.error) : ''}`;
  return { ok: result.status === 0, out };
}

function tail(text: string, lines = 15): string {
  return `\n${text.trim().split('\n').slice(-lines).join('\n')}`;
}

/**
 * Runtime-neutral modules outside src/client whose values the client may bundle: pure functions,
 * no imports of their own (the one secret scrubber, shared with the worker and the CLI).
 */
const SHARED_VALUE_MODULES = new Set(['../scrub']);

/** src/client may take types from the route schemas, never values: the bundle must not grow worker code. */
function clientImportsOnlyTypesFromOutside(): string[] {
  const dir = path.join(ROOT, 'src/client');
  const bad: string[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
    const text = readFileSync(path.join(dir, file), 'utf8');
    for (const m of text.matchAll(/^(import|export)\s+(?:([^;]*?)\s+from\s+)?['"]([^'"]+)['"]/gm)) {
      const [, keyword, clause = '', source = ''] = m;
      const outside = (source.startsWith('../') || !source.startsWith('.')) && !SHARED_VALUE_MODULES.has(source);
      if (outside && !/^type\b/.test(clause)) bad.push(`src/client/${file}: ${keyword} ${clause} from '${source}'`);
    }
  }
  return bad;
}

interface PackResult {
  filename: string;
  size: number;
  unpackedSize: number;
  files: { path: string }[];
}

const work = mkdtempSync(path.join(tmpdir(), 'agent-gateway-package-'));
try {
  const strays = clientImportsOnlyTypesFromOutside();
  report(strays.length === 0, 'src/client imports only types from outside src/client', strays.join('; '));

  // npm pack runs prepack (npm run build:package); its --json report is the last JSON array printed.
  const manifestBefore = readFileSync(path.join(ROOT, 'package.json'), 'utf8');
  const pack = run('npm', ['pack', '--json', '--pack-destination', work], ROOT);
  const json = pack.out.slice(pack.out.lastIndexOf('\n[') + 1);
  let packed: PackResult | undefined;
  try {
    packed = (JSON.parse(json.slice(0, json.lastIndexOf(']') + 1)) as PackResult[])[0];
  } catch {
    packed = undefined;
  }
  report(pack.ok && packed !== undefined, 'npm pack (prepack builds dist/)', pack.ok && packed ? '' : tail(pack.out));
  if (!packed) throw new Error('nothing to install');
  const restored =
    readFileSync(path.join(ROOT, 'package.json'), 'utf8') === manifestBefore && !existsSync(path.join(ROOT, 'package.json.pack-backup'));
  report(restored, 'package.json of the checkout is as before the pack (postpack restored it)');
  const tarball = path.join(work, packed.filename);
  console.log(
    `     tarball ${packed.filename}: ${(statSync(tarball).size / 1024).toFixed(1)} KiB packed, ${(packed.unpackedSize / 1024).toFixed(1)} KiB unpacked, ${packed.files.length} files`,
  );

  const paths = packed.files.map((f) => f.path);
  const needed = ['bin/agent-gateway.mjs', 'dist/client.js', 'dist/client.d.ts', 'dist/cli.js', 'package.json', 'README.md', ...GUIDES];
  const missing = needed.filter((p) => !paths.includes(p));
  report(missing.length === 0, 'tarball has the client, its declarations, the CLI and its bin, README and its guides', missing.join(', '));
  const extra = paths.filter(
    (p) => !/^(bin\/agent-gateway\.mjs|dist\/[\w.-]+\.(js|d\.ts)|package\.json|README\.md|docs\/[\w.-]+\.md)$/.test(p),
  );
  report(extra.length === 0, 'tarball holds nothing else (no src, tests, migrations, contracts)', extra.join(', '));
  const clientBytes = statSync(path.join(ROOT, 'dist/client.js')).size;
  report(clientBytes <= CLIENT_JS_MAX_BYTES, `dist/client.js is at most ${CLIENT_JS_MAX_BYTES / 1024} KiB`, `${clientBytes} bytes`);

  const app = path.join(work, 'app');
  mkdirSync(app);
  writeFileSync(path.join(app, 'package.json'), `${JSON.stringify({ name: 'package-check', private: true, type: 'module' }, null, 2)}\n`);
  const install = run('npm', ['install', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund', '--no-package-lock', tarball], app);
  report(install.ok, 'npm install --omit=dev of the tarball into an empty project', install.ok ? '' : tail(install.out));
  if (!install.ok) throw new Error('not installed');
  const installed = path.join(app, 'node_modules/agent-gateway');
  const dangling = paths
    .filter((p) => p.endsWith('.md'))
    .flatMap((file) =>
      brokenLinks(installed, file, readFileSync(path.join(installed, file), 'utf8'), (p) => REPOSITORY_ONLY.has(p)).map(
        (b) => `${file}:${b}`,
      ),
    );
  report(
    dangling.length === 0,
    `README's links resolve inside the package (but to ${[...REPOSITORY_ONLY].join(', ')})`,
    dangling.join('; '),
  );
  // zod, hono and @hono/zod-openapi are installed (the client's declarations name their types:
  // the types come from the route schemas), but the client's JavaScript never loads them.
  const devOnly = ['tsx', 'typescript', 'drizzle-orm', 'pg', '@neondatabase/serverless', 'jose', '@foundry-rs'].filter((name) =>
    existsSync(path.join(app, 'node_modules', name)),
  );
  report(devOnly.length === 0, 'no dev tool, worker-only dependency or anvil is installed for users', devOnly.join(', '));
  const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8')) as { engines?: { node?: string } };
  // The checkout states no engines (it brings its own Node: see scripts/pack-manifest.ts); the package does.
  report(/^>=2[2-9]\./.test(manifest.engines?.node ?? ''), "the package's engines ask its users for Node >= 22", manifest.engines?.node);
  const clientJs = readFileSync(path.join(app, 'node_modules/agent-gateway/dist/client.js'), 'utf8');
  const typeOnly = ['zod', 'hono', '@hono/zod-openapi'].filter((name) =>
    new RegExp(`from\\s*['"]${name.replace('/', '\\/')}['"/]`).test(clientJs),
  );
  report(typeOnly.length === 0, 'the client never loads zod or hono at run time (they serve its declarations only)', typeOnly.join(', '));

  const probe =
    "const m = await import('agent-gateway/client'); const root = await import('agent-gateway'); if (typeof m.createGatewayClient !== 'function' || typeof m.GatewayError !== 'function' || root.createGatewayClient !== m.createGatewayClient) { console.error(Object.keys(m)); process.exit(1); } m.createGatewayClient({ baseUrl: 'http://127.0.0.1:8788' });";
  const node = run(process.execPath, ['--input-type=module', '-e', probe], app);
  report(node.ok, "plain Node: import('agent-gateway/client') exposes createGatewayClient", node.ok ? '' : tail(node.out));

  const help = run('npx', ['--no', '--', 'agent-gateway', '--help'], app);
  report(help.ok && help.out.includes('agent-gateway'), 'npx agent-gateway --help', help.ok ? '' : tail(help.out));
  // Each command is a lazily loaded chunk with its own imports (viem, re2js, @cfworker/json-schema).
  for (const command of ['login', 'contexts list', 'hydrate', 'messages export', 'mcp check', 'settings set', 'templates list']) {
    const loaded = run('npx', ['--no', '--', 'agent-gateway', ...command.split(' '), '--help'], app);
    report(
      loaded.ok && loaded.out.includes('Usage'),
      `npx agent-gateway ${command} --help (loads its chunk)`,
      loaded.ok ? '' : tail(loaded.out),
    );
  }

  writeFileSync(
    path.join(app, 'tsconfig.json'),
    JSON.stringify(
      {
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2024', 'DOM'],
          types: [],
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
        },
        files: ['check.ts'],
      },
      null,
      2,
    ),
  );
  writeFileSync(
    path.join(app, 'check.ts'),
    `import { createGatewayClient, GatewayError, isGatewayError, type ContextMessage, type GatewayClient } from 'agent-gateway/client';
import * as root from 'agent-gateway';

const client: GatewayClient = root.createGatewayClient({ baseUrl: 'http://127.0.0.1:8788' });
const agent = createGatewayClient({ baseUrl: 'http://127.0.0.1:8788' }).agent('0x5FbDB2315678afecb367f032d93F642f64180aa3', 1n);
export async function firstMessage(key: string): Promise<ContextMessage | undefined> {
  try {
    for await (const message of agent.messages(key)) return message;
  } catch (err) {
    if (err instanceof GatewayError || isGatewayError(err)) console.error(err.status, err.code);
  }
  return undefined;
}
// @ts-expect-error baseUrl is a string: the declarations are real types, not any
createGatewayClient({ baseUrl: 42 });
export { client };
`,
  );
  const tsc = run(process.execPath, [TSC, '-p', 'tsconfig.json'], app);
  report(tsc.ok, 'strict TypeScript (nodenext, skipLibCheck off) type-checks against the package', tsc.ok ? '' : tail(tsc.out, 30));
} catch (err) {
  report(false, 'package check stopped early', (err as Error).message);
} finally {
  rmSync(work, { recursive: true, force: true });
}

console.log(failures === 0 ? 'package check: all passed' : `package check: ${failures} failed`);
process.exitCode = failures === 0 ? 0 : 1;
