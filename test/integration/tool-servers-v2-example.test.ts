/**
 * examples/tool-server/sdk-server.ts (what `npm run example:tool-server` runs: the example tool
 * server on the MCP SDK's v2, stateless), run with node: it passes every check of `mcp check`,
 * our client reaches it at 2025-11-25 (registration's `initialize`) and at 2026-07-28, its
 * `word_count` returns structuredContent matching its outputSchema, and its credential, size
 * limit and paths answer as its comments claim.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, waitForExit } from '../../scripts/lib/processes';
import { runMcpCheck } from '../../src/cli/mcp-check';
import { createMcpClient } from '../../src/tool-servers/client';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SERVER = path.join('examples', 'tool-server', 'sdk-server.ts');
const API_KEY = 'example-key-7c1e5a9b33';

describe('examples/tool-server/sdk-server.ts', () => {
  let child: ChildProcess | undefined;
  let exited: Promise<number | null> = Promise.resolve(null);
  let output = '';
  let url = '';

  beforeAll(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}/mcp`;
    const started = spawn(process.execPath, ['--import', 'tsx', SERVER], {
      cwd: REPO_ROOT,
      env: { ...process.env, PORT: String(port), TOOL_SERVER_API_KEY: API_KEY },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = started;
    started.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    started.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    exited = new Promise((resolve) => started.once('exit', (code) => resolve(code)));
    const deadline = Date.now() + 20_000;
    while (!output.includes('listening on')) {
      if (started.exitCode !== null) throw new Error(`example server exited: ${output}`);
      if (Date.now() > deadline) throw new Error(`example server did not start: ${output}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }, 30_000);

  afterAll(async () => {
    if (child?.pid === undefined || child.exitCode !== null) return;
    child.kill('SIGTERM');
    if (!(await waitForExit(child.pid, 5_000))) child.kill('SIGKILL');
    expect(await exited).toBe(0); // it stops cleanly on SIGTERM
  });

  it('passes every check of mcp check, including the tools/call round trip and wrong key → 401', async () => {
    const lines: string[] = [];
    const result = await runMcpCheck({
      url,
      headers: { 'x-api-key': API_KEY },
      call: { name: 'word_count', arguments: { text: 'one two  three' } },
      log: (line) => lines.push(line),
    });
    for (const check of result.checks) expect(check.ok, `${check.name}: ${check.detail}`).toBe(true);
    expect(result.checks.map((c) => c.name)).toEqual([
      'tools/list',
      'JSON-RPC reply',
      'tool definitions',
      'tools/call word_count',
      'wrong credential',
    ]);
    expect(lines.join('\n')).not.toContain(API_KEY);
  });

  it('our client: 2025-11-25 after initialize; structuredContent with the outputSchema', async () => {
    const client = createMcpClient({ url, auth: { type: 'header', name: 'x-api-key', value: API_KEY }, handshakeFirst: true });
    const tools = await client.listTools();
    expect(client.session()).toEqual({ protocolVersion: '2025-11-25' });
    expect(tools.find((t) => t.name === 'word_count')?.outputSchema).toMatchObject({ properties: { words: { type: 'integer' } } });
    const result = await client.callTool('word_count', { text: 'one two three' });
    expect(result).toMatchObject({ content: [{ type: 'text', text: '3' }], structuredContent: { words: 3 } });
  });

  it('our client at 2026-07-28 (the revision kept from an earlier request): no initialize, the tool answers', async () => {
    const client = createMcpClient({
      url,
      auth: { type: 'header', name: 'x-api-key', value: API_KEY },
      session: { protocolVersion: '2026-07-28' },
    });
    const result = await client.callTool('echo', { text: 'new era' });
    expect(result.content).toEqual([{ type: 'text', text: 'new era' }]);
    expect(result).toMatchObject({ resultType: 'complete' });
  });

  it('401 without or with a wrong key, 404 elsewhere, 413 for a large body', async () => {
    const post = (headers: Record<string, string>, body = '{"jsonrpc":"2.0","method":"tools/list","params":{},"id":1}', to = url) =>
      fetch(to, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body,
      });
    expect((await post({})).status).toBe(401);
    expect((await post({ 'x-api-key': `${API_KEY}x` })).status).toBe(401);
    expect((await post({ 'x-api-key': API_KEY }, undefined, url.replace(/\/mcp$/, '/other'))).status).toBe(404);
    expect((await post({ 'x-api-key': API_KEY }, 'x'.repeat(70 * 1024))).status).toBe(413);
  });
});
