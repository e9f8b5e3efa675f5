/**
 * `npm run conformance:client`: the official MCP conformance suite (@modelcontextprotocol/conformance)
 * against the gateway's tool client. Starts `npm run dev` in a temp DEV_DIR on free ports (or, with
 * `--running`, uses the stack of DEV_DIR or .dev that runs), runs each pinned client scenario with
 * `npx conformance client --command "<driver>" --scenario S` (the driver, ./client.ts, plays the
 * client through the gateway's public API), stops the stack, and exits 1 when a scenario failed.
 * A scenario passes when the suite passes it and it has at least one successful check: a
 * scenario whose checks never ran (the client never reached the server) is a failure here. A
 * scenario with an `expected` check (./client-scenarios.ts says why) goes to the suite's
 * `--expected-failures` baseline and passes only when that one check is the only one not a success.
 */
import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../lib/migrate';
import {
  collectStackPids,
  freeDevPorts,
  killAll,
  type DevRun,
  type ProcessRef,
  spawnDev,
  stillRunning,
  waitForStackFile,
  waitUntil,
} from '../lib/stack-processes';
import { SCENARIOS } from './client-scenarios';

const READY_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 30_000;
const SCENARIO_TIMEOUT_MS = 60_000;
const DRIVER = `${process.execPath} --import tsx scripts/conformance/client.ts`;

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | string;
  description?: string;
  errorMessage?: string;
}

/** Runs one scenario with the suite; returns whether it passed, and prints why not. */
async function runScenario(name: string, env: NodeJS.ProcessEnv, outDir: string): Promise<boolean> {
  const expected = SCENARIOS[name]?.expected;
  const args = ['conformance', 'client', '--command', DRIVER, '--scenario', name, '--timeout', String(SCENARIO_TIMEOUT_MS), '-o', outDir];
  if (expected !== undefined) {
    // The suite's own baseline: the scenario is known not to be clean, for the reason in the table.
    const baseline = path.join(outDir, 'expected-failures.yaml');
    await mkdir(outDir, { recursive: true });
    await writeFile(baseline, `client:\n  - ${name}\n`);
    args.push('--expected-failures', baseline);
  }
  const child = spawn('npx', args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  const checks = await readChecks(outDir);
  const counted = checks.filter((c) => c.status !== 'INFO');
  const bad = counted.filter((c) => c.status !== 'SUCCESS');
  // With an expected check, exactly that check (with its status) is not a success; else none.
  const onlyExpected =
    expected === undefined ? bad.length === 0 : bad.length > 0 && bad.every((c) => c.id === expected.check && c.status === expected.status);
  const passed = code === 0 && onlyExpected && counted.some((c) => c.status === 'SUCCESS');
  const label =
    passed && expected !== undefined
      ? `PASS (expected ${expected.status} ${expected.check}: ${expected.reason})`
      : passed
        ? 'PASS'
        : 'FAIL';
  console.log(`conformance:client: ${label} ${name} (${SCENARIOS[name]?.checks})`);
  for (const c of counted) console.log(`    ${c.status.padEnd(7)} ${c.id}${c.errorMessage ? `: ${c.errorMessage}` : ''}`);
  if (!passed) {
    if (counted.length === 0) console.log('    no check ran: the client never reached what the scenario checks');
    console.log(`    suite exit code ${code}; its output (last 4000 characters):\n${output.slice(-4000)}`);
  }
  return passed;
}

/** The checks.json the suite saved under `outDir` (one result directory per run). */
async function readChecks(outDir: string): Promise<Check[]> {
  const found: Check[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.name === 'checks.json') found.push(...(JSON.parse(await readFile(full, 'utf8')) as Check[]));
    }
  };
  await walk(outDir);
  return found;
}

let run: DevRun | undefined;
let devDir = '';
const known = new Map<number, ProcessRef>();

/** SIGTERM to `npm run dev`, then SIGKILL to whatever of the stack still runs after STOP_TIMEOUT_MS. */
async function stopStack(): Promise<void> {
  if (!run) return;
  const current = run;
  run = undefined;
  collectStackPids(known, devDir, current.pid);
  try {
    process.kill(current.pid, 'SIGTERM');
  } catch {
    /* already gone */
  }
  await Promise.race([current.exited, new Promise((r) => setTimeout(r, STOP_TIMEOUT_MS))]);
  await waitUntil(() => stillRunning(known).length === 0, 5_000);
  collectStackPids(known, devDir);
  if (stillRunning(known).length > 0) {
    console.error(`conformance:client: the stack did not stop in time; killing ${stillRunning(known).length} processes`);
    try {
      process.kill(-current.pid, 'SIGKILL');
    } catch {
      /* gone */
    }
    killAll(known);
  }
}

async function main(): Promise<number> {
  const useRunning = process.argv.includes('--running');
  const work = await mkdtemp(path.join(tmpdir(), 'agent-gateway-conformance-'));
  let env: NodeJS.ProcessEnv = { ...process.env };
  try {
    if (!useRunning) {
      devDir = path.join(work, 'dev');
      await mkdir(devDir);
      await chmod(devDir, 0o755); // Postgres runs as its own user when we are root
      console.log(`conformance:client: starting npm run dev (DEV_DIR=${devDir})`);
      run = spawnDev(devDir, await freeDevPorts());
      await waitForStackFile(devDir, READY_TIMEOUT_MS, { child: run.child, notBefore: run.spawnedAt }).catch((err: unknown) => {
        throw new Error(`${err instanceof Error ? err.message : String(err)}\n${run?.output().slice(-4000) ?? ''}`);
      });
      collectStackPids(known, devDir, run.pid);
      env = { ...env, DEV_DIR: devDir };
    }
    const failed: string[] = [];
    for (const [index, name] of Object.keys(SCENARIOS).entries()) {
      if (!(await runScenario(name, env, path.join(work, `results-${index}`)))) failed.push(name);
    }
    const total = Object.keys(SCENARIOS).length;
    console.log(
      `\nconformance:client: ${total - failed.length}/${total} scenarios passed${failed.length ? `; failed: ${failed.join(', ')}` : ''}`,
    );
    return failed.length === 0 ? 0 : 1;
  } finally {
    await stopStack();
    await rm(work, { recursive: true, force: true }).catch(() => undefined);
  }
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    console.error(`conformance:client: ${signal}: stopping the stack`);
    void stopStack().finally(() => process.exit(1));
  });
}

void main().then(
  (code) => process.exit(code),
  async (err: unknown) => {
    console.error(`conformance:client: FAILED: ${err instanceof Error ? err.message : String(err)}`);
    await stopStack().catch(() => undefined);
    process.exit(1);
  },
);
