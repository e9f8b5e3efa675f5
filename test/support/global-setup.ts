import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { removePostgresData } from '../../scripts/lib/postgres-placement';
import { freePort } from '../../scripts/lib/processes';
import { DEPLOYMENT_NAMES, newJwtSecret, newVaultKek, startBackends, workerBindings } from '../../scripts/lib/stack';
import { buildWorker, startMiniflare } from '../../scripts/lib/worker-bundle';
import type { StackInfo } from './stack-info';

/**
 * Once per `npm test`: real Postgres on a free port, the WebSocket bridge, one anvil per
 * deployment with the demo collection, the worker bundled as for deploy and run in Miniflare
 * (one instance per deployment). Tests reach them over HTTP via `inject('stack')`.
 */
export default async function setup(project: TestProject) {
  const stateDir = await mkdtemp(path.join(tmpdir(), 'agent-gateway-test-'));
  await chmod(stateDir, 0o755); // Postgres runs as its own user when we are root
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
    mainnet: { chainId: 137, baseUrl: mainnet.url, rpcUrl: backends.chains.mainnet.rpcUrl, collection: backends.chains.mainnet.collection },
    testnet: {
      chainId: 80002,
      baseUrl: testnet.url,
      rpcUrl: backends.chains.testnet.rpcUrl,
      collection: backends.chains.testnet.collection,
    },
  };
  project.provide('stack', info);
  return async () => {
    await Promise.all(workers.map((w) => w.dispose()));
    await backends.stop();
    await removePostgresData(path.join(stateDir, 'postgres')); // also data moved out of a private TMPDIR (as root)
    await rm(stateDir, { recursive: true, force: true });
  };
}
