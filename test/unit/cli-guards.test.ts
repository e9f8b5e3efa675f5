import { createSiweMessage } from 'viem/siwe';
import { describe, expect, it } from 'vitest';
import { isLoopbackHost, normalizeBaseUrl } from '../../src/cli/gateway-url';
import { dashArgsLast } from '../../src/cli/main';
import { RETRY, retryingFetch } from '../../src/cli/retry';
import { signInProblem } from '../../src/cli/sign-in-check';
import { STATEMENTS } from '../../src/auth/siwe';

describe('the gateway URL', () => {
  it.each([
    ['http://127.0.0.1:8788/', 'http://127.0.0.1:8788'],
    ['http://LOCALHOST:8788', 'http://localhost:8788'],
    ['http://[::1]:8788', 'http://[::1]:8788'],
    ['https://Gateway.Example:443/api//', 'https://gateway.example/api'],
  ])('%s is normalized to %s', (raw, normalized) => {
    expect(normalizeBaseUrl(raw)).toBe(normalized);
  });

  it.each([
    'http://gateway.example',
    'http://10.0.0.1:8788',
    'http://127.0.0.1.nip.io',
    'ftp://127.0.0.1',
    'https://u:p@gateway.example',
    'https://gateway.example/?x=1',
    'not a url',
  ])('refuses %s', (raw) => {
    expect(() => normalizeBaseUrl(raw)).toThrow();
  });

  it('knows loopback hosts', () => {
    expect(['127.0.0.1', '127.1.2.3', 'localhost', '[::1]'].every(isLoopbackHost)).toBe(true);
    // *.localhost is resolved through DNS by Node: a hostile resolver could answer with any address.
    expect(['128.0.0.1', 'example.com', '0.0.0.0', '127.0.0.1.example.com', 'api.localhost'].some(isLoopbackHost)).toBe(false);
  });
});

describe('the sign-in check', () => {
  const address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
  const now = new Date();
  const message = (over: Partial<Parameters<typeof createSiweMessage>[0]> = {}) =>
    createSiweMessage({
      domain: 'gw.example',
      uri: 'https://gw.example',
      address,
      chainId: 80002,
      nonce: 'abcdef0123456789',
      version: '1',
      statement: STATEMENTS.login,
      issuedAt: now,
      ...over,
    });
  const expected = { baseUrl: 'https://gw.example', chainId: 80002, address, now };

  it('accepts a message for this gateway, with its origin or base URL as URI', () => {
    expect(signInProblem(message(), expected)).toBeNull();
    expect(signInProblem(message({ uri: 'https://gw.example/' }), expected)).toBeNull();
    expect(signInProblem(message({ uri: 'https://gw.example/api' }), { ...expected, baseUrl: 'https://gw.example/api' })).toBeNull();
  });

  it('names what is wrong otherwise', () => {
    expect(signInProblem(message({ domain: 'evil.example' }), expected)).toMatch(/another domain \(domain "evil.example"\)/);
    expect(signInProblem(message({ uri: 'https://evil.example' }), expected)).toMatch(/another URI/);
    expect(signInProblem(message({ chainId: 137 }), expected)).toMatch(/another chain/);
    expect(signInProblem(message({ address: '0x0000000000000000000000000000000000000001' }), expected)).toMatch(/another wallet/);
    expect(signInProblem('hello', expected)).toMatch(/not an EIP-4361/);
    expect(signInProblem(message({ statement: STATEMENTS.pairing }), expected)).toMatch(/not a login message/);
  });
});

describe('retryingFetch', () => {
  const answer = (status: number, headers: Record<string, string> = {}) => new Response('{}', { status, headers });

  it('retries a GET answered 503, waiting Retry-After, and stops at the bound', async () => {
    const seen: number[] = [];
    let calls = 0;
    const fetch = retryingFetch({ attempts: 3, baseDelayMs: 1, onRetry: (_, __, delay) => seen.push(delay) }, async () => {
      calls += 1;
      return answer(503, { 'retry-after': '0.05' });
    });
    const res = await fetch('http://127.0.0.1/x', { method: 'GET' });
    expect(res.status).toBe(503);
    expect(calls).toBe(3);
    expect(seen).toEqual([50, 50]);
  });

  it('returns the first good answer', async () => {
    const statuses = [503, 502, 200];
    const fetch = retryingFetch({ baseDelayMs: 1 }, async () => answer(statuses.shift()!));
    expect((await fetch('http://127.0.0.1/x', {})).status).toBe(200);
  });

  it('never repeats a write other than the login steps', async () => {
    let calls = 0;
    const fetch = retryingFetch({ baseDelayMs: 1 }, async () => {
      calls += 1;
      return answer(503);
    });
    await fetch('http://127.0.0.1/agent/a/1/context', { method: 'POST' });
    expect(calls).toBe(1);
    await fetch('http://127.0.0.1/auth/jwt/init', { method: 'POST' });
    expect(calls).toBe(1 + RETRY.attempts); // the one policy (src/cli/retry.ts)
  });
});

describe("arguments that begin with '-'", () => {
  const revoke = { options: { json: { type: 'boolean' as const } }, dashArgs: /^[A-Za-z0-9_-]{16}$/ };

  it('moves an id of the declared form after --, options and option values stay', () => {
    expect(dashArgsLast(['oauth', 'revoke', '-f3Kq9xTz2LmA8vB'], revoke)).toEqual(['oauth', 'revoke', '--', '-f3Kq9xTz2LmA8vB']);
    expect(dashArgsLast(['--collection', '-f3Kq9xTz2LmA8vB', 'oauth', 'revoke', '--json', '--Kq9xTz2LmA8vBw'], revoke)).toEqual([
      '--collection',
      '-f3Kq9xTz2LmA8vB',
      'oauth',
      'revoke',
      '--json',
      '--',
      '--Kq9xTz2LmA8vBw',
    ]);
    expect(dashArgsLast(['oauth', 'revoke', '-a', '--', 'x'], revoke)).toEqual(['oauth', 'revoke', '-a', '--', 'x']);
    expect(dashArgsLast(['oauth', 'revoke', '-f3Kq9xTz2LmA8vB', '--', 'x'], revoke)).toEqual([
      'oauth',
      'revoke',
      '--',
      '-f3Kq9xTz2LmA8vB',
      'x',
    ]);
  });

  it('leaves argv alone for a command without dash arguments', () => {
    expect(dashArgsLast(['keys', 'revoke', '-f3Kq9xTz2LmA8vB'], { options: {} })).toEqual(['keys', 'revoke', '-f3Kq9xTz2LmA8vB']);
  });
});
