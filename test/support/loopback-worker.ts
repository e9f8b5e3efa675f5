import { startMiniflare } from '../../scripts/lib/worker-bundle';
import type { DeploymentInfo, StackInfo } from './stack-info';
import { workerBindingsFor } from './worker';

/**
 * A testnet worker as `npm run dev` runs it, with the local stack's DEV_LOOPBACK_TARGETS=1:
 * loopback tool servers (`http://127.0.0.1:PORT`) and loopback databases are accepted. The
 * harness' own workers keep production's policy. `deployment` is testnet's, served by this
 * worker, for `freshAgent` (login and agent calls go to it; same JWT secret and database).
 */
export async function loopbackWorker(stack: StackInfo, bindings: Record<string, string> = {}) {
  const worker = await startMiniflare({
    scriptPath: stack.scriptPath,
    deployment: 'testnet',
    bindings: { ...workerBindingsFor(stack), DEV_LOOPBACK_TARGETS: '1', ...bindings },
  });
  const deployment: DeploymentInfo = { ...stack.testnet, baseUrl: worker.url };
  return { ...worker, deployment };
}
