/**
 * `agent-gateway login` for real, against the harness' testnet worker: a private key from the
 * environment or a V3 keystore (made here with node:crypto: scrypt or pbkdf2, aes-128-ctr,
 * keccak256 MAC), the token file (mode 0600 in a 0700 directory), `--print-token`, and no secret
 * (token, private key, password) in any output.
 */
import { createCipheriv, pbkdf2Sync, randomBytes, randomUUID, scryptSync } from 'node:crypto';
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { keccak256, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decryptKeystore, KeystoreError } from '../../src/cli/keystore';
import { createGatewayClient } from '../../src/client';
import { mintFreshAgent, newWallet, type TestAccount } from '../support/chain';
import { cliEnv, runCli, tempDir, type CliResult } from '../support/cli';
import { deployment } from '../support/http';

const testnet = deployment('testnet');
const TIMEOUT = 120_000;

let home = '';
let removeHome: () => Promise<void> = async () => undefined;

beforeAll(async () => {
  ({ dir: home, remove: removeHome } = await tempDir());
});
afterAll(() => removeHome());

/** Fails when any of `secrets` (and a private key without its 0x) appears in what the CLI printed. */
function expectNoSecrets(result: CliResult, secrets: (string | undefined)[]): void {
  for (const secret of secrets) {
    if (!secret) continue;
    expect(result.stdout, 'stdout holds a secret').not.toContain(secret);
    expect(result.stderr, 'stderr holds a secret').not.toContain(secret);
    if (/^0x[0-9a-fA-F]{64}$/.test(secret)) expectNoSecrets(result, [secret.slice(2)]);
  }
}

function env(vars: Record<string, string | undefined> = {}) {
  return cliEnv({ HOME: home, AGENT_GATEWAY_URL: testnet.baseUrl, ...vars });
}

/** The login saved in `file` for the testnet worker (the file holds one entry per gateway URL). */
async function savedToken(file: string): Promise<{ token: string; chainId: number; wallet: string; baseUrl: string; expiresAt: string }> {
  const saved = JSON.parse(await readFile(file, 'utf8')) as {
    logins: Record<string, { token: string; chainId: number; wallet: string; baseUrl: string; expiresAt: string }>;
  };
  const entry = saved.logins[testnet.baseUrl];
  if (!entry) throw new Error(`no login for ${testnet.baseUrl} in ${file}: ${Object.keys(saved.logins).join(', ')}`);
  return entry;
}

async function expectAgentAccess(token: string, owner: TestAccount, tokenId: bigint): Promise<void> {
  const client = createGatewayClient({ baseUrl: testnet.baseUrl, token });
  const summary = await client.agent(testnet.collection, tokenId).summary();
  expect(summary).toMatchObject({ chainId: 80002, agentTokenId: tokenId.toString(), owner: owner.address, kind: 'internal' });
}

/** A V3 keystore of `privateKey`, written independently of src/cli/keystore.ts. */
function makeKeystore(privateKey: Hex, address: string, password: string, kdf: 'scrypt' | 'pbkdf2') {
  const salt = randomBytes(32);
  const iv = randomBytes(16);
  const derived =
    kdf === 'scrypt'
      ? scryptSync(Buffer.from(password, 'utf8'), salt, 32, { N: 4096, r: 8, p: 1 })
      : pbkdf2Sync(Buffer.from(password, 'utf8'), salt, 4096, 32, 'sha256');
  const cipher = createCipheriv('aes-128-ctr', derived.subarray(0, 16), iv);
  const ciphertext = Buffer.concat([cipher.update(Buffer.from(privateKey.slice(2), 'hex')), cipher.final()]);
  const mac = keccak256(Buffer.concat([derived.subarray(16, 32), ciphertext])).slice(2);
  const kdfparams =
    kdf === 'scrypt'
      ? { dklen: 32, n: 4096, r: 8, p: 1, salt: salt.toString('hex') }
      : { c: 4096, dklen: 32, prf: 'hmac-sha256', salt: salt.toString('hex') };
  return {
    version: 3,
    id: randomUUID(),
    address: address.slice(2).toLowerCase(),
    crypto: {
      cipher: 'aes-128-ctr',
      cipherparams: { iv: iv.toString('hex') },
      ciphertext: ciphertext.toString('hex'),
      kdf,
      kdfparams,
      mac,
    },
  };
}

describe('login with AGENT_GATEWAY_PRIVATE_KEY', () => {
  it(
    'writes the token file (0600 in a 0700 directory), prints no secret, and the token opens a minted agent',
    async () => {
      const owner = newWallet();
      const [tokenId, result] = await Promise.all([
        mintFreshAgent(testnet, owner.address),
        runCli(['login'], env({ AGENT_GATEWAY_PRIVATE_KEY: owner.privateKey })),
      ]);
      const file = path.join(home, '.agent-gateway', 'token-80002.json');
      expect(result.code, result.output).toBe(0);
      expect(result.stdout).toContain(`logged in as ${owner.address} on chain 80002, token saved to ${file}`);

      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect((await stat(path.dirname(file))).mode & 0o777).toBe(0o700);
      const saved = await savedToken(file);
      expect(saved).toMatchObject({ chainId: 80002, wallet: owner.address, baseUrl: testnet.baseUrl });
      expect(saved.token).toMatch(/^eyJ[\w-]+\.[\w-]+\.[\w-]+$/);
      expect(Date.parse(saved.expiresAt)).toBeGreaterThan(Date.now());
      expectNoSecrets(result, [saved.token, owner.privateKey]);

      await expectAgentAccess(saved.token, owner, tokenId);

      // The other commands use the saved token.
      const list = await runCli(
        ['contexts', 'list', '--json', '--collection', testnet.collection, '--token-id', tokenId.toString()],
        env(),
      );
      expect(list.code, list.output).toBe(0);
      expect(JSON.parse(list.stdout)).toEqual([]);
      expectNoSecrets(list, [saved.token]);
    },
    TIMEOUT,
  );

  it(
    '--print-token prints the token alone on stdout (status on stderr); --token-file moves the file',
    async () => {
      const owner = newWallet();
      const file = path.join(home, 'custom', 'login.json');
      const result = await runCli(['login', '--print-token', '--token-file', file], env({ AGENT_GATEWAY_PRIVATE_KEY: owner.privateKey }));
      expect(result.code, result.output).toBe(0);
      const saved = await savedToken(file);
      expect(result.stdout).toBe(`${saved.token}\n`);
      expect(result.stderr).toContain(`logged in as ${owner.address} on chain 80002, token saved to ${file}`);
      expect(result.stderr).not.toContain(saved.token);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expectNoSecrets(result, [owner.privateKey]);
    },
    TIMEOUT,
  );

  it(
    'refuses a malformed key or no key at all, without echoing it',
    async () => {
      const bad = `0x${'zz'.repeat(32)}`;
      const malformed = await runCli(['login'], env({ AGENT_GATEWAY_PRIVATE_KEY: bad }));
      expect(malformed.code).toBe(1);
      expect(malformed.stderr).toContain('AGENT_GATEWAY_PRIVATE_KEY is not a private key');
      expectNoSecrets(malformed, [bad]);

      const none = await runCli(['login'], env());
      expect(none.code).toBe(2);
      expect(none.stderr).toContain('set AGENT_GATEWAY_PRIVATE_KEY or pass --keystore FILE');

      const notLoggedIn = await runCli(
        ['contexts', 'list', '--collection', testnet.collection, '--token-id', '1', '--token-file', path.join(home, 'nope.json')],
        env(),
      );
      expect(notLoggedIn.code).toBe(1);
      expect(notLoggedIn.stderr).toContain('not logged in');
    },
    TIMEOUT,
  );
});

describe('a saved token that no longer works', () => {
  it(
    'expired: an error saying to log in again; with AGENT_GATEWAY_PRIVATE_KEY the CLI logs in again and saves the new token',
    async () => {
      const owner = newWallet();
      const tokenId = await mintFreshAgent(testnet, owner.address);
      const file = path.join(home, `stale-${randomUUID()}.json`);
      const agentArgs = [
        'contexts',
        'list',
        '--json',
        '--token-file',
        file,
        '--collection',
        testnet.collection,
        '--token-id',
        tokenId.toString(),
      ];
      const stale = (token: string, expiresAt: string) =>
        writeFile(file, JSON.stringify({ token, chainId: 80002, wallet: owner.address, baseUrl: testnet.baseUrl, expiresAt }), {
          mode: 0o600,
        });

      await stale('eyJhbGciOiJIUzI1NiJ9.eyJleHAiOjF9.c2lnbmF0dXJl', '2020-01-01T00:00:00.000Z');
      const refused = await runCli(agentArgs, env());
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('expired at 2020-01-01T00:00:00.000Z; run agent-gateway login again');

      const relogged = await runCli(agentArgs, env({ AGENT_GATEWAY_PRIVATE_KEY: owner.privateKey }));
      expect(relogged.code, relogged.output).toBe(0);
      const fresh = await savedToken(file);
      expect(Date.parse(fresh.expiresAt)).toBeGreaterThan(Date.now());
      await expectAgentAccess(fresh.token, owner, tokenId);
      expectNoSecrets(relogged, [fresh.token, owner.privateKey]);

      // Not expired by its date, but refused by the gateway (401): one re-login, then the call succeeds.
      await stale('eyJhbGciOiJIUzI1NiJ9.eyJleHAiOjQxMDI0NDQ4MDB9.bm90LWEtcmVhbC1zaWduYXR1cmU', '2100-01-01T00:00:00.000Z');
      const retried = await runCli(agentArgs, env({ AGENT_GATEWAY_PRIVATE_KEY: owner.privateKey }));
      expect(retried.code, retried.output).toBe(0);
      expect(JSON.parse(retried.stdout)).toEqual([]);
      const replaced = await savedToken(file);
      expect(replaced.token).not.toContain('bm90LWEtcmVhbC1zaWduYXR1cmU');
      await expectAgentAccess(replaced.token, owner, tokenId);
    },
    TIMEOUT,
  );
});

describe('login with a V3 keystore', () => {
  for (const kdf of ['scrypt', 'pbkdf2'] as const) {
    it(
      `${kdf}: the right password logs in; a wrong one fails clearly and prints no secret`,
      async () => {
        const owner = newWallet();
        const password = `correct horse ${randomUUID()}`;
        const wrong = `wrong horse ${randomUUID()}`;
        const keystore = path.join(home, `keystore-${kdf}-${randomUUID()}.json`);
        await writeFile(keystore, JSON.stringify(makeKeystore(owner.privateKey, owner.address, password, kdf)));
        const file = path.join(home, `token-${kdf}-${randomUUID()}.json`);

        const [tokenId, failed] = await Promise.all([
          mintFreshAgent(testnet, owner.address),
          runCli(['login', '--keystore', keystore, '--token-file', file], env({ AGENT_GATEWAY_KEYSTORE_PASSWORD: wrong })),
        ]);
        expect(failed.code, failed.output).toBe(1);
        expect(failed.stderr).toContain('wrong password');
        expect(failed.stdout).toBe('');
        expectNoSecrets(failed, [wrong, password, owner.privateKey]);
        await expect(stat(file)).rejects.toMatchObject({ code: 'ENOENT' });

        const ok = await runCli(
          ['login', '--keystore', keystore, '--token-file', file],
          env({ AGENT_GATEWAY_KEYSTORE_PASSWORD: password }),
        );
        expect(ok.code, ok.output).toBe(0);
        expect(ok.stdout).toContain(`logged in as ${owner.address} on chain 80002`);
        const saved = await savedToken(file);
        expectNoSecrets(ok, [password, owner.privateKey, saved.token]);
        await expectAgentAccess(saved.token, owner, tokenId);
      },
      TIMEOUT,
    );
  }

  it(
    'without a password and no terminal: says how to give one',
    async () => {
      const owner = newWallet();
      const keystore = path.join(home, `keystore-nopass-${randomUUID()}.json`);
      await writeFile(keystore, JSON.stringify(makeKeystore(owner.privateKey, owner.address, 'some password', 'pbkdf2')));
      const result = await runCli(['login', '--keystore', keystore], env());
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('AGENT_GATEWAY_KEYSTORE_PASSWORD');
    },
    TIMEOUT,
  );

  it('decrypts the Web3 Secret Storage test vector (pbkdf2) and refuses what node:crypto cannot do', () => {
    const vector = {
      crypto: {
        cipher: 'aes-128-ctr',
        cipherparams: { iv: '6087dab2f9fdbbfaddc31a909735c1e6' },
        ciphertext: '5318b4d5bcd28de64ee5559e671353e16f075ecae9f99c7a79a38af5f869aa46',
        kdf: 'pbkdf2',
        kdfparams: { c: 262144, dklen: 32, prf: 'hmac-sha256', salt: 'ae3cd4e7013836a3df6bd7241b12db061dbe2c6785853cce422d148a624ce0bd' },
        mac: '517ead924a9d0dc3124507e3393d175ce3ff7c1e96529c6c555ce9e51205e9b2',
      },
      id: '3198bc9c-6672-5ab3-d995-4942343ae5b6',
      version: 3,
    };
    expect(decryptKeystore(vector, 'testpassword').privateKey).toBe('0x7a28b5ba57c53603b0b07b56bba752f7784bf506fa95edc395f5cf6c7514fe9d');
    expect(() => decryptKeystore(vector, 'testpassworD')).toThrow(/wrong password/);
    // The spec's scrypt vector uses n = 2^18 with r = 1, beyond RFC 7914's n < 2^(16·r): refused clearly.
    const scryptR1 = {
      ...vector,
      crypto: { ...vector.crypto, kdf: 'scrypt', kdfparams: { dklen: 32, n: 262144, p: 8, r: 1, salt: vector.crypto.kdfparams.salt } },
    };
    expect(() => decryptKeystore(scryptR1, 'testpassword')).toThrow(KeystoreError);
    expect(() => decryptKeystore({ ...vector, version: 1 }, 'testpassword')).toThrow(/version/);
    expect(() => decryptKeystore({ ...vector, crypto: { ...vector.crypto, cipher: 'aes-128-cbc' } }, 'testpassword')).toThrow(/cipher/);
    expect(() => decryptKeystore({ ...vector, address: '0000000000000000000000000000000000000001' }, 'testpassword')).toThrow(/address/);
  });
});
