/**
 * The local stack's DEV_LOOPBACK_TARGETS switch, as `npm run dev` sets it: the example
 * tool server (examples/tool-server, run as its README says) registers at
 * `http://127.0.0.1:PORT/mcp` and its tools are called through the gateway; everything that is not
 * loopback keeps production's policy. The switch cannot be set on a deployment: with a database
 * that is not the local stack's, the worker answers 500 misconfigured.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort, waitForExit } from '../../scripts/lib/processes';
import { startMiniflare } from '../../scripts/lib/worker-bundle';
import { freshAgent, type TestAgent } from '../support/agent';
import { call, errorCode, expectError } from '../support/http';
import { loopbackWorker } from '../support/loopback-worker';
import { workerBindingsFor } from '../support/worker';

const stack = inject('stack');
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const API_KEY = `example-key-${crypto.randomUUID()}`;

let example: ChildProcess | undefined;
let exampleUrl = '';
let worker: Awaited<ReturnType<typeof loopbackWorker>>;
let who: TestAgent;

beforeAll(async () => {
  const port = await freePort();
  exampleUrl = `http://127.0.0.1:${port}/mcp`;
  const child = spawn(process.execPath, ['--import', 'tsx', path.join('examples', 'tool-server', 'server.ts')], {
    cwd: REPO_ROOT,
    env: { ...process.env, PORT: String(port), TOOL_SERVER_API_KEY: API_KEY },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  example = child;
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  worker = await loopbackWorker(stack);
  const deadline = Date.now() + 20_000;
  while (!output.includes('listening on')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`example server did not start: ${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  who = await freshAgent(worker.deployment);
});

afterAll(async () => {
  await worker?.dispose();
  if (example?.pid !== undefined && example.exitCode === null) {
    example.kill('SIGTERM');
    if (!(await waitForExit(example.pid, 5_000))) example.kill('SIGKILL');
  }
});

const register = (url: string, value = API_KEY) =>
  who.call('/mcp/connection', { method: 'POST', json: { url, auth: { type: 'header', headerName: 'x-api-key', value } } });

describe('DEV_LOOPBACK_TARGETS=1: the example tool server through the gateway', () => {
  it('registers http://127.0.0.1:PORT/mcp, lists its tools live and calls them', async () => {
    const reg = await register(exampleUrl);
    expect(reg.status, reg.text).toBe(200);
    expect(reg.body.url).toBe(exampleUrl);
    expect(reg.body.tools.map((t: { name: string }) => t.name).sort()).toEqual(['echo', 'word_count']);
    const id = reg.body.id as string;

    const live = await who.call(`/mcp/connection/${id}/tools`);
    expect(live.status, live.text).toBe(200);
    expect(live.body.tools).toHaveLength(2);

    const echo = await who.call(`/mcp/connection/${id}/tools/call`, {
      method: 'POST',
      json: { name: 'echo', arguments: { text: 'hi there' } },
    });
    expect(echo.status, echo.text).toBe(200);
    expect(JSON.stringify(echo.body.content)).toContain('hi there');
    const count = await who.call(`/mcp/connection/${id}/tools/call`, {
      method: 'POST',
      json: { name: 'word_count', arguments: { text: 'one two  three' } },
    });
    expect(count.status, count.text).toBe(200);
    expect(JSON.stringify(count.body.content)).toContain('3');
    expectError(
      await who.call(`/mcp/connection/${id}/tools/call`, { method: 'POST', json: { name: 'echo', arguments: { text: 5 } } }),
      400,
      'invalid_tool_arguments',
    );
  });

  it('localhost works too; a wrong key is still 400 tool_server_credential_rejected', async () => {
    const other = await freshAgent(worker.deployment);
    const url = exampleUrl.replace('127.0.0.1', 'localhost');
    const wrong = await other.call('/mcp/connection', {
      method: 'POST',
      json: { url, auth: { type: 'header', headerName: 'x-api-key', value: 'wrong-key' } },
    });
    expectError(wrong, 400, 'tool_server_credential_rejected');
    const res = await other.call('/mcp/connection', {
      method: 'POST',
      json: { url, auth: { type: 'header', headerName: 'x-api-key', value: API_KEY } },
    });
    expect(res.status, res.text).toBe(200);
  });

  it.each([
    'http://0.0.0.0:8790/mcp',
    'http://10.0.0.1:8790/mcp',
    'http://tools.example.com/mcp',
    'https://127.0.0.1.nip.io/mcp',
    'https://x.internal/mcp',
  ])('still refuses %s with 400 invalid_tool_server_url', async (url) => expectError(await register(url), 400, 'invalid_tool_server_url'));

  it('still refuses non-loopback addresses for the database step', async () => {
    for (const host of ['0.0.0.0', '10.0.0.5', '169.254.169.254', 'kubernetes.default.svc']) {
      const res = await who.call('/database/settings/first-step', {
        method: 'POST',
        json: { host, port: 5432, database: 'x', user: 'x', password: 'x', ssl: 'disable' },
      });
      expectError(res, 400, 'database_target_refused');
    }
  });

  it('a tool server stored on the local stack is refused by a worker with production policy', async () => {
    const mine = await freshAgent(worker.deployment);
    const reg = await mine.call('/mcp/connection', {
      method: 'POST',
      json: { url: exampleUrl, auth: { type: 'header', headerName: 'x-api-key', value: API_KEY } },
    });
    expect(reg.status, reg.text).toBe(200);
    const res = await call(stack.testnet.baseUrl, `/agent/${mine.collection}/${mine.tokenId}/mcp/connection/${reg.body.id}/tools`, {
      token: mine.token,
    });
    expectError(res, 400, 'invalid_tool_server_url');
  });
});

describe('the switch cannot be set on a deployment', () => {
  it("DEV_LOOPBACK_TARGETS with a database that is not the local stack's: 500 misconfigured", async () => {
    const deployed = await startMiniflare({
      scriptPath: stack.scriptPath,
      deployment: 'testnet',
      bindings: {
        ...workerBindingsFor(stack),
        DATABASE_URL: 'postgresql://app:secret@ep-example-123.eu-central-1.aws.neon.tech/gateway',
        DEV_LOOPBACK_TARGETS: '1',
      },
      omit: ['DB_WS_PROXY'],
    });
    try {
      for (const path of ['/health', `/agent/${stack.testnet.collection}/1/mcp/connections`]) {
        const res = await call(deployed.url, path);
        expect(res.status, res.text).toBe(500);
        expect(errorCode(res)).toBe('misconfigured');
        expect(JSON.stringify(res.body)).toContain('DEV_LOOPBACK_TARGETS');
        expect(res.text).not.toContain('secret');
      }
    } finally {
      await deployed.dispose();
    }
  });
});
