import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { REPO_ROOT } from './migrate';
import { isAlive, sleep, stopProcessGroup } from './processes';

export interface RunningWorker {
  readonly pid: number;
  readonly baseUrl: string;
  stop(): Promise<void>;
}

/** `node <wrangler>`: never through npx, so the process tree is ours to stop. */
export function wranglerBin(): string {
  // The package exports no `bin/` subpath (wrangler 4.1xx): resolve its manifest, then its bin.
  const manifest = createRequire(import.meta.url).resolve('wrangler/package.json');
  return path.join(path.dirname(manifest), 'bin', 'wrangler.js');
}

export const WRANGLER_ENV = {
  WRANGLER_SEND_METRICS: 'false',
  CLOUDFLARE_CF_FETCH_ENABLED: 'false',
  WRANGLER_HIDE_BANNER: 'true',
  NO_COLOR: '1',
} as const;

/**
 * Runs `wrangler dev -c <config>` with local KV, in its own process group, secrets passed through
 * an env file (mode 0600) under the state dir so they never appear in argv or in wrangler's output.
 * Resolves when `/health` answers (any status) at the worker's URL.
 */
export async function startWranglerDev(options: {
  configFile: string;
  port: number;
  inspectorPort: number;
  stateDir: string;
  name: string;
  bindings: Record<string, string>;
  readyTimeoutMs?: number;
}): Promise<RunningWorker> {
  const envFile = path.join(options.stateDir, `${options.name}.env`);
  await writeFile(
    envFile,
    `${Object.entries(options.bindings)
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
      .join('\n')}\n`,
    { mode: 0o600 },
  );
  const log = createWriteStream(path.join(options.stateDir, `${options.name}.log`));
  const child = spawn(
    process.execPath,
    [
      wranglerBin(),
      'dev',
      '-c',
      options.configFile,
      '--ip',
      '127.0.0.1',
      '--port',
      String(options.port),
      '--inspector-port',
      String(options.inspectorPort),
      '--env-file',
      envFile,
      '--persist-to',
      path.join(options.stateDir, `wrangler-${options.name}`),
      '--local',
      '--show-interactive-dev-session=false',
      // `log`: every line the worker writes (console.log/info/warn/error) reaches <name>.log, the
      // request log lines (console.info) among them; `warn` would drop them.
      '--log-level',
      'log',
    ],
    {
      cwd: REPO_ROOT,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...WRANGLER_ENV, WRANGLER_LOG_PATH: path.join(options.stateDir, 'wrangler-logs') },
    },
  );
  let output = '';
  const keep = (chunk: Buffer) => {
    log.write(chunk);
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start wrangler dev for ${options.name}`);
  const baseUrl = `http://127.0.0.1:${options.port}`;
  const stop = async () => {
    await stopProcessGroup(pid);
    log.end();
  };
  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  while (Date.now() < deadline) {
    if (child.exitCode !== null || !isAlive(pid)) {
      throw new Error(`wrangler dev (${options.name}) exited early:\n${output}`);
    }
    try {
      const res = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(5_000) });
      await res.body?.cancel();
      return { pid, baseUrl, stop };
    } catch {
      await sleep(200);
    }
  }
  await stop();
  throw new Error(`wrangler dev (${options.name}) was not ready within the timeout:\n${output}`);
}
