import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Hex } from 'viem';
import { startAnvil, type AnvilInstance } from './anvil';
import { registerCollection } from './collections';
import { ANVIL_ACCOUNTS, compileContracts, deployDemoAgents, installMulticall3 } from './contracts';
import { deployRentableAgents, installDelegateRegistry } from './contracts-delegation';
import { DEV_USDC_FUNDING, fundUsdc, installUsdc } from './contracts-usdc';
import { migrateGateway } from './migrate';
import { ensureDatabase, startPostgres, type RunningPostgres } from './postgres';
import { startRpcProxy } from './rpc-proxy';
import { startWsBridge, type RunningBridge } from './ws-bridge';
import { startFacilitator } from './x402-facilitator';

export const DEPLOYMENT_NAMES = ['mainnet', 'testnet'] as const;
export type DeploymentName = (typeof DEPLOYMENT_NAMES)[number];
export const CHAIN_OF: Record<DeploymentName, number> = { mainnet: 137, testnet: 80002 };

export const DATABASE_NAME = 'agent_gateway';

export interface BackendPorts {
  postgres: number;
  bridge: number;
  anvil: Record<DeploymentName, number>;
  /** The local x402 facilitator (0: any free port). */
  facilitator?: number;
}

export interface ChainBackend {
  chainId: number;
  /** anvil itself (scripts, tests). */
  rpcUrl: string;
  /** What the worker's RPC_URL is: anvil, or the delaying proxy in front of it when rpcMs > 0. */
  workerRpcUrl: string;
  /** The demo ERC-721, registered as a collection of kind `internal`. */
  collection: string;
  /** The demo ERC-721 with ERC-4907 (rentable), registered like the demo collection. */
  rentableCollection: string;
  /** Where delegate.xyz v2's registry sits (our stand-in's code placed there). */
  delegateRegistry: string;
  anvil: AnvilInstance;
}

/** Everything a worker needs behind it: Postgres, the WebSocket bridge, one chain per deployment. */
export interface Backends {
  postgres: RunningPostgres;
  bridge: RunningBridge;
  databaseUrl: string;
  chains: Record<DeploymentName, ChainBackend>;
  /** Funded dev accounts (anvil's well-known ones); the first deployed the demo collections. */
  accounts: readonly { address: string; privateKey: Hex }[];
  /** The loopback x402 facilitator serving both chains, and USDC's address on each (our stand-in's code). */
  x402: { facilitatorUrl: string; usdc: Record<DeploymentName, string> };
  stop(): Promise<void>;
}

/**
 * Starts real Postgres (with migrations applied), the bridge and one anvil per deployment with
 * the demo and rentable collections deployed and registered and the delegate registry stand-in
 * at delegate.xyz v2's address, USDC (our stand-in) funded for the dev accounts and the x402
 * facilitator on loopback. Stops whatever started if a later step fails.
 */
export async function startBackends(options: {
  stateDir: string;
  ports: BackendPorts;
  log?: (line: string) => void;
  onStarted?: (kind: string, pid: number | undefined) => void;
  /** Delays in the stand-ins (DEV_RPC_LATENCY_MS, DEV_DB_LATENCY_MS); none by default. */
  latency?: DevLatency;
  /**
   * Keep the chains here across restarts (`<dir>/<deployment>.json`, anvil's state file) with the
   * demo collections' addresses (`<dir>/<deployment>.collection`, `.rentable`), reused while they
   * hold code. Unset: fresh chains (tests).
   */
  chainStateDir?: string;
}): Promise<Backends> {
  const latency = options.latency ?? { rpcMs: 0, dbMs: 0 };
  const started: { stop(): Promise<void> }[] = [];
  const stopAll = async () => {
    for (const part of started.reverse()) await part.stop().catch(() => undefined);
  };
  try {
    const contracts = compileContracts(); // in parallel with the processes
    const startChain = async (name: DeploymentName) => {
      const stateFile = options.chainStateDir ? path.join(options.chainStateDir, `${name}.json`) : undefined;
      if (options.chainStateDir) await mkdir(options.chainStateDir, { recursive: true });
      const anvil = await startAnvil({ chainId: CHAIN_OF[name], port: options.ports.anvil[name], stateFile });
      started.push(anvil);
      options.onStarted?.(`anvil-${name}`, anvil.pid);
      return anvil;
    };
    const anvils = Promise.all([startChain('mainnet'), startChain('testnet')]);
    const postgres = await startPostgres({
      dataDir: path.join(options.stateDir, 'postgres'),
      port: options.ports.postgres,
      log: options.log,
    });
    started.push(postgres);
    options.onStarted?.('postgres', postgres.pid);
    const bridge = await startWsBridge(options.ports.bridge, { latencyMs: latency.dbMs });
    started.push(bridge);
    await ensureDatabase(postgres.adminUrl, DATABASE_NAME);
    const databaseUrl = postgres.databaseUrl(DATABASE_NAME);
    await migrateGateway(databaseUrl);
    const [mainnetAnvil, testnetAnvil] = await anvils;
    await contracts;
    const deployer = ANVIL_ACCOUNTS[0];
    const chains = {} as Record<DeploymentName, ChainBackend>;
    const usdc = {} as Record<DeploymentName, string>;
    for (const [name, anvil] of [
      ['mainnet', mainnetAnvil],
      ['testnet', testnetAnvil],
    ] as const) {
      const collection = await demoCollection(anvil.rpcUrl, deployer.privateKey, options.chainStateDir, name, 'collection');
      const rentableCollection = await demoCollection(anvil.rpcUrl, deployer.privateKey, options.chainStateDir, name, 'rentable');
      const delegateRegistry = await installDelegateRegistry(anvil.rpcUrl);
      usdc[name] = await installUsdc(anvil.rpcUrl, CHAIN_OF[name]);
      await fundUsdc(
        anvil.rpcUrl,
        CHAIN_OF[name],
        ANVIL_ACCOUNTS.map((a) => a.address),
        DEV_USDC_FUNDING,
      );
      // Polygon has Multicall3 and so does the mainnet dev chain; the testnet dev chain has none,
      // so both ways of reading a wallet's tokens (batched, or parallel calls) run locally.
      if (name === 'mainnet') await installMulticall3(anvil.rpcUrl, deployer.privateKey);
      await registerCollection(databaseUrl, { chainId: CHAIN_OF[name], address: collection, kind: 'internal' });
      await registerCollection(databaseUrl, { chainId: CHAIN_OF[name], address: rentableCollection, kind: 'internal' });
      let workerRpcUrl = anvil.rpcUrl; // R = 0: the worker talks to anvil directly, no proxy to pay for
      if (latency.rpcMs > 0) {
        const proxy = await startRpcProxy(anvil.rpcUrl, { latencyMs: latency.rpcMs });
        started.push({ stop: proxy.close });
        workerRpcUrl = proxy.url;
      }
      chains[name] = {
        chainId: CHAIN_OF[name],
        rpcUrl: anvil.rpcUrl,
        workerRpcUrl,
        collection,
        rentableCollection,
        delegateRegistry,
        anvil,
      };
    }
    // The facilitator reaches the chains as the workers do (through the delaying proxy when one runs).
    const facilitator = await startFacilitator({
      chains: DEPLOYMENT_NAMES.map((name) => ({ chainId: chains[name].chainId, rpcUrl: chains[name].workerRpcUrl })),
      port: options.ports.facilitator ?? 0,
    });
    started.push(facilitator);
    return {
      postgres,
      bridge,
      databaseUrl,
      chains,
      accounts: ANVIL_ACCOUNTS.map(({ address, privateKey }) => ({ address, privateKey })),
      x402: { facilitatorUrl: facilitator.url, usdc },
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/**
 * A demo collection (`collection`: DemoAgents; `rentable`: RentableAgents): the one a kept chain
 * already holds, else a new deployment (remembered when the chain is kept).
 */
async function demoCollection(
  rpcUrl: string,
  deployer: Hex,
  stateDir: string | undefined,
  name: DeploymentName,
  which: 'collection' | 'rentable',
): Promise<string> {
  const file = stateDir ? path.join(stateDir, `${name}.${which}`) : undefined;
  if (file && existsSync(file)) {
    const known = (await readFile(file, 'utf8')).trim();
    // A collection deployed before DemoAgents became ERC-721 Enumerable is left (still registered,
    // its agents still served) and a new one deployed, so the agent picker can list holdings.
    if (/^0x[0-9a-fA-F]{40}$/.test(known) && (await hasCode(rpcUrl, known)) && (await isEnumerable(rpcUrl, known))) return known;
  }
  const collection = which === 'collection' ? await deployDemoAgents(rpcUrl, deployer) : await deployRentableAgents(rpcUrl, deployer);
  if (file) await writeFile(file, `${collection}\n`);
  return collection;
}

/** ERC-165 `supportsInterface(0x780e9d63)` (ERC-721 Enumerable) answers true. */
async function isEnumerable(rpcUrl: string, address: string): Promise<boolean> {
  const data = `0x01ffc9a7${'780e9d63'.padEnd(64, '0')}`;
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ to: address, data }, 'latest'] }),
  });
  const body = (await res.json()) as { result?: string };
  return typeof body.result === 'string' && /^0x0*1$/.test(body.result);
}

async function hasCode(rpcUrl: string, address: string): Promise<boolean> {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getCode', params: [address, 'latest'] }),
  });
  const body = (await res.json()) as { result?: string };
  return typeof body.result === 'string' && body.result.length > 2;
}

/** Vars and secrets for one deployment's worker running against these backends. */
export function workerBindings(
  backends: Backends,
  name: DeploymentName,
  origin: string,
  secrets: { jwtSecret: string; vaultKek: string },
): Record<string, string> {
  const chain = backends.chains[name];
  return {
    CHAIN_ID: String(chain.chainId),
    RPC_URL: chain.workerRpcUrl,
    SIWE_DOMAIN: new URL(origin).host,
    SIWE_URI: origin,
    DB_WS_PROXY: backends.bridge.proxy,
    DATABASE_URL: backends.databaseUrl,
    JWT__HASH: secrets.jwtSecret,
    VAULT_KEK: secrets.vaultKek,
    X402_FACILITATOR_URL: backends.x402.facilitatorUrl,
  };
}

export function newJwtSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** A fresh vault key encryption key, `v<version>:<base64 of 32 bytes>`. */
export function newVaultKek(version = 1): string {
  return `v${version}:${randomBytes(32).toString('base64')}`;
}

/**
 * The local stack's switches, one table: `flag`s are passed to both workers as vars
 * (0 or 1, with a default); `runner` (0 or 1) chooses how the workers run or which parts start
 * (the stand-in model server), and `latencyMs` switches stay in the stack's own stand-ins (the bridge, the RPC proxy): neither ever reaches a
 * worker. Latencies are integers 0..10000, unset or empty = 0.
 */
const DEV_SWITCHES = {
  DEV_LOOPBACK_TARGETS: {
    kind: 'flag',
    default: '1',
    meaning: "use 1 (loopback tool servers and databases accepted, the default) or 0 (production's policy)",
  },
  DEV_RATE_LIMITS: {
    kind: 'flag',
    default: '1',
    meaning: "use 1 (production's rate limits, the default) or 0 (no rate limits, for benchmarks)",
  },
  DEV_WRANGLER: {
    kind: 'runner',
    default: '1',
    meaning:
      "use 1 (both workers under wrangler dev: live reload, DevTools, the default) or 0 (the deployable bundle in workerd through Miniflare, without wrangler dev's proxy and inspector: for benchmarks)",
  },
  DEV_LLM: {
    kind: 'runner',
    default: '1',
    meaning:
      'use 1 (the stand-in model server starts on loopback and stack.json names it, the default) or 0 (no stand-in: point agents at a real provider)',
  },
  DEV_INSPECT: {
    kind: 'runner',
    default: '0',
    meaning:
      "use 0 (no inspector, the default) or 1 (with DEV_WRANGLER=0: the testnet worker's V8 inspector on DEV_TESTNET_INSPECTOR_PORT, for `npm run bench:cpu -- --profile`)",
  },
  DEV_RPC_LATENCY_MS: {
    kind: 'latencyMs',
    meaning: 'use an integer 0..10000: ms each exchange between a worker and the chain RPC is delayed (unset = 0)',
  },
  DEV_DB_LATENCY_MS: {
    kind: 'latencyMs',
    meaning: 'use an integer 0..10000: ms each exchange between a worker and the database is delayed (unset = 0)',
  },
} as const;

type SwitchName = keyof typeof DEV_SWITCHES;
type FlagName = { [K in SwitchName]: (typeof DEV_SWITCHES)[K]['kind'] extends 'flag' ? K : never }[SwitchName];

export type DevSwitchBindings = Record<FlagName, '0' | '1'>;

/** What the latency switches ask of the stand-ins, in ms (`.dev/stack.json`'s `latency`). */
export interface DevLatency {
  rpcMs: number;
  dbMs: number;
}

export const MAX_DEV_LATENCY_MS = 10_000;

/** One switch's value from the environment; throws naming it when the value is not allowed. */
function switchValue(env: NodeJS.ProcessEnv, name: SwitchName): string {
  const spec = DEV_SWITCHES[name];
  const value = env[name];
  if (spec.kind === 'flag' || spec.kind === 'runner') {
    if (value === undefined || value === '') return spec.default;
    if (value !== '0' && value !== '1') throw new Error(`${name}=${value}: ${spec.meaning}`);
    return value;
  }
  if (value === undefined || value === '') return '0';
  if (!/^\d{1,5}$/.test(value) || Number(value) > MAX_DEV_LATENCY_MS) throw new Error(`${name}=${value}: ${spec.meaning}`);
  return String(Number(value));
}

/**
 * Every switch of `npm run dev` checked at once (the first bad one throws, naming it): the vars
 * for both workers and the latencies for the stand-ins. Loopback targets are on by default so the
 * example tool server and loopback databases can be tried end to end. The test harness passes
 * none: its workers keep production's policy and its stand-ins add no delay.
 */
export function devSwitches(env: NodeJS.ProcessEnv): {
  bindings: DevSwitchBindings;
  latency: DevLatency;
  wranglerDev: boolean;
  /** DEV_LLM: the stand-in model server starts. */
  standinLlm: boolean;
  /** DEV_INSPECT: the bundled testnet worker listens for a V8 inspector (CPU profiles). */
  inspect: boolean;
} {
  const values = Object.fromEntries(Object.keys(DEV_SWITCHES).map((name) => [name, switchValue(env, name as SwitchName)]));
  const flags = (Object.keys(DEV_SWITCHES) as SwitchName[]).filter((name) => DEV_SWITCHES[name].kind === 'flag');
  return {
    bindings: Object.fromEntries(flags.map((name) => [name, values[name]])) as DevSwitchBindings,
    latency: { rpcMs: Number(values.DEV_RPC_LATENCY_MS), dbMs: Number(values.DEV_DB_LATENCY_MS) },
    wranglerDev: values.DEV_WRANGLER === '1',
    standinLlm: values.DEV_LLM === '1',
    inspect: values.DEV_INSPECT === '1',
  };
}

/** The switches `npm run dev` passes to both workers (see devSwitches). */
export function devSwitchBindings(env: NodeJS.ProcessEnv): DevSwitchBindings {
  return devSwitches(env).bindings;
}
