/**
 * The MCP conformance suite's client driver for the gateway's tool client. The suite runs
 * `<command> <serverUrl>` with MCP_CONFORMANCE_SCENARIO set (and MCP_CONFORMANCE_CONTEXT for some
 * scenarios); this driver plays that client through the gateway's public API only, against the
 * running local stack (`<DEV_DIR or .dev>/stack.json`, which accepts loopback tool servers): it
 * logs in as the stack's first dev account, mints it a fresh testnet agent, registers the
 * scenario's server as a tool connection, does what the scenario asks (a step function per
 * scenario, below), and removes the connection. Exits 0 when every step went as expected.
 *
 *   DEV_DIR=... node --import tsx scripts/conformance/client.ts http://localhost:PORT/mcp
 *
 * The scenarios and their steps are the table in ./client-scenarios.ts.
 */
import { privateKeyToAccount } from 'viem/accounts';
import type { Hex } from 'viem';
import { mintDemoAgent, readStack, stackFilePath } from '../lib/mint';
import { type DriverContext, SCENARIOS } from './client-scenarios';

interface Gateway {
  baseUrl: string;
  token: string;
  agentPath: string;
}

async function request(gateway: Gateway | { baseUrl: string; token?: undefined }, method: string, path: string, json?: unknown) {
  const res = await fetch(`${gateway.baseUrl}${path}`, {
    method,
    headers: {
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
      ...(gateway.token === undefined ? {} : { authorization: `Bearer ${gateway.token}` }),
    },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    redirect: 'manual',
    signal: AbortSignal.timeout(25_000),
  });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, body: body as Record<string, unknown>, text };
}

async function ok(what: string, answer: Promise<{ status: number; body: Record<string, unknown>; text: string }>) {
  const res = await answer;
  if (res.status !== 200) throw new Error(`${what}: HTTP ${res.status} ${res.text.slice(0, 500)}`);
  return res.body;
}

/** Logs in as the stack's first dev account (the gateway's wallet login) on a freshly minted testnet agent. */
async function signIn(): Promise<Gateway> {
  const stack = readStack(stackFilePath(process.env), process.env);
  const key = stack.accounts[0]?.privateKey;
  if (key === undefined) throw new Error('the stack file lists no dev account');
  const account = privateKeyToAccount(key as Hex);
  const minted = await mintDemoAgent({ to: account.address, chain: 'testnet' }, process.env);
  const anonymous = { baseUrl: minted.baseUrl };
  const login = { walletAddress: account.address, chainId: minted.chainId };
  const init = await ok('login init', request(anonymous, 'POST', '/auth/jwt/init', login));
  const signature = await account.signMessage({ message: String(init.message) });
  const finish = await ok('login finish', request(anonymous, 'POST', '/auth/jwt/finish', { ...login, signature }));
  return { baseUrl: minted.baseUrl, token: String(finish.token), agentPath: `/agent/${minted.collection}/${minted.tokenId}` };
}

async function main(): Promise<number> {
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
  const serverUrl = process.argv[2] ?? '';
  const step = Object.hasOwn(SCENARIOS, scenario) ? SCENARIOS[scenario]?.step : undefined;
  if (step === undefined || serverUrl === '') {
    console.error(`usage: MCP_CONFORMANCE_SCENARIO=<${Object.keys(SCENARIOS).join('|')}> client.ts <server URL>`);
    return 2;
  }
  const log = (line: string) => console.log(`conformance client (${scenario}): ${line}`);
  const gateway = await signIn();
  log(`signed in on ${gateway.baseUrl}${gateway.agentPath}`);
  const connections: string[] = [];
  const at = (rest: string) => `${gateway.agentPath}/mcp/connection${rest}`;
  const ctx: DriverContext = {
    serverUrl,
    context: JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as Record<string, unknown>,
    async register(url = serverUrl) {
      const body = await ok('register', request(gateway, 'POST', at(''), { url, name: 'conformance', auth: { type: 'none' } }));
      const id = String(body.id);
      connections.push(id);
      log(`registered ${url} as ${id}`);
      return id;
    },
    async listTools(id) {
      const body = await ok('list tools', request(gateway, 'GET', at(`/${id}/tools`)));
      const tools = body.tools as Array<{ name: string }>;
      log(`tools: ${tools.map((t) => t.name).join(', ') || '(none)'}`);
      return tools;
    },
    async callTool(id, name, args) {
      const body = await ok(`call ${name}`, request(gateway, 'POST', at(`/${id}/tools/call`), { name, arguments: args }));
      log(`${name}: ${JSON.stringify(body).slice(0, 300)}`);
      return body;
    },
    api: (method, rest, json) => request(gateway, method, `${gateway.agentPath}${rest}`, json),
    track: (id) => void connections.push(id),
    log,
  };
  try {
    await step(ctx);
    log('done');
    return 0;
  } finally {
    for (const id of connections) {
      const res = await request(gateway, 'DELETE', at(`/${id}`)).catch((err: unknown) => ({ status: 0, text: String(err) }));
      if (res.status !== 200) log(`removing ${id}: HTTP ${res.status} ${res.text.slice(0, 200)}`);
    }
  }
}

void main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`conformance client: FAILED: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
