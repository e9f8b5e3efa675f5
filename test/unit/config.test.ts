import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig, type Config } from '../../src/config';

const SECRET = 'a-test-secret-that-is-32-bytes!!'; // 32 ASCII bytes
const DB_PASSWORD = 'db-pa55word-value';
const KEK = `v1:${Buffer.alloc(32, 7).toString('base64')}`;

/** A complete, valid testnet env with only the required bindings. */
const validEnv = () => ({
  CHAIN_ID: '80002',
  RPC_URL: 'http://127.0.0.1:8546',
  DATABASE_URL: `postgresql://postgres:${DB_PASSWORD}@127.0.0.1:5433/agent_gateway`,
  SIWE_DOMAIN: '127.0.0.1:8788',
  SIWE_URI: 'http://127.0.0.1:8788',
  JWT__HASH: SECRET,
  VAULT_KEK: KEK,
});

type EnvInput = Parameters<typeof parseConfig>[0];

/** Parses and returns the ConfigError, failing when parsing succeeds or throws something else. */
function configError(env: EnvInput): ConfigError {
  try {
    parseConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error(`parseConfig accepted ${JSON.stringify(env)}`);
}

/** Expects `env` to be rejected with a problem naming `name` (and only mentioning it by name). */
function expectRejected(env: EnvInput, name: string): ConfigError {
  const err = configError(env);
  expect(
    err.problems.some((p) => p.startsWith(`${name} `)),
    `problems ${JSON.stringify(err.problems)} name ${name}`,
  ).toBe(true);
  expect(err.message).toContain(name);
  return err;
}

/** Neither the message nor the problems reveal a secret. */
function expectNoSecrets(err: ConfigError, ...values: string[]) {
  for (const value of [SECRET, DB_PASSWORD, ...values]) {
    expect(err.message).not.toContain(value);
    for (const problem of err.problems) expect(problem).not.toContain(value);
    expect(String(err.stack ?? '')).not.toContain(value);
  }
}

describe('parseConfig', () => {
  it('parses a valid env, with defaults for the optional settings', () => {
    const config: Config = parseConfig(validEnv());
    expect(config).toMatchObject({
      chainId: 80002,
      deployment: 'testnet',
      rpcUrl: 'http://127.0.0.1:8546',
      databaseUrl: validEnv().DATABASE_URL,
      dbWsProxy: undefined,
      siweDomain: '127.0.0.1:8788',
      siweUri: 'http://127.0.0.1:8788',
      jwtLifetimeSeconds: 86_400,
      nonceTtlSeconds: 300,
      maxBodyBytes: 1_048_576,
      maxTokensPerRequest: 100_000,
      warnings: [],
    });
    expect(new TextDecoder().decode(config.jwtSecret)).toBe(SECRET);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('parses mainnet and the optional settings when given', () => {
    const config = parseConfig({
      ...validEnv(),
      CHAIN_ID: '137',
      JWT__LIVING_TIME: '3600',
      NONCE_TTL_SECONDS: '120',
      TOKEN__MAX_TOKENS_PER_REQUEST: '5000',
      DB_WS_PROXY: '127.0.0.1:5434',
    });
    expect(config).toMatchObject({
      chainId: 137,
      deployment: 'mainnet',
      jwtLifetimeSeconds: 3_600,
      nonceTtlSeconds: 120,
      maxTokensPerRequest: 5_000,
      dbWsProxy: '127.0.0.1:5434',
    });
  });

  it('rejects a missing JWT__HASH, naming it', () => {
    const { JWT__HASH: _omitted, ...env } = validEnv();
    const err = expectRejected(env, 'JWT__HASH');
    expectNoSecrets(err);
  });

  it('names every problem at once', () => {
    const err = configError({ ...validEnv(), CHAIN_ID: '1', RPC_URL: 'not a url', JWT__HASH: 'short' });
    const named = err.problems.map((p) => p.split(' ')[0]).sort();
    expect(named).toEqual(['CHAIN_ID', 'JWT__HASH', 'RPC_URL']);
  });

  describe('JWT__HASH length is counted in bytes', () => {
    it('rejects 31 bytes', () => {
      const secret = 'x'.repeat(31);
      const err = expectRejected({ ...validEnv(), JWT__HASH: secret }, 'JWT__HASH');
      expect(err.problems).toContain('JWT__HASH must be at least 32 bytes long');
      expectNoSecrets(err, secret);
    });

    it('accepts 32 bytes', () => {
      const secret = 'x'.repeat(32);
      expect(parseConfig({ ...validEnv(), JWT__HASH: secret }).jwtSecret.byteLength).toBe(32);
    });

    it('accepts 11 three-byte characters (33 bytes)', () => {
      const secret = '€'.repeat(11);
      expect(secret).toHaveLength(11);
      expect(new TextEncoder().encode(secret).byteLength).toBe(33);
      expect(parseConfig({ ...validEnv(), JWT__HASH: secret }).jwtSecret.byteLength).toBe(33);
    });

    it('rejects 31 bytes even when that is 11 characters', () => {
      const secret = `${'€'.repeat(10)}x`;
      expect(new TextEncoder().encode(secret).byteLength).toBe(31);
      const err = expectRejected({ ...validEnv(), JWT__HASH: secret }, 'JWT__HASH');
      expectNoSecrets(err, secret);
    });
  });

  it.each(['1', 'abc', '', '137.0', ' 137'])('rejects CHAIN_ID %j', (chainId) => {
    const err = expectRejected({ ...validEnv(), CHAIN_ID: chainId }, 'CHAIN_ID');
    expect(err.problems).toContain('CHAIN_ID must be one of 137, 80002');
  });

  it.each(['not a url', 'ftp://x'])('rejects RPC_URL %j', (rpcUrl) => {
    expectRejected({ ...validEnv(), RPC_URL: rpcUrl }, 'RPC_URL');
  });

  describe('RPC endpoints (RPC_URLS, RPC_URL, RPC_TIMEOUT_MS)', () => {
    it('uses RPC_URL alone when RPC_URLS is unset, with a 4 s timeout by default', () => {
      const config = parseConfig(validEnv());
      expect(config.rpcUrls).toEqual(['http://127.0.0.1:8546']);
      expect(config.rpcUrl).toBe('http://127.0.0.1:8546');
      expect(config.rpcTimeoutMs).toBe(4_000);
    });
    it('prefers RPC_URLS, in order, trimmed, and needs no RPC_URL then', () => {
      const { RPC_URL: _, ...env } = validEnv();
      const config = parseConfig({ ...env, RPC_URLS: ' http://127.0.0.1:9 , https://rpc.example/v1,', RPC_TIMEOUT_MS: '750' });
      expect(config.rpcUrls).toEqual(['http://127.0.0.1:9', 'https://rpc.example/v1']);
      expect(config.rpcUrl).toBe('http://127.0.0.1:9');
      expect(config.rpcTimeoutMs).toBe(750);
    });
    it('requires RPC_URL or RPC_URLS', () => {
      const { RPC_URL: _, ...env } = validEnv();
      expect(configError(env).problems).toEqual(['RPC_URL is required (or RPC_URLS, a comma-separated list)']);
      expect(configError({ ...env, RPC_URLS: ' , ' }).problems).toEqual(['RPC_URL is required (or RPC_URLS, a comma-separated list)']);
      expect(configError({ ...env, CHAIN_ID: '1' }).problems).toContain('RPC_URL is required (or RPC_URLS, a comma-separated list)');
    });
    it.each([
      'http://a.example,ftp://b.example',
      'http://a.example,http://a.example',
      Array.from({ length: 9 }, (_, i) => `http://h${i}.example`).join(','),
    ])('rejects RPC_URLS %j', (urls) => {
      expectRejected({ ...validEnv(), RPC_URLS: urls }, 'RPC_URLS');
    });
    it.each(['99', '30001', 'abc'])('rejects RPC_TIMEOUT_MS %j', (ms) => {
      expectRejected({ ...validEnv(), RPC_TIMEOUT_MS: ms }, 'RPC_TIMEOUT_MS');
    });
  });

  it.each(['http://x', `http://postgres:${DB_PASSWORD}@127.0.0.1/db`, 'not a url'])('rejects DATABASE_URL %j', (url) => {
    const err = expectRejected({ ...validEnv(), DATABASE_URL: url }, 'DATABASE_URL');
    expectNoSecrets(err, url);
  });

  it.each(['-5', '1.5', 'abc'])('rejects JWT__LIVING_TIME %j', (value) => {
    const err = expectRejected({ ...validEnv(), JWT__LIVING_TIME: value }, 'JWT__LIVING_TIME');
    expect(err.problems).toContain('JWT__LIVING_TIME must be a whole number');
  });

  it('ignores MAX_TOKENS_PER_REQUEST without its TOKEN__ prefix, with a warning', () => {
    const config = parseConfig({ ...validEnv(), MAX_TOKENS_PER_REQUEST: '5' });
    expect(config.maxTokensPerRequest).toBe(100_000);
    expect(config.warnings).toHaveLength(1);
    expect(config.warnings[0]).toContain('MAX_TOKENS_PER_REQUEST');
    expect(config.warnings[0]).toContain('TOKEN__MAX_TOKENS_PER_REQUEST');
  });

  it('uses TOKEN__MAX_TOKENS_PER_REQUEST, not the bare name, when both are set', () => {
    const config = parseConfig({ ...validEnv(), MAX_TOKENS_PER_REQUEST: '5', TOKEN__MAX_TOKENS_PER_REQUEST: '7' });
    expect(config.maxTokensPerRequest).toBe(7);
    expect(config.warnings).toHaveLength(1);
  });

  it('keeps message text out of spans unless TRACE_MESSAGE_TEXT=1; takes only 0 or 1', () => {
    expect(parseConfig(validEnv()).traceMessageText).toBe(false);
    expect(parseConfig({ ...validEnv(), TRACE_MESSAGE_TEXT: '0' }).traceMessageText).toBe(false);
    expect(parseConfig({ ...validEnv(), TRACE_MESSAGE_TEXT: '1' }).traceMessageText).toBe(true);
    expectRejected({ ...validEnv(), TRACE_MESSAGE_TEXT: 'yes' }, 'TRACE_MESSAGE_TEXT');
  });

  describe('local-stack switches (DEV_*)', () => {
    const local = () => ({ ...validEnv(), DB_WS_PROXY: '127.0.0.1:5434' });

    it('default to production policy', () => {
      expect(parseConfig(validEnv()).dev).toEqual({ loopbackTargets: false, rateLimits: true, localStack: false });
      // On the local stack without switches: production's policy, and `localStack` says where it runs.
      expect(parseConfig(local()).dev).toEqual({ loopbackTargets: false, rateLimits: true, localStack: true });
    });

    it('are read on the local stack (loopback bridge to a loopback database)', () => {
      expect(parseConfig({ ...local(), DEV_LOOPBACK_TARGETS: '1', DEV_RATE_LIMITS: '0' }).dev).toEqual({
        loopbackTargets: true,
        rateLimits: false,
        localStack: true,
      });
    });

    it.each([
      ['no bridge (a deployment on Neon)', { DB_WS_PROXY: undefined }],
      ['a bridge on another host', { DB_WS_PROXY: 'proxy.example.com:443' }],
      ['a database on another host', { DATABASE_URL: 'postgresql://u:p@ep-x.neon.tech/db' }],
    ])('are refused with %s, naming the switch', (_, overrides) => {
      for (const name of ['DEV_LOOPBACK_TARGETS', 'DEV_RATE_LIMITS']) {
        const err = expectRejected({ ...local(), ...overrides, [name]: name === 'DEV_RATE_LIMITS' ? '0' : '1' }, name);
        expect(err.problems.join(' ')).toContain('cannot be set on a deployment');
      }
    });

    it('take only 0 or 1', () => {
      expectRejected({ ...local(), DEV_RATE_LIMITS: 'off' }, 'DEV_RATE_LIMITS');
    });
  });

  it('never puts a secret value into an error, whatever else is wrong', () => {
    const secret = 'tooShortSecretValue';
    const err = configError({ ...validEnv(), JWT__HASH: secret, DATABASE_URL: `mysql://root:${DB_PASSWORD}@db/x`, CHAIN_ID: 'abc' });
    expect(err.problems.length).toBeGreaterThanOrEqual(3);
    expectNoSecrets(err, secret);
  });
});
