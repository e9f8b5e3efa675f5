/**
 * `runMcpCheck` (src/cli/mcp-check.ts) against real tool servers on loopback: the good ones pass
 * every check (including "a wrong credential gets 401" when a credential is given), and every
 * misbehaving one fails with its defect named. Header values never appear in the output.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { runMcpCheck, type McpCheckArgs, type McpCheckResult } from '../../src/cli/mcp-check';
import { cliEnv, runCli as runCliAs } from '../support/cli';
import { startBadServer, startPlainServer, startSdkServer, type BadServerKind, type TestServer } from '../support/mcp-servers';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const API_KEY = 'plain-api-key-7c0d2e91ab';
const BEARER = 'sdk-bearer-token-5e4f3a21';
const SECRETS = [API_KEY, BEARER];
/** Every line any check printed; none may carry a credential. */
const ALL_OUTPUT: string[] = [];

const servers: TestServer[] = [];
async function track<T extends TestServer>(server: Promise<T>): Promise<T> {
  const started = await server;
  servers.push(started);
  return started;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(() => {
  expect(ALL_OUTPUT.length).toBeGreaterThan(20);
  for (const line of ALL_OUTPUT) for (const secret of SECRETS) expect(line).not.toContain(secret);
});

async function check(args: Omit<McpCheckArgs, 'log'>): Promise<McpCheckResult & { output: string }> {
  const lines: string[] = [];
  const result = await runMcpCheck({ ...args, log: (line) => lines.push(line) });
  ALL_OUTPUT.push(...lines, ...result.checks.map((c) => c.detail));
  return { ...result, output: lines.join('\n') };
}

function named(result: McpCheckResult, name: string) {
  const found = result.checks.find((c) => c.name === name);
  if (!found) throw new Error(`no check named ${name}: ${JSON.stringify(result.checks)}`);
  return found;
}

function expectAllPass(result: McpCheckResult & { output: string }, names: string[]): void {
  expect(
    result.checks.map((c) => c.name),
    result.output,
  ).toEqual(names);
  for (const c of result.checks) expect(c.ok, `${c.name}: ${c.detail}\n${result.output}`).toBe(true);
  expect(result.ok).toBe(true);
  expect(result.output).toMatch(/PASS: all \d+ checks passed/);
}

describe('good servers pass', () => {
  it('plain JSON-RPC server with x-api-key: every check, including wrong credential → 401', async () => {
    const server = await track(startPlainServer({ apiKey: API_KEY }));
    const result = await check({
      url: server.url,
      headers: { 'x-api-key': API_KEY },
      call: { name: 'add', arguments: { a: 2, b: 3 } },
    });
    expectAllPass(result, ['tools/list', 'JSON-RPC reply', 'tool definitions', 'tools/call add', 'wrong credential']);
    // The plain server pages one tool at a time: nextCursor was followed.
    expect(named(result, 'tools/list').detail).toMatch(/^2 tools on 2 pages/);
    expect(named(result, 'tools/call add').detail).toContain('"5"');
    expect(named(result, 'wrong credential').detail).toContain('401');
    // The wrong credential was really sent: some request carried another x-api-key.
    const keys = server.requests.map((r) => r.headers['x-api-key']);
    expect(keys.filter((k) => k === API_KEY).length).toBeGreaterThan(0);
    expect(keys.filter((k) => typeof k === 'string' && k !== API_KEY).length).toBeGreaterThan(0);
    expect(result.output).toContain('header x-api-key (value hidden)');
    expect(result.output).toContain('plain http://');
  });

  it('MCP SDK stateful server with Authorization: Bearer', async () => {
    const server = await track(startSdkServer({ stateful: true, bearer: BEARER }));
    const result = await check({
      url: server.url,
      headers: { Authorization: `Bearer ${BEARER}` },
      call: { name: 'echo', arguments: { text: 'hello' } },
    });
    expectAllPass(result, ['tools/list', 'JSON-RPC reply', 'tool definitions', 'tools/call echo', 'wrong credential']);
    expect(named(result, 'tools/list').detail).toContain('initialize handshake');
    expect(named(result, 'tools/call echo').detail).toContain('"hello"');
    // The wrong credential kept the Bearer scheme with another token.
    const auths = server.requests.map((r) => r.headers.authorization);
    expect(auths.some((a) => typeof a === 'string' && a.startsWith('Bearer ') && a !== `Bearer ${BEARER}`)).toBe(true);
    expect(result.output).toContain('Authorization: Bearer (value hidden)');
  });

  it('MCP SDK stateless server without a credential (no wrong-credential check)', async () => {
    const server = await track(startSdkServer({ stateful: false }));
    const result = await check({ url: server.url, headers: {} });
    expectAllPass(result, ['tools/list', 'JSON-RPC reply', 'tool definitions']);
    expect(named(result, 'JSON-RPC reply').detail).toContain('text/event-stream');
  });
});

describe('bad servers fail, naming the defect', () => {
  const cases: { kind: BadServerKind; check: string; detail: RegExp; timeoutMs?: number }[] = [
    { kind: 'invalid_schema', check: 'tool definitions', detail: /tool "broken": inputSchema is not valid JSON Schema/ },
    { kind: 'wrong_id', check: 'JSON-RPC reply', detail: /^wrong JSON-RPC id/ },
    { kind: 'html', check: 'JSON-RPC reply', detail: /^HTML instead of JSON-RPC$/ },
    { kind: 'redirect', check: 'JSON-RPC reply', detail: /^redirects \(302\) — not followed/ },
    { kind: 'slow', check: 'JSON-RPC reply', detail: /^no answer within 1000 ms$/, timeoutMs: 1000 },
    { kind: 'huge', check: 'JSON-RPC reply', detail: /^reply larger than 1 MiB$/ },
    { kind: 'huge_sse', check: 'JSON-RPC reply', detail: /^reply larger than 1 MiB$/ },
    { kind: 'status_401', check: 'tools/list', detail: /^401 with the given credential/ },
    { kind: 'status_424', check: 'tools/list', detail: /^424: the server cannot reach its backend$/ },
    { kind: 'status_500', check: 'tools/list', detail: /^500: server error$/ },
  ];

  it.each(cases)('$kind → $check: $detail', async ({ kind, check: checkName, detail, timeoutMs }) => {
    const server = await track(startBadServer(kind));
    const result = await check({ url: server.url, headers: {}, ...(timeoutMs ? { timeoutMs } : {}) });
    expect(result.ok, result.output).toBe(false);
    const failing = named(result, checkName);
    expect(failing.ok, result.output).toBe(false);
    expect(failing.detail).toMatch(detail);
    expect(result.output).toContain(`FAIL  ${checkName}`);
    expect(result.output).toMatch(/FAIL: \d+ of \d+ checks failed/);
    if (kind === 'redirect') expect(server.target?.requests).toEqual([]);
  });
});

describe('other failures', () => {
  it('a server that ignores the credential fails "wrong credential"', async () => {
    const server = await track(startSdkServer({ stateful: false }));
    const result = await check({ url: server.url, headers: { 'x-api-key': API_KEY } });
    expect(result.ok).toBe(false);
    expect(named(result, 'tools/list').ok).toBe(true);
    const wrong = named(result, 'wrong credential');
    expect(wrong.ok).toBe(false);
    expect(wrong.detail).toMatch(/^accepts a wrong credential/);
  });

  it('the right server with a wrong key fails tools/list with 401, and skips the rest', async () => {
    const server = await track(startPlainServer({ apiKey: API_KEY }));
    const result = await check({
      url: server.url,
      headers: { 'x-api-key': 'not-the-key-123' },
      call: { name: 'echo', arguments: { text: 'x' } },
    });
    expect(result.checks.map((c) => c.name)).toEqual(['tools/list']);
    expect(named(result, 'tools/list').detail).toMatch(/^401 with the given credential/);
    expect(result.output).toContain('not checked after that failure: JSON-RPC reply, tool definitions, tools/call, wrong credential');
    expect(result.output).not.toContain('not-the-key-123');
  });

  it('tools/call: an unknown tool and arguments that miss the schema fail before calling', async () => {
    const server = await track(startPlainServer({ apiKey: API_KEY }));
    const unknown = await check({ url: server.url, headers: { 'x-api-key': API_KEY }, call: { name: 'nope', arguments: {} } });
    expect(named(unknown, 'tools/call nope')).toMatchObject({
      ok: false,
      detail: expect.stringContaining('tools/list has no tool "nope"'),
    });
    const bad = await check({ url: server.url, headers: { 'x-api-key': API_KEY }, call: { name: 'add', arguments: { a: 'one' } } });
    expect(named(bad, 'tools/call add')).toMatchObject({
      ok: false,
      detail: expect.stringContaining("do not match the tool's input schema"),
    });
    expect(server.requests.some((r) => (r.body as { method?: string })?.method === 'tools/call')).toBe(false);
  });

  it('names every defective tool (invalid schema, duplicate name) and accepts one without a description, as the gateway does', async () => {
    const tools = [
      { name: 'quiet', inputSchema: { type: 'object' } },
      { name: 'typo', description: 'Bad schema', inputSchema: { type: 'object', properties: { n: { type: 'integr' } } } },
      { name: 'scalar', description: 'Not an object schema', inputSchema: { type: 'string' } },
      { name: 'typo', description: 'Twice', inputSchema: { type: 'object' } },
    ];
    const server = createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      req.on('end', () => {
        const { id } = JSON.parse(raw) as { id: number };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id, result: { tools } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const result = await check({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, headers: {} });
      expect(named(result, 'tools/list').ok).toBe(true);
      const defs = named(result, 'tool definitions');
      expect(defs.ok).toBe(false);
      expect(defs.detail).not.toContain('quiet'); // description is optional in MCP and at registration
      expect(defs.detail).toContain('tool "typo": inputSchema is not valid JSON Schema');
      expect(defs.detail).toContain('tool "scalar": inputSchema must describe an object');
      expect(defs.detail).toContain('tool "typo": listed twice');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('more than one credential header is an argument error', async () => {
    const result = await check({ url: 'http://127.0.0.1:9/mcp', headers: { 'x-api-key': API_KEY, authorization: `Bearer ${BEARER}` } });
    expect(result.ok).toBe(false);
    expect(named(result, 'arguments').detail).toMatch(/one credential header is supported, got 2/);
  });

  it('nothing listening: tools/list fails as unreachable', async () => {
    const server = await startPlainServer({ apiKey: API_KEY });
    await server.close();
    const result = await check({ url: server.url, headers: {} });
    expect(named(result, 'tools/list')).toMatchObject({ ok: false, detail: expect.stringMatching(/^unreachable/) });
  });

  it('the URL query is never printed', async () => {
    const server = await track(startSdkServer({ stateful: false }));
    const result = await check({ url: `${server.url}?token=${BEARER}`, headers: {} });
    expect(result.output).not.toContain('token=');
    expect(result.output).toContain('/mcp?…');
  });
});

const CLI_READY = existsSync(path.join(REPO_ROOT, 'src/cli/main.ts')) && existsSync(path.join(REPO_ROOT, 'bin/agent-gateway.mjs'));

function runCli(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, 'bin/agent-gateway.mjs'), ...args], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 25_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('CLI: agent-gateway mcp check', () => {
  it.skipIf(!CLI_READY)('exits 0 for a good server and 1 for a bad one, never printing the key', async () => {
    const good = await track(startPlainServer({ apiKey: API_KEY }));
    const ok = await runCli(['mcp', 'check', good.url, '--header', `x-api-key:${API_KEY}`]);
    expect(ok.code, ok.output).toBe(0);
    expect(ok.output).toContain('PASS');
    expect(ok.output).not.toContain(API_KEY);
    const bad = await track(startBadServer('html'));
    const failed = await runCli(['mcp', 'check', bad.url, '--header', `x-api-key:${API_KEY}`]);
    expect(failed.code, failed.output).toBe(1);
    expect(failed.output).toContain('HTML instead of JSON-RPC');
    expect(failed.output).not.toContain(API_KEY);
  });
});

describe('CLI: mcp check takes credential headers off the command line', () => {
  it.skipIf(!CLI_READY)('--header-env NAME=VAR sends the value of VAR; a wrong one fails; neither is printed', async () => {
    const server = await track(startPlainServer({ apiKey: API_KEY }));
    const ok = await runCliAs(
      ['mcp', 'check', server.url, '--header-env', 'x-api-key=MCP_TEST_KEY'],
      cliEnv({ MCP_TEST_KEY: API_KEY }),
      25_000,
    );
    expect(ok.code, ok.output).toBe(0);
    expect(ok.output).toContain('header x-api-key (value hidden)');
    expect(ok.output).not.toContain(API_KEY);
    expect(server.requests.some((r) => r.headers['x-api-key'] === API_KEY)).toBe(true);

    const wrong = await runCliAs(
      ['mcp', 'check', server.url, '--header-env', 'x-api-key=MCP_TEST_KEY'],
      cliEnv({ MCP_TEST_KEY: 'wrong-key-0123456789' }),
      25_000,
    );
    expect(wrong.code, wrong.output).toBe(1);
    expect(wrong.output).not.toContain('wrong-key-0123456789');

    const unset = await runCliAs(['mcp', 'check', server.url, '--header-env', 'x-api-key=MCP_TEST_KEY'], cliEnv({}), 25_000);
    expect(unset.code, unset.output).toBe(2);
    expect(unset.stderr).toContain('MCP_TEST_KEY is not set');
    const malformed = await runCliAs(['mcp', 'check', server.url, '--header-env', 'x-api-key'], cliEnv({}), 25_000);
    expect(malformed.code, malformed.output).toBe(2);
  });

  it.skipIf(!CLI_READY)('--header-stdin NAME reads the value from stdin (Bearer tokens too), never printing it', async () => {
    const server = await track(startSdkServer({ stateful: false, bearer: BEARER }));
    const ok = await runCliAs(['mcp', 'check', server.url, '--header-stdin', 'Authorization'], cliEnv({}), 25_000, {
      input: `Bearer ${BEARER}\n`,
    });
    expect(ok.code, ok.output).toBe(0);
    expect(ok.output).not.toContain(BEARER);
    expect(server.requests.some((r) => r.headers.authorization === `Bearer ${BEARER}`)).toBe(true);

    const empty = await runCliAs(['mcp', 'check', server.url, '--header-stdin', 'Authorization'], cliEnv({}), 25_000, { input: '' });
    expect(empty.code, empty.output).toBe(2);
    expect(empty.stderr).toContain('stdin is empty');
  });
});
