/**
 * MCP connections over HTTP, the URL rules: https only, no IP literal, no local name,
 * no userinfo, no hidden characters, refused before any request leaves the gateway; the canonical
 * spelling is unique per agent, also under concurrent registrations.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freshAgent, type TestAgent } from '../support/agent';
import { call, deployment, errorCode, type JsonResponse, expectError } from '../support/http';
import { agentPath } from '../support/login';
import { startPlainServer, type TestServer } from '../support/mcp-servers';
import { closePg, vaultEntryCount } from '../support/pg';
import { credentialProblems } from '../support/secrets';
import { toolServerUrl, workerWithToolServers } from '../support/tool-routing';

const stack = inject('stack');
const testnet = deployment('testnet');
const API_KEY = `plain-key-${crypto.randomUUID()}`;
const DUPLICATE = 'MCPConnection URL already exists for this agent';

let worker: Awaited<ReturnType<typeof workerWithToolServers>>;
let plain: TestServer;
const tokens: string[] = [];

beforeAll(async () => {
  plain = await startPlainServer({ apiKey: API_KEY });
  worker = await workerWithToolServers(stack, { plain: plain.url });
});

afterAll(async () => {
  await worker?.dispose();
  await plain?.close();
  await closePg();
});

async function agent(): Promise<TestAgent> {
  const fresh = await freshAgent(testnet);
  tokens.push(fresh.token);
  return fresh;
}

function register(who: TestAgent, url: string): Promise<JsonResponse<any>> {
  return call(worker.url, agentPath(who.collection, who.tokenId, '/mcp/connection'), {
    token: who.token,
    method: 'POST',
    json: { url, auth: { type: 'header', headerName: 'x-api-key', value: API_KEY } },
  });
}

const list = (who: TestAgent) => call(worker.url, agentPath(who.collection, who.tokenId, '/mcp/connections'), { token: who.token });

const vaultRows = (who: TestAgent) => vaultEntryCount(stack.databaseUrl, who, testnet.chainId);

describe('tool-server URL rules', () => {
  it.each([
    ['plain http', 'http://tools.example/mcp'],
    ['an IPv4 literal', 'https://127.0.0.1/mcp'],
    ['a decimal IPv4 literal', 'https://2130706433/mcp'],
    ['an IPv6 literal', 'https://[::1]/mcp'],
    ['the metadata address', 'https://169.254.169.254/latest'],
    ['localhost', 'https://localhost/mcp'],
    ['userinfo', 'https://user:pass@plain.tools.example/mcp'],
    ['a tab inside the host', 'https://pla\tin.tools.example/mcp'],
    ['a zero-width space in the host', 'https://plain\u200b.tools.example/mcp'],
    ['ftp', 'ftp://x.example/'],
    ['a hex IPv4 literal', 'https://0x7f.1/mcp'],
    ['an IPv4-mapped IPv6 literal', 'https://[::ffff:7f00:1]/mcp'],
    ['a subdomain of localhost', 'https://tools.localhost/mcp'],
    ['an internal name', 'https://metadata.google.internal/computeMetadata/v1/'],
    ['a no-break space in the host', 'https://plain\u00a0.tools.example/mcp'],
    ['a newline in the path', 'https://plain.tools.example/m\ncp'],
    ['a bidi override in the path', 'https://plain.tools.example/\u202emcp'],
    ['a fragment', 'https://plain.tools.example/mcp#tools'],
  ])('refuses %s with 400 invalid_tool_server_url, before any request', async (_, url) => {
    const who = await agent();
    const before = plain.requests.length;
    const res = await register(who, url);
    expectError(res, 400, 'invalid_tool_server_url');
    expect(plain.requests.length).toBe(before);
    expect(res.text).not.toContain(API_KEY);
    expect((await list(who)).body).toEqual({ connections: [] });
    expect(await vaultRows(who)).toBe(0);
  });
});

describe('one connection per canonical URL and agent', () => {
  it('refuses another spelling of a registered URL with 400 mcp_connection_exists', async () => {
    const who = await agent();
    const url = toolServerUrl('plain', plain.url);
    expect(url).toBe('https://plain.tools.example/mcp');
    const first = await register(who, url);
    expect(first.status, first.text).toBe(200);
    expect(first.body.url).toBe(url);
    for (const spelling of [
      url,
      'https://PLAIN.tools.example/mcp',
      'https://plain.tools.example:443/mcp',
      'HTTPS://plain.TOOLS.example:443/mcp',
      'https://plain.tools.example:0443/mcp',
      'https://plain.tools.example/./mcp',
      'https://pl%61in.tools.example/mcp',
      'https://\uff30\uff2c\uff21\uff29\uff2e.tools.example/mcp',
    ]) {
      const again = await register(who, spelling);
      expect(again.status, `${spelling}: ${again.text}`).toBe(400);
      expectError(again, 400, 'mcp_connection_exists');
      expect(again.body.error.message).toBe(DUPLICATE);
      expect(again.body.error.details, 'the 400 names the existing connection').toEqual({ id: first.body.id });
    }
    const listed = await list(who);
    expect(listed.body.connections.map((c: { url: string }) => c.url)).toEqual([url]);
    expect(await vaultRows(who)).toBe(1);
  });

  it('stores the canonical spelling: lower-case host, no default port', async () => {
    const who = await agent();
    const res = await register(who, 'https://Plain.Tools.Example:443/mcp');
    expect(res.status, res.text).toBe(200);
    expect(res.body.url).toBe('https://plain.tools.example/mcp');
  });

  it('lets exactly one of two concurrent registrations of the same URL through', async () => {
    const who = await agent();
    const url = toolServerUrl('plain', plain.url);
    const results = await Promise.all([register(who, url), register(who, url)]);
    const statuses = results.map((r) => r.status).sort();
    expect(statuses, results.map((r) => r.text).join('\n')).toEqual([200, 400]);
    const loser = results.find((r) => r.status === 400)!;
    expect(errorCode(loser)).toBe('mcp_connection_exists');
    expect(loser.body.error.message).toBe(DUPLICATE);
    const winner = results.find((r) => r.status === 200)!;
    expect(loser.body.error.details).toEqual({ id: winner.body.id });
    expect((await list(who)).body.connections).toHaveLength(1);
    // the loser's credential was not left behind in the vault
    expect(await vaultRows(who)).toBe(1);
  });

  it('accepts the same URL for another agent, even of the same owner', async () => {
    const first = await agent();
    const sameOwner = await freshAgent(testnet, { owner: first.owner, token: first.token });
    const other = await agent();
    const url = toolServerUrl('plain', plain.url);
    for (const who of [first, sameOwner, other]) {
      const res = await register(who, url);
      expect(res.status, res.text).toBe(200);
      expect(res.body.url).toBe(url);
    }
  });

  it('never forwards our JWT to the tool server', () => {
    expect(plain.requests.length).toBeGreaterThan(0);
    expect(credentialProblems(plain.requests, { forbidden: tokens, configured: { 'x-api-key': [API_KEY] } })).toEqual([]);
  });
});
