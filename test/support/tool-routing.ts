import { startMiniflare } from '../../scripts/lib/worker-bundle';
import type { StackInfo } from './stack-info';
import { workerBindingsFor } from './worker';

/** The https URL under which the gateway reaches a loopback test server (`http://127.0.0.1:<port>/mcp`). */
export function toolServerUrl(name: string, serverUrl: string): string {
  return `https://${name}.tools.example${new URL(serverUrl).pathname}`;
}

/**
 * A testnet worker whose fetches to `https://<name>.tools.example/...` reach loopback test servers
 * over plain HTTP, so the gateway validates tool-server URLs exactly as in production. Start the
 * servers first: `servers` maps each name to its loopback URL.
 */
export async function workerWithToolServers(
  stack: StackInfo,
  servers: Record<string, string>,
  bindings: Record<string, string> = {},
  output: Pick<Parameters<typeof startMiniflare>[0], 'logFile' | 'telemetry'> = {},
) {
  const outboundRoutes = Object.fromEntries(Object.entries(servers).map(([name, url]) => [`${name}.tools.example`, new URL(url).origin]));
  return startMiniflare({
    scriptPath: stack.scriptPath,
    deployment: 'testnet',
    bindings: { ...workerBindingsFor(stack), MCP_TIMEOUT_MS: '1500', ...bindings },
    outboundRoutes,
    ...output,
  });
}
