/**
 * Builds the owner's dashboard (src/dashboard) into Workers static assets: esbuild
 * bundles the browser code (Hono's JSX for the DOM) into one hashed JS file and one hashed CSS
 * file, and an index.html naming them. The worker serves the directory at /app (src/dashboard-serving).
 *
 * Layout of `outDir` (the wrangler files' `[assets] directory`): `app/index.html`,
 * `app/assets/<name>-<hash>.{js,css}`, `app/icon.svg`: asset paths are URL paths.
 */
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { REPO_ROOT } from './migrate';

/** The wrangler files' `[assets] directory` (gitignored; never `dist/`, which build:package wipes). */
export const DASHBOARD_OUT_DIR = path.join(REPO_ROOT, '.dashboard');

/**
 * The gzip weight budget of everything /app loads (HTML + JS + CSS + icon), bytes. The unit test
 * test/unit/dashboard-weight.test.ts builds the dashboard and fails above it.
 */
export const DASHBOARD_GZIP_BUDGET_BYTES = 48 * 1024;

export interface DashboardBuild {
  outDir: string;
  /** URL paths of what the page loads, with their sizes. */
  files: { urlPath: string; bytes: number; gzipBytes: number }[];
  gzipBytes: number;
}

const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#3b5bdb"/><path d="M4 11l4-7 4 7z" fill="#fff"/></svg>\n`;

const html = (js: string, css: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>agent-gateway dashboard</title>
<link rel="icon" href="/app/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${css}">
<script type="module" src="${js}"></script>
</head>
<body>
<div id="root"><noscript>The dashboard needs JavaScript.</noscript></div>
</body>
</html>
`;

/**
 * Writes a file whole or not at all (a temporary file renamed): both deployments' `wrangler dev`
 * run the build at once into the same directory, and neither may see the other's half-written file.
 */
async function writeAtomically(file: string, contents: Uint8Array | string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await writeFile(temporary, contents);
  await rename(temporary, file);
}

/**
 * Bundles src/dashboard into `outDir`; returns what /app loads and its gzip weight. Files of an
 * earlier build are removed after the new ones are in place (the build is deterministic: two
 * builds of the same source write the same names and bytes).
 */
export async function buildDashboard(outDir: string = DASHBOARD_OUT_DIR): Promise<DashboardBuild> {
  const appDir = path.join(outDir, 'app');
  const assetsDir = path.join(appDir, 'assets');
  const result = await build({
    entryPoints: { main: path.join(REPO_ROOT, 'src/dashboard/main.tsx') },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    jsx: 'automatic',
    jsxImportSource: 'hono/jsx/dom',
    tsconfig: path.join(REPO_ROOT, 'src/dashboard/tsconfig.json'),
    entryNames: '[name]-[hash]',
    outdir: assetsDir,
    write: false,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const js = result.outputFiles.find((f) => f.path.endsWith('.js'));
  const css = result.outputFiles.find((f) => f.path.endsWith('.css'));
  if (!js || !css) throw new Error(`the dashboard build made no JS or no CSS: ${result.outputFiles.map((f) => f.path).join(', ')}`);
  const urlOf = (file: string) => `/${path.relative(outDir, file).split(path.sep).join('/')}`;
  const files = new Map<string, Uint8Array | string>([
    [path.join(appDir, 'index.html'), html(urlOf(js.path), urlOf(css.path))],
    [js.path, js.contents],
    [css.path, css.contents],
    [path.join(appDir, 'icon.svg'), ICON],
  ]);
  for (const [file, contents] of files) await writeAtomically(file, contents);
  for (const dir of [appDir, assetsDir]) {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isFile() && !files.has(file) && !entry.name.endsWith('.tmp')) await rm(file, { force: true });
    }
  }
  const loaded = [...files].map(([file, contents]) => {
    const bytes = typeof contents === 'string' ? Buffer.from(contents) : contents;
    return { urlPath: urlOf(file), bytes: bytes.length, gzipBytes: gzipSync(bytes, { level: 9 }).length };
  });
  return { outDir, files: loaded, gzipBytes: loaded.reduce((sum, f) => sum + f.gzipBytes, 0) };
}
