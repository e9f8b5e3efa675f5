/**
 * The CLI cannot be pointed elsewhere: a `.dev/stack.json` in the current directory is never
 * read; a token saved for one gateway URL is never sent to another (a loopback listener records
 * every request); a sign-in message for another domain, URI, chain, wallet or time is refused
 * (exit 3) and nothing is signed; plain http goes to loopback hosts only; and a 503 from the
 * agent pre-check of `hydrate` is retried, honouring Retry-After.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createSiweMessage } from 'viem/siwe';
import { STATEMENTS } from '../../src/auth/siwe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayClient } from '../../src/client';
import { mintFreshAgent, newWallet } from '../support/chain';
import { cliEnv, REPO_ROOT, runCli, tempDir } from '../support/cli';
import { deployment } from '../support/http';
import { login } from '../support/login';
import { answerForwarded, answerJson as json, forward, listen, type Listener } from '../support/loopback';

const testnet = deployment('testnet');
const TIMEOUT = 120_000;

const HEALTH = { status: 'ok', chainId: 80002, checks: { database: { ok: true }, chain: { ok: true } } };

let home = '';
let removeHome: () => Promise<void> = async () => undefined;
const listeners: Listener[] = [];
beforeAll(async () => {
  ({ dir: home, remove: removeHome } = await tempDir());
});
afterAll(async () => {
  await Promise.all(listeners.map((l) => l.close()));
  await removeHome();
});
async function track(listener: Promise<Listener>): Promise<Listener> {
  const started = await listener;
  listeners.push(started);
  return started;
}

describe('a stack file that points elsewhere', () => {
  it(
    'is not read from the current directory, and a token saved for the gateway never reaches another URL',
    async () => {
      const owner = newWallet();
      const tokenFile = path.join(home, 'stack-elsewhere.json');
      const [tokenId, logged] = await Promise.all([
        mintFreshAgent(testnet, owner.address),
        runCli(
          ['login', '--token-file', tokenFile],
          cliEnv({ HOME: home, AGENT_GATEWAY_URL: testnet.baseUrl, AGENT_GATEWAY_PRIVATE_KEY: owner.privateKey }),
        ),
      ]);
      expect(logged.code, logged.output).toBe(0);
      const token = (JSON.parse(await readFile(tokenFile, 'utf8')) as { logins: Record<string, { token: string }> }).logins[
        testnet.baseUrl
      ]!.token;

      // Whatever arrives here is recorded; it answers like a gateway of the same chain.
      const elsewhere = await track(
        listen((req, res) =>
          req.path === '/health'
            ? json(res, 200, HEALTH)
            : json(res, 200, { contextKeys: [], page: 1, elementsPerPage: 100, totalElements: 0, nextAfter: null }),
        ),
      );
      const repo = path.join(home, 'cloned-repo');
      await mkdir(path.join(repo, '.dev'), { recursive: true });
      await writeFile(
        path.join(repo, '.dev', 'stack.json'),
        JSON.stringify({ testnet: { chainId: 80002, baseUrl: elsewhere.url, collection: testnet.collection } }),
      );
      const args = [
        'contexts',
        'list',
        '--json',
        '--token-file',
        tokenFile,
        '--collection',
        testnet.collection,
        '--token-id',
        tokenId.toString(),
      ];

      // In that directory, without a URL: the stack file there is not used at all. (Were a
      // `npm run dev` running in this checkout, its stack would be used instead: not elsewhere.)
      const inRepo = await runCli(args, cliEnv({ HOME: home }), 60_000, { cwd: repo });
      if (!existsSync(path.join(REPO_ROOT, '.dev', 'stack.json'))) {
        expect(inRepo.code, inRepo.output).toBe(2);
        expect(inRepo.stderr).toContain('no gateway URL');
      }
      expect(elsewhere.requests).toEqual([]);

      // Named explicitly (DEV_DIR): the URL is used, but the token of the real gateway is not.
      const named = await runCli(args, cliEnv({ HOME: home, DEV_DIR: path.join(repo, '.dev') }), 60_000, { cwd: repo });
      expect(named.code, named.output).toBe(1);
      expect(named.stderr).toContain(`not logged in to ${elsewhere.url}`);
      expect(elsewhere.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /health']);

      // The same file with the real gateway still works, so the entry is there and usable.
      const real = await runCli(args, cliEnv({ HOME: home, AGENT_GATEWAY_URL: testnet.baseUrl }), 60_000, { cwd: repo });
      expect(real.code, real.output).toBe(0);
      for (const req of elsewhere.requests) {
        expect(req.authorization).toBeUndefined();
        expect(req.body).not.toContain(token);
        expect(req.path).not.toContain(token);
      }
    },
    TIMEOUT,
  );
});

describe('the sign-in message is read before signing', () => {
  const wallet = newWallet();
  const now = () => new Date();

  /** A gateway stand-in that answers init with `message(url)` and records whether finish came. */
  async function signInServer(message: (url: string) => string): Promise<Listener> {
    let url = '';
    const server = await track(
      listen((req, res) => {
        if (req.path === '/health') return json(res, 200, HEALTH);
        if (req.path === '/auth/jwt/init') return json(res, 200, { nonce: 'abcdef0123456789abcdef01', message: message(url) });
        if (req.path === '/auth/jwt/finish')
          return json(res, 200, { token: 'eyJhbGciOiJIUzI1NiJ9.eyJleHAiOjQxMDI0NDQ4MDB9.ZmFrZS1zaWduYXR1cmUtZm9yLXRlc3Q' });
        return json(res, 404, { error: { code: 'not_found', message: 'Not Found' }, requestId: 'x' });
      }),
    );
    url = server.url;
    return server;
  }

  const base = (url: string) => ({
    domain: new URL(url).host,
    uri: url,
    address: wallet.address,
    chainId: 80002,
    nonce: 'abcdef0123456789abcdef01',
    version: '1' as const,
    issuedAt: now(),
    expirationTime: new Date(Date.now() + 300_000),
    statement: STATEMENTS.login,
  });

  it.each([
    [
      'another domain',
      (url: string) => createSiweMessage({ ...base(url), domain: 'agent-gateway-testnet.example.workers.dev' }),
      'another domain',
    ],
    [
      'another URI',
      (url: string) => createSiweMessage({ ...base(url), uri: 'https://agent-gateway-testnet.example.workers.dev' }),
      'another URI',
    ],
    ['another chain', (url: string) => createSiweMessage({ ...base(url), chainId: 137 }), 'another chain'],
    ['another wallet', (url: string) => createSiweMessage({ ...base(url), address: newWallet().address }), 'another wallet'],
    [
      'an expired message',
      (url: string) =>
        createSiweMessage({ ...base(url), issuedAt: new Date(Date.now() - 3_600_000), expirationTime: new Date(Date.now() - 3_000_000) }),
      'expired',
    ],
    [
      'a message issued long ago',
      (url: string) => createSiweMessage({ ...base(url), issuedAt: new Date(Date.now() - 3_600_000) }),
      'expired',
    ],
    ['a pairing message', (url: string) => createSiweMessage({ ...base(url), statement: STATEMENTS.pairing }), 'not a login message'],
    [
      'a message from the future',
      (url: string) => createSiweMessage({ ...base(url), issuedAt: new Date(Date.now() + 3_600_000) }),
      'not valid yet',
    ],
    ['not a sign-in message', () => 'Transfer all your tokens to 0x0000000000000000000000000000000000000001', 'not an EIP-4361'],
  ])(
    'refuses %s with exit 3 and never calls finish',
    async (_, message, reason) => {
      const server = await signInServer(message);
      const file = path.join(home, `refused-${server.url.split(':').pop()}.json`);
      const result = await runCli(
        ['login', '--token-file', file],
        cliEnv({ HOME: home, AGENT_GATEWAY_URL: server.url, AGENT_GATEWAY_PRIVATE_KEY: wallet.privateKey }),
      );
      expect(result.code, result.output).toBe(3);
      expect(result.stderr).toContain('refusing to sign the sign-in message');
      expect(result.stderr).toContain(reason);
      expect(result.stderr).not.toContain(wallet.privateKey.slice(2));
      expect(server.requests.map((r) => r.path)).toEqual(['/health', '/auth/jwt/init']);
      await expect(stat(file)).rejects.toMatchObject({ code: 'ENOENT' });
    },
    TIMEOUT,
  );

  it(
    'signs a message for the gateway it talks to (so the refusals above are the check, not a blanket no)',
    async () => {
      const server = await signInServer((url) => createSiweMessage(base(url)));
      const file = path.join(home, 'accepted.json');
      const result = await runCli(
        ['login', '--token-file', file],
        cliEnv({ HOME: home, AGENT_GATEWAY_URL: `${server.url}/`, AGENT_GATEWAY_PRIVATE_KEY: wallet.privateKey }),
      );
      expect(result.code, result.output).toBe(0);
      const finish = server.requests.find((r) => r.path === '/auth/jwt/finish');
      expect(JSON.parse(finish!.body)).toMatchObject({
        walletAddress: wallet.address,
        chainId: 80002,
        signature: expect.stringMatching(/^0x[0-9a-f]{130}$/),
      });
      const saved = JSON.parse(await readFile(file, 'utf8')) as { logins: Record<string, unknown> };
      expect(Object.keys(saved.logins)).toEqual([server.url]);
    },
    TIMEOUT,
  );
});

describe('plain http', () => {
  it.each([
    ['login', ['login'], 'AGENT_GATEWAY_URL'],
    ['contexts list', ['contexts', 'list', '--collection', '0x5FbDB2315678afecb367f032d93F642f64180aa3', '--token-id', '1'], '--base-url'],
  ])('to a host that is not loopback is refused before anything is sent (%s)', async (_, args, via) => {
    const target = 'http://198.51.100.7:8788';
    const extra = via === '--base-url' ? ['--base-url', target] : [];
    const vars = via === 'AGENT_GATEWAY_URL' ? { AGENT_GATEWAY_URL: target } : {};
    const result = await runCli(
      [...args, ...extra],
      cliEnv({ HOME: home, AGENT_GATEWAY_PRIVATE_KEY: newWallet().privateKey, ...vars }),
      20_000,
    );
    expect(result.code, result.output).toBe(2);
    expect(result.stderr).toContain('refusing plain http to 198.51.100.7:8788');
  });
});

describe('hydrate: a 503 from the agent pre-check', () => {
  it(
    'is retried after Retry-After, then the run stores every line',
    async () => {
      const owner = newWallet();
      const [tokenId, token] = await Promise.all([mintFreshAgent(testnet, owner.address), login(testnet, owner)]);
      const summaryPath = `/agent/${testnet.collection}/${tokenId}`;
      let refused = 0;
      // A proxy in front of the real worker: the first two pre-checks get 503, Retry-After: 1.
      const proxy = await track(
        listen(async (req, res, raw) => {
          if (req.method === 'GET' && req.path === summaryPath && refused < 2) {
            refused++;
            return json(
              res,
              503,
              { error: { code: 'dependency_unavailable', message: 'The chain did not answer' }, requestId: `r${refused}` },
              { 'retry-after': '1' },
            );
          }
          answerForwarded(res, await forward(testnet.baseUrl, req, raw));
        }),
      );
      const tokenFile = path.join(home, 'proxy-token.json');
      await writeFile(
        tokenFile,
        JSON.stringify({ logins: { [proxy.url]: { token, chainId: 80002, wallet: owner.address, baseUrl: proxy.url, expiresAt: null } } }),
        { mode: 0o600 },
      );
      const file = path.join(home, 'precheck.jsonl');
      const lines = ['precheck:a', 'precheck:b'].flatMap((key) =>
        [1, 2, 3].map((n) => ({ key, role: 'user', message: `${key} message ${n}` })),
      );
      await writeFile(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);

      const started = Date.now();
      const result = await runCli(
        [
          'hydrate',
          '--file',
          file,
          '--create-missing',
          '--token-file',
          tokenFile,
          '--collection',
          testnet.collection,
          '--token-id',
          tokenId.toString(),
        ],
        cliEnv({ HOME: home, AGENT_GATEWAY_URL: proxy.url }),
        90_000,
      );
      expect(result.code, result.output).toBe(0);
      expect(refused).toBe(2);
      expect(Date.now() - started).toBeGreaterThanOrEqual(2_000); // two waits of Retry-After: 1 s
      expect(result.stderr).toMatch(/HTTP 503 from .*; retry 1/);
      expect(proxy.requests.filter((r) => r.method === 'GET' && r.path === summaryPath)).toHaveLength(3);

      const agent = createGatewayClient({ baseUrl: testnet.baseUrl, token }).agent(testnet.collection, tokenId);
      for (const key of ['precheck:a', 'precheck:b']) {
        const stored: string[] = [];
        for await (const m of agent.messages(key)) stored.push(m.message);
        expect(stored).toEqual([1, 2, 3].map((n) => `${key} message ${n}`));
      }
    },
    TIMEOUT,
  );
});
