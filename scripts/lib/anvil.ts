/**
 * Start/stop a local anvil (Foundry) dev chain from Node scripts and tests.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants as fsConstants } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';

const READY_TIMEOUT_MS = 10_000;
const POLL_INTERVAL_MS = 50;
const KILL_AFTER_MS = 3_000;
const STDERR_MAX_CHARS = 16_384;

function isExecutable(file: string): boolean {
  try {
    accessSync(file, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Path of the anvil binary: the `@foundry-rs/anvil-linux-amd64` optional dependency when
 * installed, else `anvil` on PATH. Throws when neither exists.
 */
export function anvilBinary(): string {
  try {
    const pkgJson = createRequire(import.meta.url).resolve('@foundry-rs/anvil-linux-amd64/package.json');
    const bin = path.join(path.dirname(pkgJson), 'bin', 'anvil');
    if (isExecutable(bin)) return bin;
  } catch {
    // package not installed (other platform): fall back to PATH
  }
  const exe = process.platform === 'win32' ? 'anvil.exe' : 'anvil';
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, exe);
    if (isExecutable(candidate)) return candidate;
  }
  throw new Error(
    'anvil binary not found: the optional dependency @foundry-rs/anvil-linux-amd64 is not installed ' +
      "and no `anvil` is on PATH. Install Foundry's anvil (https://book.getfoundry.sh/getting-started/installation, " +
      'e.g. `curl -L https://foundry.paradigm.xyz | bash && foundryup`) and make sure `anvil` is on PATH.',
  );
}

export interface StartAnvilOptions {
  chainId: number;
  port: number;
  host?: string;
  /**
   * Keep the chain in this file (anvil `--state`): loaded at start when it exists, written on exit
   * and every second meanwhile (`--state-interval 1`), so a restart continues the same chain.
   */
  stateFile?: string;
  /**
   * Start as a fork of the chain at this RPC URL (anvil `--fork-url`): its contracts, tokens and
   * storage as of now, changed here only. Tests break things on a fork without touching the chain
   * other test files share.
   */
  forkUrl?: string;
}

export interface AnvilInstance {
  rpcUrl: string;
  pid: number;
  /** SIGTERM the anvil process group; SIGKILL after 3 s. Resolves once the process has exited. Idempotent. */
  stop(): Promise<void>;
}

/** Resolves if `host:port` can be bound right now, rejects with a clear error otherwise. */
function assertPortFree(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', (err: NodeJS.ErrnoException) => {
      reject(
        new Error(
          err.code === 'EADDRINUSE'
            ? `cannot start anvil: port ${port} on ${host} is already in use`
            : `cannot start anvil on ${host}:${port}: ${err.message}`,
        ),
      );
    });
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve()));
  });
}

async function rpcChainId(rpcUrl: string): Promise<number | undefined> {
  try {
    const res = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(1_000),
    });
    if (!res.ok) return undefined;
    const body = (await res.json()) as { result?: string };
    return typeof body.result === 'string' ? Number.parseInt(body.result, 16) : undefined;
  } catch {
    return undefined;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Spawn anvil (own process group, `--silent`) and wait until it answers `eth_chainId` over HTTP.
 * Rejects with anvil's stderr when it exits early, when the port is taken or after 10 s.
 */
export async function startAnvil({ chainId, port, host = '127.0.0.1', stateFile, forkUrl }: StartAnvilOptions): Promise<AnvilInstance> {
  const bin = anvilBinary();
  // Check up front: otherwise a different node already on this port could answer our readiness probe.
  await assertPortFree(host, port);

  const urlHost = host.includes(':') ? `[${host}]` : host;
  const rpcUrl = `http://${urlHost}:${port}`;

  const extra = stateFile ? ['--state', stateFile, '--state-interval', '1'] : [];
  if (forkUrl) extra.push('--fork-url', forkUrl);
  const child: ChildProcess = spawn(bin, ['--chain-id', String(chainId), '--port', String(port), '--host', host, '--silent', ...extra], {
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
  });

  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_MAX_CHARS);
  });

  let exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  let spawnError: Error | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exitInfo = { code, signal };
      resolve();
    });
    child.once('error', (err) => {
      spawnError = err;
      // 'exit' may never fire when spawning itself failed
      if (child.pid === undefined) resolve();
    });
  });

  const killGroup = (signal: NodeJS.Signals) => {
    if (child.pid === undefined || exitInfo) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  // Last-resort cleanup if the parent exits without calling stop() (detached children survive us).
  const onParentExit = () => killGroup('SIGKILL');
  process.once('exit', onParentExit);

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      process.removeListener('exit', onParentExit);
      if (exitInfo || child.pid === undefined) return;
      killGroup('SIGTERM');
      const timer = setTimeout(() => killGroup('SIGKILL'), KILL_AFTER_MS);
      try {
        await exited;
      } finally {
        clearTimeout(timer);
      }
    })();
    return stopping;
  };

  const describeStderr = () => (stderr.trim() ? `\nanvil stderr:\n${stderr.trim()}` : '');
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (spawnError && child.pid === undefined) {
      process.removeListener('exit', onParentExit);
      throw new Error(`failed to spawn anvil (${bin}): ${spawnError.message}`);
    }
    if (exitInfo) {
      process.removeListener('exit', onParentExit);
      const how = exitInfo.signal ? `signal ${exitInfo.signal}` : `code ${exitInfo.code}`;
      const portHint = /address already in use|os error 98/i.test(stderr) ? ` (port ${port} is already in use)` : '';
      throw new Error(`anvil exited early with ${how}${portHint}${describeStderr()}`);
    }
    const answered = await rpcChainId(rpcUrl);
    if (answered !== undefined && !exitInfo) {
      if (answered !== chainId) {
        await stop();
        throw new Error(`node at ${rpcUrl} answered chain id ${answered}, expected ${chainId}${describeStderr()}`);
      }
      break;
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`anvil did not answer eth_chainId on ${rpcUrl} within ${READY_TIMEOUT_MS / 1000} s${describeStderr()}`);
    }
    await sleep(POLL_INTERVAL_MS);
  }

  return { rpcUrl, pid: child.pid as number, stop };
}
