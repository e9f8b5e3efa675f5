import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Hex } from 'viem';
import { startAnvil, type AnvilInstance } from './anvil';
import { registerCollection } from './collections';
import { ANVIL_ACCOUNTS, compileContracts, deployDemoAgents } from './contracts';
import { migrateGateway } from './migrate';
import { ensureDatabase, startPostgres, type RunningPostgres } from './postgres';
import { startWsBridge, type RunningBridge } from './ws-bridge';

export const DEPLOYMENT_NAMES = ['mainnet', 'testnet'] as const;
export type DeploymentName = (typeof DEPLOYMENT_NAMES)[number];
export const CHAIN_OF: Record<DeploymentName, number> = { mainnet: 137, testnet: 80002 };

export const DATABASE_NAME = 'agent_gateway';

export interface BackendPorts {
  postgres: number;
  bridge: number;
  anvil: Record<DeploymentName, number>;
}

export interface ChainBackend {
  chainId: number;
  rpcUrl: string;
  /** The demo ERC-721, registered as a collection of kind `internal`. */
  collection: string;
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
  stop(): Promise<void>;
}

/**
 * Starts real Postgres (with migrations applied), the bridge and one anvil per deployment with
 * the demo collection deployed and registered. Stops whatever started if a later step fails.
 */
export async function startBackends(options: {
  stateDir: string;
  ports: BackendPorts;
  log?: (line: string) => void;
  onStarted?: (kind: string, pid: number | undefined) => void;
}): Promise<Backends> {
  const started: { stop(): Promise<void> }[] = [];
  const stopAll = async () => {
    for (const part of started.reverse()) await part.stop().catch(() => undefined);
  };
  try {
    const contracts = compileContracts(); // in parallel with the processes
    const startChain = async (name: DeploymentName) => {
      const anvil = await startAnvil({ chainId: CHAIN_OF[name], port: options.ports.anvil[name] });
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
    const bridge = await startWsBridge(options.ports.bridge);
    started.push(bridge);
    await ensureDatabase(postgres.adminUrl, DATABASE_NAME);
    const databaseUrl = postgres.databaseUrl(DATABASE_NAME);
    await migrateGateway(databaseUrl);
    const [mainnetAnvil, testnetAnvil] = await anvils;
    await contracts;
    const deployer = ANVIL_ACCOUNTS[0];
    const chains = {} as Record<DeploymentName, ChainBackend>;
    for (const [name, anvil] of [
      ['mainnet', mainnetAnvil],
      ['testnet', testnetAnvil],
    ] as const) {
      const collection = await deployDemoAgents(anvil.rpcUrl, deployer.privateKey);
      await registerCollection(databaseUrl, { chainId: CHAIN_OF[name], address: collection, kind: 'internal' });
      chains[name] = { chainId: CHAIN_OF[name], rpcUrl: anvil.rpcUrl, collection, anvil };
    }
    return {
      postgres,
      bridge,
      databaseUrl,
      chains,
      accounts: ANVIL_ACCOUNTS.map(({ address, privateKey }) => ({ address, privateKey })),
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
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
    RPC_URL: chain.rpcUrl,
    SIWE_DOMAIN: new URL(origin).host,
    SIWE_URI: origin,
    DB_WS_PROXY: backends.bridge.proxy,
    DATABASE_URL: backends.databaseUrl,
    JWT__HASH: secrets.jwtSecret,
    VAULT_KEK: secrets.vaultKek,
  };
}

export function newJwtSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** A fresh vault key encryption key, `v<version>:<base64 of 32 bytes>`. */
export function newVaultKek(version = 1): string {
  return `v${version}:${randomBytes(32).toString('base64')}`;
}

/** The local stack's switches (DESIGN §9): their defaults under `npm run dev` and what 0 and 1 mean. */
const DEV_SWITCHES = {
  DEV_LOOPBACK_TARGETS: {
    default: '1',
    meaning: "use 1 (loopback tool servers and databases accepted, the default) or 0 (production's policy)",
  },
  DEV_RATE_LIMITS: { default: '1', meaning: "use 1 (production's rate limits, the default) or 0 (no rate limits, for benchmarks)" },
} as const;

export type DevSwitchBindings = Record<keyof typeof DEV_SWITCHES, '0' | '1'>;

/**
 * The switches `npm run dev` passes to both workers, from the developer's environment: each is its
 * default unless set to 0 or 1 (anything else throws, naming it). Loopback targets are on by
 * default so the example tool server and loopback databases can be tried end to end. The test
 * harness passes none: its workers keep production's policy.
 */
export function devSwitchBindings(env: NodeJS.ProcessEnv): DevSwitchBindings {
  const entries = Object.entries(DEV_SWITCHES).map(([name, spec]) => {
    const value = env[name];
    if (value === undefined || value === '') return [name, spec.default];
    if (value !== '0' && value !== '1') throw new Error(`${name}=${value}: ${spec.meaning}`);
    return [name, value];
  });
  return Object.fromEntries(entries) as DevSwitchBindings;
}
