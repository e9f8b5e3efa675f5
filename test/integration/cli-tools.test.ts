/**
 * `agent-gateway tools add|list|remove|check|call` against a testnet worker that reaches the
 * spec's plain tool server (x-api-key) under an https name (test/support/tool-routing.ts): add
 * prints the id, a second add of the same URL reuses the connection the gateway's 400 names,
 * list/call/remove go through the gateway, check talks to the server directly; the credential is
 * never printed.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freshAgent, type TestAgent } from '../support/agent';
import { cliEnv, runCli, tempDir, type CliResult } from '../support/cli';
import { deployment } from '../support/http';
import { startPlainServer, type TestServer } from '../support/mcp-servers';
import { closePg } from '../support/pg';
import { toolServerUrl, workerWithToolServers } from '../support/tool-routing';

const stack = inject('stack');
const testnet = deployment('testnet');
const API_KEY = `plain-key-${crypto.randomUUID()}`;
const TIMEOUT = 120_000;

let worker: Awaited<ReturnType<typeof workerWithToolServers>>;
let plain: TestServer;
let home: { dir: string; remove: () => Promise<void> };

beforeAll(async () => {
  plain = await startPlainServer({ apiKey: API_KEY });
  worker = await workerWithToolServers(stack, { plain: plain.url });
  home = await tempDir();
});

afterAll(async () => {
  await worker?.dispose();
  await plain?.close();
  await home?.remove();
  await closePg();
});

/** A fresh agent and the CLI environment for it: its owner's token saved for the worker's URL. */
async function agentEnv(): Promise<{ agent: TestAgent; env: NodeJS.ProcessEnv }> {
  const agent = await freshAgent(testnet);
  const file = path.join(home.dir, `token-${agent.tokenId}.json`);
  await mkdir(path.dirname(file), { recursive: true });
  const login = { token: agent.token, chainId: 80002, wallet: agent.owner.address, baseUrl: worker.url, expiresAt: null };
  await writeFile(file, JSON.stringify({ logins: { [worker.url]: login } }), { mode: 0o600 });
  const env = cliEnv({
    HOME: home.dir,
    AGENT_GATEWAY_URL: worker.url,
    AGENT_GATEWAY_TOKEN_FILE: file,
    AGENT_COLLECTION: agent.collection,
    AGENT_TOKEN_ID: agent.tokenId.toString(),
    TOOL_KEY: API_KEY,
  });
  return { agent, env };
}

function expectNoSecret(result: CliResult, agent: TestAgent): void {
  expect(result.output).not.toContain(API_KEY);
  expect(result.output).not.toContain(agent.token);
}

describe('tools add', () => {
  it(
    'prints the id; adding the same URL again (another spelling) reuses that connection; --json shows it',
    async () => {
      const { agent, env } = await agentEnv();
      const url = toolServerUrl('plain', plain.url);
      const added = await runCli(['tools', 'add', '--url', url, '--name', 'plain', '--auth-env', 'x-api-key=TOOL_KEY'], env);
      expect(added.code, added.output).toBe(0);
      const id = added.stdout.trim();
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(added.stderr).toContain(`registered "plain" ${url}: 2 tools (echo, add), credential set`);
      expectNoSecret(added, agent);

      const again = await runCli(
        ['tools', 'add', '--url', url.replace('plain.tools', 'PLAIN.tools'), '--auth-env', 'x-api-key=TOOL_KEY'],
        env,
      );
      expect(again.code, again.output).toBe(0);
      expect(again.stdout.trim()).toBe(id);
      expect(again.stderr).toContain(`already has a connection for ${url.replace('plain.tools', 'PLAIN.tools')}: reusing ${id}`);

      const json = await runCli(['tools', 'add', '--url', url, '--auth-env', 'x-api-key=TOOL_KEY', '--json'], env);
      expect(json.code, json.output).toBe(0);
      expect(JSON.parse(json.stdout)).toMatchObject({
        id,
        url,
        name: 'plain',
        auth: { type: 'header', headerName: 'x-api-key', valueSet: true },
      });
      expectNoSecret(json, agent);

      const listed = await agent.call('/mcp/connections');
      expect(listed.body.connections).toHaveLength(1);
    },
    TIMEOUT,
  );

  it('refuses a missing --url or an unset --auth-env variable (exit 2), and a wrong credential with the gateway code (exit 1)', async () => {
    const { env } = await agentEnv();
    const url = toolServerUrl('plain', plain.url);
    const noUrl = await runCli(['tools', 'add'], env);
    expect(noUrl.code, noUrl.output).toBe(2);
    expect(noUrl.stderr).toContain('--url is required');
    const unset = await runCli(['tools', 'add', '--url', url, '--auth-env', 'x-api-key=NOT_SET'], env);
    expect(unset.code, unset.output).toBe(2);
    expect(unset.stderr).toContain('the environment variable NOT_SET is not set or empty');
    const wrong = await runCli(['tools', 'add', '--url', url, '--auth-env', 'x-api-key=WRONG'], { ...env, WRONG: 'not-the-key' });
    expect(wrong.code, wrong.output).toBe(1);
    expect(wrong.stderr).toContain('400 tool_server_credential_rejected');
    expect(wrong.output).not.toContain('not-the-key');
  });
});

describe('tools list, call, remove', () => {
  it(
    'lists the connection and its live tools, calls a tool, removes it (a second remove: exit 1, mcp_connection_not_found)',
    async () => {
      const { agent, env } = await agentEnv();
      const url = toolServerUrl('plain', plain.url);
      const empty = await runCli(['tools', 'list'], env);
      expect(empty.code, empty.output).toBe(0);
      expect(empty.stderr).toContain('the agent has no tool-server connections');
      const id = (await runCli(['tools', 'add', '--url', url, '--auth-env', 'x-api-key=TOOL_KEY'], env)).stdout.trim();

      const list = await runCli(['tools', 'list'], env);
      expect(list.code, list.output).toBe(0);
      expect(list.stdout.trim()).toBe(`${id}  ${url}: 2 tools (echo, add), credential set, ready`);
      const listJson = await runCli(['tools', 'list', '--json'], env);
      expect(JSON.parse(listJson.stdout)).toMatchObject([{ id, url, tools: [{ name: 'echo' }, { name: 'add' }] }]);

      const live = await runCli(['tools', 'list', id], env);
      expect(live.code, live.output).toBe(0);
      expect(live.stdout.split('\n').filter(Boolean)).toEqual(['echo  Echoes the text back', 'add  Adds two numbers']);
      expect(live.stderr).toMatch(/2 tools, tools\/list took \d+ ms/);

      const called = await runCli(['tools', 'call', id, 'add', '--args', '{"a":2,"b":3}'], env);
      expect(called.code, called.output).toBe(0);
      expect(called.stdout.trim()).toBe('5');
      const calledJson = await runCli(['tools', 'call', id, 'echo', '--args', '{"text":"hello"}', '--json'], env);
      expect(JSON.parse(calledJson.stdout)).toMatchObject({ content: [{ type: 'text', text: 'hello' }] });

      const badArgs = await runCli(['tools', 'call', id, 'add', '--args', '[1]'], env);
      expect(badArgs.code).toBe(2);
      expect(badArgs.stderr).toContain('--args must be a JSON object');
      const unknown = await runCli(['tools', 'call', id, 'nope'], env);
      expect(unknown.code, unknown.output).toBe(1);
      expect(unknown.stderr).toContain('404 tool_not_found');
      const invalid = await runCli(['tools', 'call', id, 'add', '--args', '{"a":"two"}'], env);
      expect(invalid.code, invalid.output).toBe(1);
      expect(invalid.stderr).toContain('400 ');

      const removed = await runCli(['tools', 'remove', id], env);
      expect(removed.code, removed.output).toBe(0);
      expect(removed.stdout.trim()).toBe(`removed ${id}`);
      const twice = await runCli(['tools', 'remove', id], env);
      expect(twice.code, twice.output).toBe(1);
      expect(twice.stderr).toContain('404 mcp_connection_not_found');
      expect((await agent.call('/mcp/connections')).body.connections).toEqual([]);
      for (const r of [list, live, called, removed]) expectNoSecret(r, agent);
    },
    TIMEOUT,
  );
});

describe('tools check', () => {
  it('checks the server directly, as mcp check does (header from the environment, never printed)', async () => {
    const env = cliEnv({ HOME: home.dir, TOOL_KEY: API_KEY });
    const url = plain.url;
    const [tools, mcp] = await Promise.all([
      runCli(['tools', 'check', url, '--header-env', 'x-api-key=TOOL_KEY', '--call', 'add', '--args', '{"a":1,"b":1}'], env),
      runCli(['mcp', 'check', url, '--header-env', 'x-api-key=TOOL_KEY', '--call', 'add', '--args', '{"a":1,"b":1}'], env),
    ]);
    expect(tools.code, tools.output).toBe(0);
    expect(tools.stdout.replace(/\d+ ms/g, 'N ms')).toBe(mcp.stdout.replace(/\d+ ms/g, 'N ms'));
    expect(tools.output).not.toContain(API_KEY);
    const help = await runCli(['tools', 'check', '--help'], env);
    expect(help.stdout).toContain('Usage: agent-gateway tools check URL');
  });
});
