import { chmod, copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { removePostgresData } from '../../scripts/lib/postgres-placement';
import { freePort } from '../../scripts/lib/processes';
import {
  type Backends,
  DEPLOYMENT_NAMES,
  type DeploymentName,
  newJwtSecret,
  newVaultKek,
  startBackends,
  workerBindings,
} from '../../scripts/lib/stack';
import { buildWorker, startMiniflare } from '../../scripts/lib/worker-bundle';
import { WORKER_LOG_ENV } from '../../scripts/lib/worker-output';
import type { DeploymentInfo, StackInfo } from './stack-info';
import { secretsInLog } from './worker-log';

/**
 * Once per `npm test`: real Postgres on a free port, the WebSocket bridge, one anvil per
 * deployment with the demo and rentable collections and the delegate registry stand-in, the worker bundled as for deploy and run in Miniflare
 * (one instance per deployment). Tests reach them over HTTP via `inject('stack')`.
 *
 * Every worker of the run (these two and those test files start) appends its console output to one
 * log file (AGENT_GATEWAY_WORKER_LOG, inherited by the test processes). When every file is done,
 * the log is scanned for secrets (test/support/worker-log.ts): one found fails the run, naming
 * the line and the kind of secret, with the log kept for reading.
 */
export default async function setup(project: TestProject) {
  const stateDir = await mkdtemp(path.join(tmpdir(), 'agent-gateway-test-'));
  await chmod(stateDir, 0o755); // Postgres runs as its own user when we are root
  const workerLog = path.join(stateDir, 'worker.log');
  process.env[WORKER_LOG_ENV] = workerLog;
  const [postgresPort, bridgePort, mainnetAnvil, testnetAnvil] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  const [backends, scriptPath] = await Promise.all([
    startBackends({
      stateDir,
      ports: { postgres: postgresPort, bridge: bridgePort, anvil: { mainnet: mainnetAnvil, testnet: testnetAnvil } },
    }),
    buildWorker(path.join(stateDir, 'bundle')),
  ]);
  const jwtSecret = newJwtSecret();
  const vaultKek = newVaultKek();
  const workers = await Promise.all(
    DEPLOYMENT_NAMES.map(async (name) => {
      const port = await freePort();
      const origin = `http://127.0.0.1:${port}`;
      return startMiniflare({
        scriptPath,
        deployment: name,
        port,
        bindings: workerBindings(backends, name, origin, { jwtSecret, vaultKek }),
      });
    }),
  );
  const [mainnet, testnet] = workers as [(typeof workers)[0], (typeof workers)[0]];
  const info: StackInfo = {
    scriptPath,
    databaseUrl: backends.databaseUrl,
    postgresAdminUrl: backends.postgres.adminUrl,
    bridgeProxy: backends.bridge.proxy,
    jwtSecret,
    vaultKek,
    accounts: backends.accounts.map((a) => ({ ...a })),
    mainnet: deploymentInfo(backends, 'mainnet', mainnet.url),
    testnet: deploymentInfo(backends, 'testnet', testnet.url),
    x402: { facilitatorUrl: backends.x402.facilitatorUrl, usdc: { ...backends.x402.usdc } },
  };
  project.provide('stack', info);
  return async () => {
    await Promise.all(workers.map((w) => w.dispose()));
    const leaks = await scanWorkerLog(workerLog, [jwtSecret, vaultKek, vaultKek.split(':')[1] ?? '']);
    await backends.stop();
    await removePostgresData(path.join(stateDir, 'postgres')); // also data moved out of a private TMPDIR (as root)
    await rm(stateDir, { recursive: true, force: true });
    if (leaks) throw new Error(leaks);
  };
}

function deploymentInfo(backends: Backends, name: DeploymentName, baseUrl: string): DeploymentInfo {
  const chain = backends.chains[name];
  return {
    chainId: chain.chainId,
    baseUrl,
    rpcUrl: chain.rpcUrl,
    collection: chain.collection,
    rentableCollection: chain.rentableCollection,
    delegateRegistry: chain.delegateRegistry,
  };
}

/** Scans the run's worker log; a message naming what was found (the log copied out first), or undefined. */
async function scanWorkerLog(file: string, harnessSecrets: string[]): Promise<string | undefined> {
  const text = await readFile(file, 'utf8').catch(() => '');
  const findings = secretsInLog(text, harnessSecrets);
  const lines = text.split('\n').filter(Boolean).length;
  if (findings.length === 0) {
    console.log(`worker log: ${lines} lines, no secret found`);
    return undefined;
  }
  const kept = path.join(tmpdir(), `agent-gateway-worker-log-${Date.now()}.log`);
  await copyFile(file, kept);
  const where = findings.slice(0, 20).map((f) => `line ${f.line}: ${f.kind}`);
  return `a secret in the workers' log (${findings.length} finding(s); the log is kept at ${kept}):\n  ${where.join('\n  ')}`;
}
