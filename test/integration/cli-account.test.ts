/**
 * `agent-gateway --version`, `whoami` and `logout`, run as users run them: whoami and logout read
 * and write the token file only (a recording server as the gateway proves no request is made),
 * say when the login is absent or expired, and logout removes one gateway's login and is
 * idempotent.
 */
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newWallet } from '../support/chain';
import { cliEnv, REPO_ROOT, runCli, tempDir } from '../support/cli';
import { deployment } from '../support/http';
import { answerJson, listen, type Listener } from '../support/loopback';

const testnet = deployment('testnet');
const TIMEOUT = 120_000;

let home = '';
let removeHome: () => Promise<void> = async () => undefined;
let gateway: Listener;

beforeAll(async () => {
  ({ dir: home, remove: removeHome } = await tempDir());
  // Stands in for a gateway: any request to it is a failure of "no network needed".
  gateway = await listen((_, res) => answerJson(res, 500, { error: 'no request expected' }));
});
afterAll(async () => {
  await gateway?.close();
  await removeHome();
});

const env = (vars: Record<string, string | undefined> = {}) => cliEnv({ HOME: home, ...vars });

/** Writes a token file holding `logins` (what login saves), returning its path. */
async function tokenFile(
  name: string,
  logins: { baseUrl: string; wallet: string; expiresAt: string; chainId?: number }[],
): Promise<string> {
  const file = path.join(home, 'files', name);
  await mkdir(path.dirname(file), { recursive: true });
  const entries = Object.fromEntries(
    logins.map((l) => [l.baseUrl, { token: `eyJhbGciOiJIUzI1NiJ9.${crypto.randomUUID()}.sig`, chainId: l.chainId ?? 80002, ...l }]),
  );
  await writeFile(file, JSON.stringify({ logins: entries }), { mode: 0o600 });
  return file;
}

describe('agent-gateway --version', () => {
  it('prints the package version and the Node version, exit 0', async () => {
    const { version } = JSON.parse(await readFile(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      const result = await runCli([flag], env());
      expect(result.code, result.output).toBe(0);
      expect(result.stdout.trim()).toBe(`agent-gateway ${version} (node ${process.versions.node})`);
    }
    const help = await runCli(['--help'], env());
    for (const command of ['whoami', 'logout', 'tools add', 'tools list', 'tools remove', 'tools check', 'tools call'])
      expect(help.stdout).toContain(`  ${command} `);
  });
});

describe('agent-gateway whoami', () => {
  it(
    'after a real login shows wallet, chain, gateway, token file and expiry (never the token)',
    async () => {
      const owner = newWallet();
      const vars = { AGENT_GATEWAY_URL: testnet.baseUrl };
      const login = await runCli(['login'], env({ ...vars, AGENT_GATEWAY_PRIVATE_KEY: owner.privateKey }));
      expect(login.code, login.output).toBe(0);
      const file = path.join(home, '.agent-gateway', 'token-80002.json');
      const saved = JSON.parse(await readFile(file, 'utf8')) as { logins: Record<string, { token: string; expiresAt: string }> };
      const entry = saved.logins[testnet.baseUrl]!;

      const who = await runCli(['whoami'], env(vars));
      expect(who.code, who.output).toBe(0);
      expect(who.stdout).toContain(`wallet      ${owner.address}`);
      expect(who.stdout).toContain('chain       80002');
      expect(who.stdout).toContain(`gateway     ${testnet.baseUrl}`);
      expect(who.stdout).toContain(`token file  ${file}`);
      expect(who.stdout).toMatch(new RegExp(`expires     ${entry.expiresAt.replace(/[.]/g, '\\.')} \\(in 2[34] h \\d+ min\\)`));
      expect(who.output).not.toContain(entry.token);

      const json = await runCli(['whoami', '--json'], env(vars));
      expect(json.code, json.output).toBe(0);
      expect(JSON.parse(json.stdout)).toEqual({
        wallet: owner.address,
        chainId: 80002,
        baseUrl: testnet.baseUrl,
        tokenFile: file,
        expiresAt: entry.expiresAt,
        expired: false,
      });
    },
    TIMEOUT,
  );

  it('reads the token file only: no request reaches the gateway', async () => {
    const wallet = newWallet().address;
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const file = await tokenFile('offline.json', [{ baseUrl: gateway.url, wallet, expiresAt }]);
    const who = await runCli(['whoami', '--base-url', gateway.url, '--token-file', file], env());
    expect(who.code, who.output).toBe(0);
    expect(who.stdout).toContain(`wallet      ${wallet}`);
    expect(who.stdout).toMatch(/\(in (59|60) min\)/);
    expect(gateway.requests).toEqual([]);
  });

  it('says when the token has expired (exit 1), and when there is no login for the gateway (exit 1)', async () => {
    const wallet = newWallet().address;
    const expiresAt = new Date(Date.now() - 60_000).toISOString();
    const file = await tokenFile('expired.json', [{ baseUrl: gateway.url, wallet, expiresAt }]);
    const expired = await runCli(['whoami', '--base-url', gateway.url], env({ AGENT_GATEWAY_TOKEN_FILE: file }));
    expect(expired.code, expired.output).toBe(1);
    expect(expired.stdout).toContain(`expires     ${expiresAt} (expired; run agent-gateway login again)`);
    const json = await runCli(['whoami', '--json', '--base-url', gateway.url, '--token-file', file], env());
    expect(JSON.parse(json.stdout)).toMatchObject({ wallet, expired: true });

    const other = 'http://127.0.0.1:9';
    const absent = await runCli(['whoami', '--base-url', other, '--token-file', file], env());
    expect(absent.code, absent.output).toBe(1);
    expect(absent.stderr).toContain(`agent-gateway whoami: not logged in to ${other} (looked in ${file}); run agent-gateway login`);
    expect(gateway.requests).toEqual([]);
  });
});

describe('agent-gateway logout', () => {
  it('removes the login of that gateway only, keeps the others, and is idempotent; the file goes with the last login', async () => {
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const other = 'https://gateway.example';
    const file = await tokenFile('two.json', [
      { baseUrl: gateway.url, wallet: newWallet().address, expiresAt },
      { baseUrl: other, wallet: newWallet().address, expiresAt },
    ]);
    const vars = env({ AGENT_GATEWAY_TOKEN_FILE: file });

    const first = await runCli(['logout', '--base-url', gateway.url], vars);
    expect(first.code, first.output).toBe(0);
    expect(first.stdout).toContain(`logged out of ${gateway.url}: its token removed from ${file}`);
    const left = JSON.parse(await readFile(file, 'utf8')) as { logins: Record<string, unknown> };
    expect(Object.keys(left.logins)).toEqual([other]);

    const again = await runCli(['logout', '--base-url', gateway.url], vars);
    expect(again.code, again.output).toBe(0);
    expect(again.stdout).toContain(`not logged in to ${gateway.url} (looked in ${file}); nothing to remove`);

    const who = await runCli(['whoami', '--base-url', gateway.url], vars);
    expect(who.code).toBe(1);
    expect(who.stderr).toContain(`not logged in to ${gateway.url}`);

    const last = await runCli(['logout', '--base-url', other], vars);
    expect(last.code, last.output).toBe(0);
    await expect(readFile(file, 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
    expect(gateway.requests).toEqual([]);
  });

  it(
    'after a real login, logout forgets the token and data commands ask for a login again',
    async () => {
      const owner = newWallet();
      const logoutHome = await tempDir();
      try {
        const vars = cliEnv({ HOME: logoutHome.dir, AGENT_GATEWAY_URL: testnet.baseUrl });
        const login = await runCli(['login'], { ...vars, AGENT_GATEWAY_PRIVATE_KEY: owner.privateKey });
        expect(login.code, login.output).toBe(0);
        const out = await runCli(['logout'], vars);
        expect(out.code, out.output).toBe(0);
        expect(out.stdout).toContain(`logged out of ${testnet.baseUrl}`);
        const list = await runCli(['contexts', 'list', '--collection', testnet.collection, '--token-id', '1'], vars);
        expect(list.code).toBe(1);
        expect(list.stderr).toContain(`not logged in to ${testnet.baseUrl}`);
      } finally {
        await logoutHome.remove();
      }
    },
    TIMEOUT,
  );
});
