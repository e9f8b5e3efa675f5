/**
 * `npm run conformance:server`: the official MCP conformance suite (`@modelcontextprotocol/
 * conformance`) against the agent's MCP server, on both deployments of a fresh local stack.
 *
 * Starts `npm run dev` in a temp DEV_DIR on free ports (as `npm run smoke` does), and for mainnet
 * (137) and testnet (80002): mints an agent to a fresh wallet, logs in through the public API
 * (SIWE: the typed client's init, sign, finish), creates an agent key with the scope `mcp` and
 * gets an OAuth access token through the public OAuth flow (server-oauth.ts), and for each puts a
 * loopback proxy in front of the agent's MCP URL that adds it (server-proxy.ts; the suite sends no
 * credential). It first checks that the worker itself sees the Host and Origin the
 * proxy forwards (a foreign Host must come back 403 host_not_allowed from the worker), then runs
 * `conformance server --url <proxy> --scenario S` for each scenario of SCENARIOS.
 * Exits 1 if any scenario or check fails, always stopping the stack first.
 *
 * The scenarios that apply to a tools-only, stateless server are pinned below; docs/tools.md
 * ("Conformance") says why each other server scenario of the suite does not apply.
 */
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { getAddress, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createGatewayClient } from '../../src/client';
import { agentMcpUrl } from '../../src/client/mcp-url';
import { mintAgent } from '../lib/contracts';
import { REPO_ROOT } from '../lib/migrate';
import {
  collectStackPids,
  type DevRun,
  freeDevPorts,
  killAll,
  type ProcessRef,
  type StackDeployment,
  type StackFile,
  spawnDev,
  stillRunning,
  waitForStackFile,
  waitUntil,
} from '../lib/stack-processes';
import { oauthAccessToken } from './server-oauth';
import { type CredentialProxy, startCredentialProxy } from './server-proxy';

/** The suite's server scenarios that apply to the agent's MCP server (tools only, stateless). */
export const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'] as const;

const READY_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 30_000;
const SCENARIO_TIMEOUT_MS = 120_000;

const failures: string[] = [];
function report(ok: boolean, what: string, detail = ''): void {
  console.log(`conformance:server: ${ok ? 'PASS' : 'FAIL'} ${what}${detail ? ` (${detail})` : ''}`);
  if (!ok) failures.push(what);
}

/** A JSON-RPC call to the chain (anvil's own methods included). */
async function chainRpc(rpcUrl: string, method: string, params: unknown[]): Promise<void> {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(60_000),
  });
  const body = (await res.json()) as { error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
}

/** The agent under test and its owner, minted and logged in through the public API. */
interface TestAgent {
  owner: ReturnType<typeof privateKeyToAccount>;
  client: ReturnType<typeof createGatewayClient>;
  collection: string;
  tokenId: bigint;
  mcpUrl: string;
}

/** A fresh agent of `deployment`, minted to a fresh wallet that logs in with SIWE. */
async function freshAgent(deployment: StackDeployment): Promise<TestAgent> {
  const owner = privateKeyToAccount(generatePrivateKey());
  const minterKey: Hex = generatePrivateKey();
  const minter = privateKeyToAccount(minterKey);
  await chainRpc(deployment.rpcUrl, 'anvil_setBalance', [minter.address, '0x56BC75E2D63100000']);
  const tokenId = (BigInt(Date.now()) << 16n) + BigInt(Math.floor(Math.random() * 65_536));
  const collection = getAddress(deployment.collection);
  await mintAgent(deployment.rpcUrl, minterKey, collection, owner.address, tokenId);
  const client = createGatewayClient({ baseUrl: deployment.baseUrl, login: { account: owner, chainId: deployment.chainId } });
  await client.login();
  return { owner, client, collection, tokenId, mcpUrl: agentMcpUrl(deployment.baseUrl, collection, tokenId) };
}

/** How the driver gets each credential it tests with (both through the public API). */
const CREDENTIALS = {
  /** An agent key with the scope `mcp`, made by the logged-in owner. */
  'agent key': async (agent: TestAgent) =>
    (await agent.client.agent(agent.collection, agent.tokenId).createAgentKey({ name: 'conformance', scopes: ['mcp'] })).key,
  /** An OAuth access token for the MCP URL as reached through the proxy (server-oauth.ts), the flow run through it. */
  'OAuth token': (agent: TestAgent, deployment: StackDeployment, proxy: CredentialProxy) =>
    oauthAccessToken(proxy.origin, deployment.chainId, agent.owner, proxy.url),
} as const;

/** POSTs an initialize through the proxy with a foreign Host: the worker must refuse it itself. */
async function hostReachesWorker(proxyUrl: string): Promise<string | true> {
  const { request } = await import('node:http');
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'driver', version: '1' } },
  });
  return new Promise((resolve) => {
    const req = request(
      proxyUrl,
      {
        method: 'POST',
        headers: { host: 'evil.example.com', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => {
          const code = (JSON.parse(text || '{}') as { error?: { code?: unknown } }).error?.code;
          resolve((res.statusCode === 403 && code === 'host_not_allowed') || `status ${res.statusCode}, code ${String(code)}`);
        });
      },
    );
    req.on('error', (err) => resolve(err.message));
    req.end(body);
  });
}

/** What one scenario run said: whether it passed, its summary line ("Passed: 3/3, 0 failed, 0 warnings"), its output. */
interface ScenarioRun {
  ok: boolean;
  summary: string;
  output: string;
}

/** Runs one scenario of the suite: it passes when the suite exits 0 and counts no failed check and no warning. */
function runScenario(url: string, scenario: string): Promise<ScenarioRun> {
  const bin = path.join(REPO_ROOT, 'node_modules', '.bin', 'conformance');
  return new Promise((resolve) => {
    const child = spawn(bin, ['server', '--url', url, '--scenario', scenario], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer) => {
      output += chunk.toString();
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => child.kill('SIGKILL'), SCENARIO_TIMEOUT_MS);
    child.on('exit', (code) => {
      clearTimeout(timer);
      const counts = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings?/.exec(output);
      const clean = counts !== null && counts[1] === counts[2] && counts[3] === '0' && counts[4] === '0';
      resolve({ ok: code === 0 && clean, summary: counts?.[0] ?? `exit ${code}, no summary`, output });
    });
  });
}

async function checkDeployment(name: 'mainnet' | 'testnet', deployment: StackDeployment): Promise<void> {
  const agent = await freshAgent(deployment);
  for (const [kind, credentialFor] of Object.entries(CREDENTIALS)) {
    const proxy = await startCredentialProxy(agent.mcpUrl);
    try {
      proxy.setCredential(await credentialFor(agent, deployment, proxy));
      const seen = await hostReachesWorker(proxy.url);
      const what = `${name} (${kind}): the worker judges the forwarded Host (a foreign one is 403 host_not_allowed)`;
      report(seen === true, what, seen === true ? '' : seen);
      for (const scenario of SCENARIOS) {
        const { ok, summary, output } = await runScenario(proxy.url, scenario);
        report(ok, `${name} (chain ${deployment.chainId}) ${scenario}`, `${kind}; ${summary}`);
        if (!ok) console.error(output.slice(-4000));
      }
    } catch (err) {
      report(false, `${name} (${kind}): setup`, err instanceof Error ? err.message : String(err));
    } finally {
      await proxy.close();
    }
  }
}

let run: DevRun | undefined;
let devDir = '';
const known = new Map<number, ProcessRef>();

/** SIGTERM to `npm run dev`, then SIGKILL to whatever of the stack is left after STOP_TIMEOUT_MS. */
async function stopStack(): Promise<void> {
  if (!run) return;
  collectStackPids(known, devDir, run.pid);
  try {
    process.kill(run.pid, 'SIGTERM');
  } catch {
    /* already gone */
  }
  await Promise.race([run.exited, new Promise((r) => setTimeout(r, STOP_TIMEOUT_MS))]);
  await waitUntil(() => stillRunning(known).length === 0, 5_000);
  collectStackPids(known, devDir);
  if (stillRunning(known).length > 0) {
    try {
      process.kill(-run.pid, 'SIGKILL');
    } catch {
      /* gone */
    }
    killAll(known);
  }
  run = undefined;
}

async function main(): Promise<number> {
  devDir = await mkdtemp(path.join(tmpdir(), 'agent-gateway-conformance-'));
  await chmod(devDir, 0o755); // Postgres runs as its own user when we are root
  const ports = await freeDevPorts();
  console.log(`conformance:server: starting npm run dev (DEV_DIR=${devDir})`);
  run = spawnDev(devDir, ports, { env: { DEV_LLM: '0' } });
  let stack: StackFile;
  try {
    stack = await waitForStackFile(devDir, READY_TIMEOUT_MS, { child: run.child, notBefore: run.spawnedAt });
  } catch (err) {
    console.error(`conformance:server: the stack did not start: ${err instanceof Error ? err.message : String(err)}`);
    console.error(run.output().slice(-4000));
    return 1;
  }
  collectStackPids(known, devDir, run.pid);
  for (const name of ['mainnet', 'testnet'] as const) {
    try {
      await checkDeployment(name, stack[name]);
    } catch (err) {
      report(false, `${name}: setup`, err instanceof Error ? err.message : String(err));
    }
  }
  if (failures.length > 0) {
    console.error(`\nconformance:server: FAILED (${failures.length}): ${failures.join('; ')}`);
    return 1;
  }
  console.log(`\nconformance:server: every scenario passed on both deployments (${SCENARIOS.join(', ')})`);
  return 0;
}

let exiting = false;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (exiting) return;
    exiting = true;
    void stopStack()
      .catch(() => undefined)
      .finally(() => process.exit(1));
  });
}

void main()
  .catch((err: unknown) => {
    console.error(`conformance:server: FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    return 1;
  })
  .then(async (code) => {
    await stopStack().catch(() => undefined);
    if (devDir) await rm(devDir, { recursive: true, force: true }).catch(() => undefined);
    process.exit(code);
  });
