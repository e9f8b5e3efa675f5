/**
 * `npm run soak -- --minutes N [--clients C] [--pause-ms P] [--json] [--samples FILE]`: mixed load against a local
 * stack of its own while faults are injected on a schedule (issue 24). It starts the
 * stack (stack.ts: a temp DEV_DIR, free ports, the deployable bundle in workerd, the stand-in
 * model, the example tool server; rate limits off), mints an agent, runs C clients (default 4,
 * each pausing P ms, default 250, ±50 %, between requests) for N minutes (default 2) while
 * faults.ts kills Postgres, fails the chain RPC, stalls the model and fails the tool server, then
 * reads every context back, stops the stack and checks that none of its processes is left.
 * Prints exact counts and per-route latencies (report.ts, print.ts; the whole report as JSON with
 * --json; every request's route, times, status and code, with the fault windows, to FILE with
 * --samples) and exits 1 on a lost acknowledged write, an unexplained 5xx, a route not back to its
 * p99 within 10 s of a fault's end, or a leftover process.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import { numberFlag, parseFlags, rejectUnknownFlags } from '../bench/lib';
import { sleep } from '../lib/processes';
import { planFaults, runFaults } from './faults';
import { runLoad, setUpAgent } from './load';
import { printReport } from './print';
import { Recorder } from './record';
import { buildReport } from './report';
import { type SoakStack, startSoakStack } from './stack';
import { readBack } from './verify';

const log = (line: string) => console.error(`soak: ${line}`);

/** Processes whose command line names the soak's directory (after the stack stopped: none may remain). */
function namingDir(dir: string): { pid: number; cmdline: string }[] {
  const found: { pid: number; cmdline: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim();
      if (cmdline.includes(dir)) found.push({ pid: Number(entry), cmdline });
    } catch {
      /* gone */
    }
  }
  return found;
}

async function main(): Promise<number> {
  const flags = parseFlags();
  rejectUnknownFlags(flags, ['minutes', 'clients', 'pause-ms', 'json', 'samples']);
  const minutes = numberFlag(flags, 'minutes', 2);
  const clients = Math.round(numberFlag(flags, 'clients', 4));
  const pauseMs = numberFlag(flags, 'pause-ms', 250);
  const json = flags.values.has('json');
  const totalMs = Math.round(minutes * 60_000);
  const plan = planFaults(totalMs);

  log(`starting a local stack (load ${(os.loadavg()[0] ?? 0).toFixed(2)})...`);
  let stack: SoakStack | undefined;
  const stopOnSignal = () => {
    log('interrupted: stopping the stack');
    void (stack?.stop() ?? Promise.resolve()).finally(() => process.exit(130));
  };
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);
  stack = await startSoakStack(log);
  try {
    const recorder = new Recorder(performance.now());
    const agent = await setUpAgent(stack, recorder);
    const started = recorder.now();
    log(
      `load: ${clients} clients for ${minutes} min, ${plan.faults.length} faults (${plan.faults.map((f) => `${f.kind} at ${Math.round(f.at / 1000)} s`).join(', ')})`,
    );
    const stopFaults = new AbortController();
    const faults = runFaults(
      stack,
      plan.faults.map((f) => ({ ...f, at: f.at + started })),
      () => recorder.now(),
      log,
      stopFaults.signal,
    );
    const load = await runLoad(agent, recorder, { clients, pauseMs, stopAt: started + totalMs });
    stopFaults.abort();
    const windows = await faults;
    const endOfLoad = recorder.now();
    log('reading every context back...');
    const back = await readBack(agent.reader, load);
    log('stopping the stack...');
    const dir = stack.dir;
    await stack.stop();
    const s = stack;
    stack = undefined;
    for (let i = 0; i < 20 && s.leftovers().length + namingDir(dir).length > 0; i++) await sleep(500);
    const leftovers = [...s.leftovers(), ...namingDir(dir).filter((p) => !s.leftovers().some((l) => l.pid === p.pid))];
    const report = buildReport({
      minutes,
      clients,
      samples: recorder.samples,
      windows,
      readBack: { ...back, retried: load.retried, replayed: load.replayed, toolErrorSteps: load.toolErrorSteps },
      endOfLoad,
      leftovers,
    });
    // Infinity (a route never back) would print as null, which means "no request" here.
    const notBack = (_key: string, value: unknown) => (value === Number.POSITIVE_INFINITY ? 'not back' : value);
    console.log(json ? JSON.stringify(report, notBack, 2) : printReport(report));
    const samplesFile = flags.values.get('samples');
    if (samplesFile) await writeFile(samplesFile, JSON.stringify({ windows, samples: recorder.samples }));
    log(`load at the end ${(os.loadavg()[0] ?? 0).toFixed(2)}`);
    return report.ok ? 0 : 1;
  } finally {
    await stack?.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`soak failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
