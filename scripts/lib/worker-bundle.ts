import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Miniflare } from 'miniflare';
import { parse } from 'smol-toml';
import { REPO_ROOT } from './migrate';
import type { DeploymentName } from './stack';
import { TAIL_FLAGS, TELEMETRY_TAIL_NAME, telemetryTailWorker, WORKER_LOG_ENV, workerOutputTo } from './worker-output';
import { WRANGLER_ENV, wranglerBin } from './wrangler-dev';

/** What a wrangler file declares, as far as running the worker locally needs. */
export interface WranglerConfig {
  name: string;
  compatibility_date: string;
  compatibility_flags?: string[];
  vars: Record<string, string>;
  kv_namespaces: { binding: string; id: string }[];
  /** Workers Rate Limiting bindings; Miniflare runs them in memory (fixed windows of `period` s). */
  ratelimits?: { name: string; namespace_id: string; simple: { limit: number; period: 10 | 60 } }[];
  triggers?: { crons?: string[] };
  /** Workers static assets (the dashboard at /app): served through the worker's ASSETS binding. */
  assets?: {
    directory: string;
    binding: string;
    run_worker_first?: boolean;
    html_handling?: 'auto-trailing-slash' | 'force-trailing-slash' | 'drop-trailing-slash' | 'none';
    not_found_handling?: 'single-page-application' | '404-page' | 'none';
  };
}

/** Miniflare's options for the wrangler file's `[assets]`, as wrangler dev sets them. */
function assetsOptions(config: WranglerConfig) {
  const assets = config.assets;
  if (!assets) return {};
  return {
    assets: {
      directory: path.resolve(REPO_ROOT, assets.directory),
      binding: assets.binding,
      routerConfig: { has_user_worker: true, invoke_user_worker_ahead_of_assets: assets.run_worker_first ?? false },
      assetConfig: {
        compatibility_date: config.compatibility_date,
        compatibility_flags: config.compatibility_flags ?? [],
        ...(assets.html_handling ? { html_handling: assets.html_handling } : {}),
        ...(assets.not_found_handling ? { not_found_handling: assets.not_found_handling } : {}),
      },
    },
  };
}

export function readWranglerConfig(deployment: DeploymentName): WranglerConfig {
  return parse(readFileSync(path.join(REPO_ROOT, `wrangler.${deployment}.toml`), 'utf8')) as unknown as WranglerConfig;
}

/**
 * Bundles the worker exactly as `wrangler deploy` would, into `outDir`; returns the entry path.
 * wrangler runs the `[build] command` first: the dashboard's assets (.dashboard/) are built too.
 */
export async function buildWorker(outDir: string): Promise<string> {
  await promisify(execFile)(process.execPath, [wranglerBin(), 'deploy', '--dry-run', '--outdir', outDir, '-c', 'wrangler.testnet.toml'], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...WRANGLER_ENV },
  });
  return path.join(outDir, 'index.js');
}

/**
 * Runs the bundled worker in Miniflare (real workerd, real local KV) with a deployment's declared
 * vars and bindings, overridden by `bindings` (local URLs, secrets, test settings).
 */
export async function startMiniflare(options: {
  scriptPath: string;
  deployment: DeploymentName;
  bindings: Record<string, string>;
  /** Bindings to leave out (vars, secrets or rate limiters), to test a misconfigured deployment. */
  omit?: string[];
  port?: number;
  /** Rate limits to lower for a test, by binding name (the wrangler file's `simple.limit` otherwise). */
  limits?: Record<string, number>;
  /**
   * Outbound routes by host (`tools.example` -> `http://127.0.0.1:1234`): the worker's fetches to
   * `https://<host>/...` reach that origin over plain HTTP, through a router worker set as its
   * outbound service; everything else (the database WebSocket, the RPC) passes through unchanged.
   */
  outboundRoutes?: Record<string, string>;
  /**
   * Workers beside the gateway that reach it through a service binding `GATEWAY` (ES module
   * scripts; `miniflare.getWorker(name)` calls them): a caller that can hang up a request before
   * its answer, which workerd's own HTTP server does not notice from a TCP client.
   */
  callers?: { name: string; script: string }[];
  /** The V8 inspector's port (DevTools protocol; CPU profiles of the worker): none by default. */
  inspectorPort?: number;
  /**
   * Where the worker's console output goes: appended to this file (request log lines only there,
   * the rest also on the console). Default: the file named by AGENT_GATEWAY_WORKER_LOG (the test
   * harness sets it), else the console as Miniflare prints it.
   */
  logFile?: string;
  /**
   * A collector URL on loopback: a streaming tail worker posts each invocation's events there (its
   * log lines and the runtime's spans, the gateway's own included). Tests of the spans only.
   */
  telemetry?: string;
}): Promise<{ url: string; miniflare: Miniflare; dispose(): Promise<void> }> {
  const config = readWranglerConfig(options.deployment);
  const bindings: Record<string, string> = { ...config.vars, ...options.bindings };
  for (const name of options.omit ?? []) delete bindings[name];
  const ratelimits = Object.fromEntries(
    (config.ratelimits ?? [])
      .filter((r) => !options.omit?.includes(r.name))
      .map((r) => [r.name, { namespace_id: r.namespace_id, simple: { ...r.simple, limit: options.limits?.[r.name] ?? r.simple.limit } }]),
  );
  const gateway = {
    name: config.name,
    modules: true,
    scriptPath: options.scriptPath,
    modulesRoot: path.dirname(options.scriptPath),
    compatibilityDate: config.compatibility_date,
    compatibilityFlags: [...(config.compatibility_flags ?? []), ...(options.telemetry ? TAIL_FLAGS : [])],
    kvNamespaces: config.kv_namespaces.map((kv) => kv.binding),
    ratelimits,
    bindings,
    ...assetsOptions(config),
    ...(options.telemetry ? { streamingTails: [TELEMETRY_TAIL_NAME] } : {}),
  };
  const callers = (options.callers ?? []).map((caller) => ({
    name: caller.name,
    modules: true,
    script: caller.script,
    compatibilityDate: config.compatibility_date,
    serviceBindings: { GATEWAY: config.name },
  }));
  const logFile = options.logFile ?? process.env[WORKER_LOG_ENV];
  const miniflare = new Miniflare({
    host: '127.0.0.1',
    port: options.port ?? 0,
    ...(options.inspectorPort !== undefined ? { inspectorPort: options.inspectorPort } : {}),
    ...(logFile ? { handleRuntimeStdio: workerOutputTo(logFile) } : {}),
    workers: [
      ...(options.outboundRoutes
        ? [
            { ...gateway, outboundService: 'outbound-router' },
            {
              name: 'outbound-router',
              modules: true,
              script: OUTBOUND_ROUTER,
              compatibilityDate: config.compatibility_date,
              bindings: { ROUTES: JSON.stringify(options.outboundRoutes) },
            },
          ]
        : [gateway]),
      ...callers,
      ...(options.telemetry ? [telemetryTailWorker(options.telemetry, config.compatibility_date)] : []),
    ],
  });
  const url = (await miniflare.ready).toString().replace(/\/$/, '');
  return { url, miniflare, dispose: () => miniflare.dispose() };
}

/** Routes https requests for known hosts to loopback origins; passes everything else through. */
const OUTBOUND_ROUTER = `
export default {
  async fetch(request, env) {
    const routes = JSON.parse(env.ROUTES);
    const url = new URL(request.url);
    const origin = routes[url.host];
    if (origin && url.protocol === 'https:') {
      return fetch(new Request(origin + url.pathname + url.search, request), { redirect: 'manual' });
    }
    return fetch(request);
  },
};
`;

/**
 * `npm run dev` with `DEV_WRANGLER=0`: a deployment's bundle in workerd through Miniflare at
 * `port`, without wrangler dev's proxy worker and DevTools inspector (which relays every outbound
 * fetch as DevTools network events: more CPU than the worker's own on a gated request). No live
 * reload; KV in memory. `pid` is workerd's, for the pid file and CPU accounting.
 */
export async function startBundledWorker(options: {
  scriptPath: string;
  deployment: DeploymentName;
  port: number;
  bindings: Record<string, string>;
  inspectorPort?: number;
  /** The worker's log (`.dev/<name>.log`, as under wrangler dev). */
  logFile: string;
}): Promise<{ pid: number; baseUrl: string; stop(): Promise<void> }> {
  const worker = await startMiniflare(options);
  const pid = workerdPid(options.port);
  if (pid === undefined) {
    await worker.dispose();
    throw new Error(`workerd serving port ${options.port} not found`);
  }
  return { pid, baseUrl: worker.url, stop: () => worker.dispose() };
}

/** The workerd process whose entry socket is 127.0.0.1:`port`. */
function workerdPid(port: number): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline = '';
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (cmdline.includes('workerd') && cmdline.includes(`entry=127.0.0.1:${port}\0`)) return Number(entry);
  }
  return undefined;
}
