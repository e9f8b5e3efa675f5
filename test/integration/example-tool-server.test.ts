/**
 * examples/tool-server/server.ts, run as its README says (`node --import tsx ...`): it passes every
 * check of `runMcpCheck` (the same as `agent-gateway mcp check`), answers JSON-RPC errors and
 * size limits as its comments claim, and refuses to start without TOOL_SERVER_API_KEY.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, waitForExit } from '../../scripts/lib/processes';
import { runMcpCheck } from '../../src/cli/mcp-check';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SERVER = path.join('examples', 'tool-server', 'server.ts');
const API_KEY = 'example-key-4d2b9f0e61';

interface Started {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

function startServer(env: NodeJS.ProcessEnv): Started {
  const child = spawn(process.execPath, ['--import', 'tsx', SERVER], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

function envWithout(...names: string[]): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of names) delete env[name];
  return env;
}

describe('examples/tool-server', () => {
  let server: Started | undefined;
  let url = '';

  beforeAll(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}/mcp`;
    server = startServer({ ...envWithout('TOOL_SERVER_API_KEY'), PORT: String(port), TOOL_SERVER_API_KEY: API_KEY });
    const deadline = Date.now() + 20_000;
    while (!server.output().includes('listening on')) {
      if (server.child.exitCode !== null) throw new Error(`example server exited: ${server.output()}`);
      if (Date.now() > deadline) throw new Error(`example server did not start: ${server.output()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  });

  afterAll(async () => {
    if (server?.child.pid === undefined || server.child.exitCode !== null) return;
    server.child.kill('SIGTERM');
    if (!(await waitForExit(server.child.pid, 5_000))) server.child.kill('SIGKILL');
    // It stops cleanly on SIGTERM.
    expect(await server.exited).toBe(0);
  });

  it('passes every check of mcp check, including the tools/call round trip and wrong key → 401', async () => {
    const lines: string[] = [];
    const result = await runMcpCheck({
      url,
      headers: { 'x-api-key': API_KEY },
      call: { name: 'word_count', arguments: { text: 'one two  three' } },
      log: (line) => lines.push(line),
    });
    const output = lines.join('\n');
    expect(
      result.checks.map((c) => c.name),
      output,
    ).toEqual(['tools/list', 'JSON-RPC reply', 'tool definitions', 'tools/call word_count', 'wrong credential']);
    for (const check of result.checks) expect(check.ok, `${check.name}: ${check.detail}`).toBe(true);
    expect(result.ok).toBe(true);
    expect(result.checks[0]!.detail).toMatch(/^2 tools/);
    expect(result.checks[3]!.detail).toContain('"3"');
    expect(output).not.toContain(API_KEY);
  });

  it('echo works too', async () => {
    const result = await runMcpCheck({
      url,
      headers: { 'x-api-key': API_KEY },
      call: { name: 'echo', arguments: { text: 'hi there' } },
      log: () => {},
    });
    expect(result.ok).toBe(true);
    expect(result.checks.find((c) => c.name === 'tools/call echo')?.detail).toContain('"hi there"');
  });

  async function rpc(body: unknown, headers: Record<string, string> = { 'x-api-key': API_KEY }) {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return {
      status: res.status,
      body: (await res.json()) as { id?: unknown; error?: { code: number; message: string }; result?: unknown },
    };
  }

  it('JSON-RPC errors: -32601 unknown method, -32602 unknown tool and bad arguments, -32700 parse error', async () => {
    const method = await rpc({ jsonrpc: '2.0', method: 'resources/list', params: {}, id: 7 });
    expect(method).toEqual({ status: 200, body: { jsonrpc: '2.0', error: { code: -32601, message: expect.any(String) }, id: 7 } });
    const tool = await rpc({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'nope', arguments: {} }, id: 8 });
    expect(tool.body.error?.code).toBe(-32602);
    expect(tool.body.id).toBe(8);
    const args = await rpc({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'echo', arguments: { text: 5 } }, id: 9 });
    expect(args.body.error?.code).toBe(-32602);
    const parse = await rpc('{not json');
    expect(parse.body.error?.code).toBe(-32700);
  });

  it('401 without or with a wrong key, 404 elsewhere, 413 for a large body', async () => {
    expect((await rpc({ jsonrpc: '2.0', method: 'tools/list', params: {}, id: 1 }, {})).status).toBe(401);
    expect((await rpc({ jsonrpc: '2.0', method: 'tools/list', params: {}, id: 1 }, { 'x-api-key': `${API_KEY}x` })).status).toBe(401);
    expect((await fetch(url.replace(/\/mcp$/, '/other'), { method: 'POST' })).status).toBe(404);
    const big = await rpc({
      jsonrpc: '2.0',
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'x'.repeat(100_000) } },
      id: 2,
    });
    expect(big.status).toBe(413);
  });

  it('refuses to start without TOOL_SERVER_API_KEY', async () => {
    const port = await freePort();
    const started = startServer({ ...envWithout('TOOL_SERVER_API_KEY'), PORT: String(port) });
    const timer = setTimeout(() => started.child.kill('SIGKILL'), 20_000);
    const code = await started.exited;
    clearTimeout(timer);
    expect(code).toBe(1);
    expect(started.output()).toContain('TOOL_SERVER_API_KEY is not set');
    expect(started.output()).not.toContain('listening on');
  });
});
