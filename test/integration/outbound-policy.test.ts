/**
 * The outbound network policy under production's rules (the harness' workers do not set
 * DEV_LOOPBACK_TARGETS): loopback, private and internal targets are refused with 400 and one code
 * per feature, before any connection. Tool-server hosts are routed to a recording loopback server,
 * so a request that left the gateway would be seen.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../scripts/lib/processes';
import { startMiniflare } from '../../scripts/lib/worker-bundle';
import { freshAgent, type TestAgent } from '../support/agent';
import { call, deployment, expectError } from '../support/http';
import { agentPath } from '../support/login';
import { startPlainServer, type TestServer } from '../support/mcp-servers';
import { closePg } from '../support/pg';
import { workerBindingsFor } from '../support/worker';

const stack = inject('stack');
const testnet = deployment('testnet');
const API_KEY = `policy-key-${crypto.randomUUID()}`;

/** Hosts a tool-server URL may name that must never be reached (with their port, as routed). */
const REFUSED_TOOL_HOSTS = [
  '127.0.0.1.nip.io',
  'localtest.me',
  'kubernetes.default.svc',
  'x.internal',
  'tools.example.com:6379',
  'app-10-0-0-1.example.com',
  'metadata.google.internal',
];

let plain: TestServer;
let worker: Awaited<ReturnType<typeof startMiniflare>>;
let who: TestAgent;

beforeAll(async () => {
  plain = await startPlainServer({ apiKey: API_KEY });
  const origin = new URL(plain.url).origin;
  worker = await startMiniflare({
    scriptPath: stack.scriptPath,
    deployment: 'testnet',
    bindings: { ...workerBindingsFor(stack), MCP_TIMEOUT_MS: '1500' },
    outboundRoutes: Object.fromEntries([...REFUSED_TOOL_HOSTS, 'allowed.tools.example'].map((host) => [host, origin])),
  });
  who = await freshAgent(testnet);
});

afterAll(async () => {
  await worker?.dispose();
  await plain?.close();
  await closePg();
});

const register = (url: string) =>
  call(worker.url, agentPath(who.collection, who.tokenId, '/mcp/connection'), {
    token: who.token,
    method: 'POST',
    json: { url, auth: { type: 'header', headerName: 'x-api-key', value: API_KEY } },
  });

describe('tool-server URLs under production policy', () => {
  it.each([...REFUSED_TOOL_HOSTS.map((host) => `https://${host}/mcp`), 'http://127.0.0.1:8790/mcp', 'http://localhost:8790/mcp'])(
    'refuses %s with 400 invalid_tool_server_url, no request sent',
    async (url) => {
      const before = plain.requests.length;
      const res = await register(url);
      expectError(res, 400, 'invalid_tool_server_url');
      expect(plain.requests.length).toBe(before);
    },
  );

  it('the same route with an allowed name reaches the server (the routing works)', async () => {
    const before = plain.requests.length;
    const res = await register('https://allowed.tools.example/mcp');
    expect(res.status, res.text).toBe(200);
    expect(plain.requests.length).toBeGreaterThan(before);
  });
});

describe('the database step under production policy', () => {
  const own = new URL(stack.databaseUrl);
  const ownTarget = {
    host: own.hostname,
    port: Number(own.port),
    database: own.pathname.slice(1),
    user: decodeURIComponent(own.username),
    password: decodeURIComponent(own.password),
    ssl: 'disable',
  };

  it.each([
    ["127.0.0.1 with the stack's own credentials", {}],
    ['localhost', { host: 'localhost' }],
    ['[::1]', { host: '[::1]' }],
    ['::1', { host: '::1' }],
    ['0.0.0.0', { host: '0.0.0.0' }],
    ['127.1.2.3', { host: '127.1.2.3' }],
    ['2130706433', { host: '2130706433' }],
    ['169.254.169.254', { host: '169.254.169.254', port: 5432 }],
    ['a closed port on 127.0.0.1', { port: 0 }],
    ['localtest.me', { host: 'localtest.me', port: 5432 }],
    ['kubernetes.default.svc', { host: 'kubernetes.default.svc', port: 5432 }],
    ['a public name on the Redis port', { host: 'db.example.com', port: 6379 }],
    ['a public name on a privileged port', { host: 'db.example.com', port: 22 }],
  ])('refuses %s with 400 database_target_refused at once, before any connection', async (_, override) => {
    const agent = await freshAgent(testnet, { owner: who.owner, token: who.token });
    const json = { ...ownTarget, ...override };
    if ((json as { port: number }).port === 0) (json as { port: number }).port = await freePort();
    const started = Date.now();
    const res = await agent.call('/database/settings/first-step', { method: 'POST', json });
    expectError(res, 400, 'database_target_refused');
    expect(Date.now() - started).toBeLessThan(2_000); // the failure floor of a real attempt is 5 s
    expect(res.text).not.toContain(ownTarget.password);
    const settings = await agent.call('/database/settings');
    expect(settings.body).toEqual({ active: null, pending: [] });
  });
});
