/**
 * Runs the CLI as users do: `node bin/agent-gateway.mjs ...` in the repository root, with a
 * clean environment (a temporary HOME, no AGENT_GATEWAY_* variables from the outer shell) plus
 * what the test passes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI = path.join(REPO_ROOT, 'bin/agent-gateway.mjs');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** stdout + stderr, for assertion messages. */
  output: string;
}

export interface RunningCli {
  child: ChildProcess;
  /** What it printed so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves when the process has exited (also after a kill). */
  exited: Promise<CliResult>;
}

/** Only PATH and the variables given (HOME should be a temporary directory). */
export function cliEnv(vars: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, NODE_OPTIONS: '' };
  for (const [name, value] of Object.entries(vars)) if (value !== undefined) env[name] = value;
  return env;
}

/** Where the CLI runs (default the repository root) and what it reads on stdin (default nothing). */
export interface SpawnOptions {
  cwd?: string;
  input?: string;
}

export function spawnCli(args: string[], env: NodeJS.ProcessEnv, options: SpawnOptions = {}): RunningCli {
  const stdin = options.input === undefined ? 'ignore' : 'pipe';
  const child = spawn(process.execPath, [CLI, ...args], { cwd: options.cwd ?? REPO_ROOT, env, stdio: [stdin, 'pipe', 'pipe'] });
  if (options.input !== undefined) child.stdin!.end(options.input);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<CliResult>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr, output: `${stdout}\n--- stderr ---\n${stderr}` }));
  });
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

/** Runs the CLI to its end; SIGKILLs it after `timeoutMs`. */
export async function runCli(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 60_000, options: SpawnOptions = {}): Promise<CliResult> {
  const running = spawnCli(args, env, options);
  const timer = setTimeout(() => running.child.kill('SIGKILL'), timeoutMs);
  try {
    return await running.exited;
  } finally {
    clearTimeout(timer);
  }
}

/** A temporary directory, removed by the returned cleanup. */
export async function tempDir(prefix = 'agent-gateway-cli-'): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
