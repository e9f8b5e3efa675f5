/**
 * `agent-gateway tools add --oauth` and `tools authorize` against a testnet worker that reaches an
 * OAuth-protected loopback tool server (test/support/oauth-tool-server.ts, its authorization
 * server approving at once) under an https name: the CLI prints the authorize URL and waits while
 * the test plays the browser (the server's redirect, then the gateway's callback); the wait ends
 * ready (tools count), or runs out with what to do next, or stops on Ctrl-C; tools list shows the
 * status; a call that needs authorizing again says how. No token or secret is ever printed.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freshAgent, type TestAgent } from '../support/agent';
import { cliEnv, runCli, spawnCli, tempDir, type CliResult, type RunningCli } from '../support/cli';
import { deployment } from '../support/http';
import { startPlainServer, type TestServer } from '../support/mcp-servers';
import { approve, callback } from '../support/oauth-flow';
import { startOAuthToolServer, type OAuthToolServer } from '../support/oauth-tool-server';
import { closePg } from '../support/pg';
import { toolServerUrl, workerWithToolServers } from '../support/tool-routing';

const stack = inject('stack');
const testnet = deployment('testnet');
const CLIENT_SECRET = `client-secret-${crypto.randomUUID()}`;
const TIMEOUT = 120_000;

let worker: Awaited<ReturnType<typeof workerWithToolServers>>;
let oauth: OAuthToolServer;
let short: OAuthToolServer;
let plain: TestServer;
let home: { dir: string; remove: () => Promise<void> };

beforeAll(async () => {
  oauth = await startOAuthToolServer('oauthcli');
  short = await startOAuthToolServer('oauthshort', { accessTtl: 1, refuseRefresh: true });
  plain = await startPlainServer({ apiKey: 'unused-key-1234' });
  worker = await workerWithToolServers(stack, {
    oauthcli: `http://127.0.0.1:${oauth.port}`,
    oauthshort: `http://127.0.0.1:${short.port}`,
    plain: plain.url,
  });
  home = await tempDir();
});

afterAll(async () => {
  await worker?.dispose();
  await oauth?.close();
  await short?.close();
  await plain?.close();
  await home?.remove();
  await closePg();
});

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
    CLIENT_SECRET,
  });
  return { agent, env };
}

/** Waits until the running CLI printed a line matching `pattern` (on either stream); returns the match. */
async function printed(cli: RunningCli, pattern: RegExp, ms = 30_000): Promise<RegExpMatchArray> {
  const until = Date.now() + ms;
  for (;;) {
    const match = `${cli.stdout()}\n${cli.stderr()}`.match(pattern);
    if (match) return match;
    if (Date.now() > until) throw new Error(`not printed: ${pattern}\n${cli.stdout()}\n--- stderr ---\n${cli.stderr()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** What the browser does with an authorize URL: the server approves, the gateway's callback says ready. */
async function playBrowser(server: OAuthToolServer, authorizeUrl: string): Promise<void> {
  const page = await callback(await approve(server, authorizeUrl));
  expect(page.status, page.html).toBe(200);
}

function expectNoSecret(result: CliResult | string, agent: TestAgent, server: OAuthToolServer = oauth): void {
  const text = typeof result === 'string' ? result : result.output;
  expect(text).not.toContain(agent.token);
  expect(text).not.toContain(CLIENT_SECRET);
  for (const token of server.tokens.keys()) expect(text).not.toContain(token);
}

const AUTHORIZE_URL = (server: OAuthToolServer) => new RegExp(`^${server.base.replace(/\./g, '\\.')}/authorize\\?\\S+$`, 'm');

describe('tools add --oauth', () => {
  it(
    'prints the id and the authorize URL, waits (a wait line on stderr) until the browser came back: ready, 2 tools; tools list says so',
    async () => {
      const { agent, env } = await agentEnv();
      const url = `${oauth.base}/mcp`;
      const cli = spawnCli(['tools', 'add', '--url', url, '--name', 'tracker', '--oauth', '--scope', 'read', '--wait-seconds', '60'], env);
      const [authorizeUrl] = await printed(cli, AUTHORIZE_URL(oauth));
      await printed(cli, /waiting for the authorization in the browser/);
      expect(new URL(authorizeUrl).searchParams.get('scope')).toBe('read');
      const pendingList = await runCli(['tools', 'list'], env);
      expect(pendingList.code, pendingList.output).toBe(0);
      expect(pendingList.stdout).toContain(`"tracker" ${url}: 0 tools, OAuth (scopes read), authorization_required`);

      await playBrowser(oauth, authorizeUrl);
      const done = await cli.exited;
      expect(done.code, done.output).toBe(0);
      const id = done.stdout.trim();
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(done.stderr).toContain(`tools add: registered "tracker" ${url}: 0 tools, OAuth (scopes read), authorization_required`);
      expect(done.stderr).toContain('tools add: authorize the gateway at oauthcli.tools.example (open in a browser');
      expect(done.stderr).toContain(`tools add: authorized: connection ${id} is ready, 2 tools`);

      const list = await runCli(['tools', 'list'], env);
      expect(list.stdout.trim()).toBe(`${id}  "tracker" ${url}: 2 tools (echo, admin_op), OAuth (scopes read), ready`);
      const json = JSON.parse((await runCli(['tools', 'list', '--json'], env)).stdout);
      expect(json[0]).toMatchObject({ id, status: 'ready', auth: { type: 'oauth', valueSet: true }, authorization: { scopes: ['read'] } });
      const called = await runCli(['tools', 'call', id, 'echo', '--args', '{"text":"via oauth"}'], env);
      expect(called.code, called.output).toBe(0);
      expect(called.stdout.trim()).toBe('via oauth');

      // Adding the same URL again with --oauth: the connection is reused, already authorized.
      const again = await runCli(['tools', 'add', '--url', url, '--oauth'], env);
      expect(again.code, again.output).toBe(0);
      expect(again.stdout.trim()).toBe(id);
      for (const r of [done, list, called, again]) expectNoSecret(r, agent);
    },
    TIMEOUT,
  );

  it(
    'a wait that runs out exits 1 and says to run tools authorize; tools authorize prints a fresh URL on stdout and waits until ready',
    async () => {
      const { agent, env } = await agentEnv();
      const url = `${oauth.base}/mcp`;
      const timedOut = await runCli(['tools', 'add', '--url', url, '--oauth', '--wait-seconds', '1'], env);
      expect(timedOut.code, timedOut.output).toBe(1);
      const id = timedOut.stdout.trim();
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(timedOut.stderr).toMatch(AUTHORIZE_URL(oauth));
      expect(timedOut.stderr).toContain(`not authorized within 1 s: the connection ${id} is registered but still needs its authorization`);
      expect(timedOut.stderr).toContain(`Run agent-gateway tools authorize ${id} for a fresh URL`);

      const cli = spawnCli(['tools', 'authorize', id, '--wait-seconds', '60'], env);
      const [fresh] = await printed(cli, AUTHORIZE_URL(oauth));
      await printed(cli, /waiting for the authorization/);
      await playBrowser(oauth, fresh);
      const done = await cli.exited;
      expect(done.code, done.output).toBe(0);
      expect(done.stdout.trim()).toBe(fresh);
      expect(done.stderr).toContain(`tools authorize: authorized: connection ${id} is ready, 2 tools`);

      const noWait = await runCli(['tools', 'authorize', id, '--wait-seconds', '0'], env);
      expect(noWait.code, noWait.output).toBe(0);
      expect(noWait.stdout.trim()).toMatch(AUTHORIZE_URL(oauth));
      expect(noWait.stderr).toContain('not waiting (--wait-seconds 0)');
      for (const r of [timedOut, done, noWait]) expectNoSecret(r, agent);
    },
    TIMEOUT,
  );

  it(
    'Ctrl-C while waiting exits 130 with what to do next; the connection stays registered, authorization_required',
    async () => {
      const { agent, env } = await agentEnv();
      const cli = spawnCli(['tools', 'add', '--url', `${oauth.base}/mcp`, '--oauth', '--wait-seconds', '60'], env);
      await printed(cli, /waiting for the authorization/);
      cli.child.kill('SIGINT');
      const done = await cli.exited;
      expect(done.code, done.output).toBe(130);
      const id = done.stdout.trim();
      expect(done.stderr).toContain(
        `stopped waiting (Ctrl-C). The connection ${id} is registered and waits for its authorization: run agent-gateway tools authorize ${id}`,
      );
      const listed = await agent.call('/mcp/connections');
      expect(listed.body.connections).toMatchObject([{ id, status: 'authorization_required' }]);
    },
    TIMEOUT,
  );

  it(
    'a pre-registered client: its secret from --client-secret-env, never printed',
    async () => {
      const { agent, env } = await agentEnv();
      oauth.config.authMethods = ['client_secret_basic'];
      oauth.clients.set('cli-client', {
        method: 'client_secret_basic',
        secret: CLIENT_SECRET,
        redirectUris: [`${worker.url}/oauth/callback`],
      });
      const args = [
        'tools',
        'add',
        '--url',
        `${oauth.base}/mcp`,
        '--oauth',
        '--client-id',
        'cli-client',
        '--client-secret-env',
        'CLIENT_SECRET',
      ];
      const cli = spawnCli([...args, '--wait-seconds', '60', '--json'], env);
      const [authorizeUrl] = await printed(cli, AUTHORIZE_URL(oauth));
      expect(new URL(authorizeUrl).searchParams.get('client_id')).toBe('cli-client');
      await playBrowser(oauth, authorizeUrl);
      const done = await cli.exited;
      expect(done.code, done.output).toBe(0);
      expect(JSON.parse(done.stdout)).toMatchObject({ status: 'authorization_required', auth: { type: 'oauth' } });
      expect(done.stderr).toContain('is ready, 2 tools');
      expectNoSecret(done, agent);
      oauth.config.authMethods = ['none', 'client_secret_basic', 'client_secret_post'];
    },
    TIMEOUT,
  );
});

describe('tools authorize, list and call: refusals', () => {
  it('usage errors exit 2 before anything is sent', async () => {
    const { env } = await agentEnv();
    const url = `${oauth.base}/mcp`;
    const cases: [string[], string][] = [
      [['tools', 'add', '--url', url, '--scope', 'read'], '--scope needs --oauth'],
      [['tools', 'add', '--url', url, '--oauth', '--auth-env', 'X'], '--oauth and --auth-env do not go together'],
      [['tools', 'add', '--url', url, '--oauth', '--client-secret-env', 'CLIENT_SECRET'], '--client-secret-env needs --client-id'],
      [
        ['tools', 'add', '--url', url, '--oauth', '--client-id', 'c', '--client-secret-env', 'UNSET'],
        'the environment variable UNSET is not set or empty',
      ],
      [['tools', 'add', '--url', url, '--oauth', '--scope', 'a"b'], 'a scope is 1..200 printable characters'],
      [['tools', 'add', '--url', url, '--oauth', '--wait-seconds', 'soon'], '--wait-seconds must be a whole number from 0 to 3600'],
      [['tools', 'authorize'], 'missing argument'],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(args, env);
      expect(result.code, `${args.join(' ')}\n${result.output}`).toBe(2);
      expect(result.stderr).toContain(message);
    }
  });

  it('tools authorize of a connection without OAuth: exit 1, 400 tool_server_not_oauth; of an unknown id: 404', async () => {
    const { env } = await agentEnv();
    const added = await runCli(['tools', 'add', '--url', toolServerUrl('plain', plain.url), '--auth-env', 'x-api-key=KEY'], {
      ...env,
      KEY: 'unused-key-1234',
    });
    expect(added.code, added.output).toBe(0);
    const notOAuth = await runCli(['tools', 'authorize', added.stdout.trim()], env);
    expect(notOAuth.code, notOAuth.output).toBe(1);
    expect(notOAuth.stderr).toContain('400 tool_server_not_oauth');
    const unknown = await runCli(['tools', 'authorize', crypto.randomUUID()], env);
    expect(unknown.code, unknown.output).toBe(1);
    expect(unknown.stderr).toContain('404 mcp_connection_not_found');
  });

  it(
    'a call once the authorization ran out (refresh refused): exit 1, 424 tool_authorization_required, and how to authorize again',
    async () => {
      const { agent, env } = await agentEnv();
      const cli = spawnCli(['tools', 'add', '--url', `${short.base}/mcp`, '--oauth', '--wait-seconds', '60'], env);
      await playBrowser(short, (await printed(cli, AUTHORIZE_URL(short)))[0]);
      const done = await cli.exited;
      expect(done.code, done.output).toBe(0);
      const id = done.stdout.trim();
      await new Promise((r) => setTimeout(r, 1_500));
      const called = await runCli(['tools', 'call', id, 'echo', '--args', '{"text":"x"}'], env);
      expect(called.code, called.output).toBe(1);
      expect(called.stderr).toContain('424 tool_authorization_required');
      expect(called.stderr).toContain(`Run agent-gateway tools authorize ${id}, or open this URL in a browser: ${short.base}/authorize?`);
      const list = await runCli(['tools', 'list'], env);
      expect(list.stdout).toMatch(new RegExp(`^${id}  .*: 2 tools \\(echo, admin_op\\), OAuth.*, authorization_required$`, 'm'));
      expectNoSecret(called, agent, short);
    },
    TIMEOUT,
  );
});
