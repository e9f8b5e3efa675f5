import {
  collectStackPids,
  type DevPorts,
  type DevRun,
  freeDevPorts,
  killAll,
  type ProcessRef,
  type StackFile,
  spawnDev,
  stillRunning,
  waitForStackFile,
  waitUntil,
} from '../../scripts/lib/stack-processes';

export interface RunningDevStack {
  run: DevRun;
  stack: StackFile;
  /** Every process of the stack seen so far (npm run dev's tree and its pid file). */
  known: Map<number, ProcessRef>;
  /** SIGTERM to `npm run dev`, up to 20 s for it to stop everything, then kills what is left. */
  stop(): Promise<void>;
}

/**
 * Starts `npm run dev` with its state in `devDir` (on free ports unless given) and waits for its
 * stack file; a failure to start carries the tail of its output. `stop` is registered in
 * `cleanups` before the wait, so a stack that never gets ready is stopped too. `env` adds
 * variables (switches such as DEV_RPC_LATENCY_MS) to its environment, `args` to its command line.
 */
export async function startDevStack(
  devDir: string,
  cleanups: (() => Promise<void>)[],
  ports?: DevPorts,
  env: Record<string, string> = {},
  args: string[] = [],
): Promise<RunningDevStack> {
  const run = spawnDev(devDir, ports ?? (await freeDevPorts()), { env, args });
  const known = new Map<number, ProcessRef>();
  const stop = async () => {
    collectStackPids(known, devDir, run.pid);
    try {
      process.kill(run.pid, 'SIGTERM');
    } catch {
      /* gone */
    }
    await Promise.race([run.exited, new Promise((r) => setTimeout(r, 20_000))]);
    killAll(known);
    await waitUntil(() => stillRunning(known).length === 0, 5_000);
  };
  cleanups.push(stop);
  let stack: StackFile;
  try {
    stack = await waitForStackFile(devDir, 90_000, { child: run.child, notBefore: run.spawnedAt });
  } catch (err) {
    throw new Error(`${err instanceof Error ? err.message : String(err)}\nnpm run dev output:\n${run.output().slice(-4000)}`);
  }
  collectStackPids(known, devDir, run.pid);
  return { run, stack, known, stop };
}
