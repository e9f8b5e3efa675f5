import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { issueAccessToken, verifyAccessToken } from '../../src/auth/jwt';
import { issuedAt, issueNonce } from '../../src/auth/issued-nonce';
import { buildLoginMessage, buildSiweMessage, checkSiweMessage, STATEMENTS } from '../../src/auth/siwe';

const secret = new TextEncoder().encode('s'.repeat(32));
const wallet = privateKeyToAccount(generatePrivateKey()).address;
const now = new Date('2026-06-01T12:00:00Z');

describe('issued nonces', () => {
  const scope = { purpose: 'login' as const, chainId: 80002, wallet };

  it('are 73 alphanumeric characters, different every time, and give back when they were issued', async () => {
    const nonces = new Set(await Promise.all(Array.from({ length: 1000 }, () => issueNonce(secret, scope, now))));
    expect(nonces.size).toBe(1000);
    for (const n of nonces) {
      expect(n).toMatch(/^[0-9a-z]{9}[0-9a-f]{64}$/);
      expect(await issuedAt(secret, scope, n)).toEqual(now);
    }
  });

  it('are not accepted for another wallet, chain or purpose, under another secret, or edited', async () => {
    const nonce = await issueNonce(secret, scope, now);
    const other = privateKeyToAccount(generatePrivateKey()).address;
    expect(await issuedAt(secret, { ...scope, wallet: other }, nonce)).toBeNull();
    expect(await issuedAt(secret, { ...scope, chainId: 137 }, nonce)).toBeNull();
    expect(await issuedAt(secret, { ...scope, purpose: 'pairing' }, nonce)).toBeNull();
    expect(await issuedAt(new TextEncoder().encode('t'.repeat(32)), scope, nonce)).toBeNull();
    // Another time with the same tag (a message claiming a later issue time), a flipped tag digit.
    const later = (now.getTime() + 60_000).toString(36).padStart(9, '0');
    expect(await issuedAt(secret, scope, later + nonce.slice(9))).toBeNull();
    const flipped = nonce.slice(0, -1) + (nonce.endsWith('0') ? '1' : '0');
    expect(await issuedAt(secret, scope, flipped)).toBeNull();
    expect(await issuedAt(secret, scope, 'a'.repeat(48))).toBeNull();
  });

  it('accept the wallet in any spelling of its address', async () => {
    const nonce = await issueNonce(secret, scope, now);
    expect(await issuedAt(secret, { ...scope, wallet: wallet.toLowerCase() as typeof wallet }, nonce)).toEqual(now);
  });
});

describe('checkSiweMessage', () => {
  const expected = {
    purpose: 'login' as const,
    domain: 'gw.example',
    uri: 'https://gw.example',
    chainId: 80002,
    address: wallet,
    nonce: 'a'.repeat(32),
    now,
  };
  const message = (overrides: Partial<Parameters<typeof buildLoginMessage>[0]> = {}) =>
    buildLoginMessage({
      domain: 'gw.example',
      uri: 'https://gw.example',
      address: wallet,
      chainId: 80002,
      nonce: 'a'.repeat(32),
      issuedAt: now,
      expirationTime: new Date(now.getTime() + 300_000),
      ...overrides,
    });

  it('accepts the message it built', () => {
    expect(checkSiweMessage(message(), expected).ok).toBe(true);
  });
  it.each([
    ['wrong_domain', { domain: 'evil.example' }],
    ['wrong_uri', { uri: 'https://evil.example' }],
    ['wrong_chain', { chainId: 137 }],
    ['wrong_nonce', { nonce: 'b'.repeat(32) }],
    ['expired', { expirationTime: new Date(now.getTime() - 1) }],
    ['not_yet_valid', { issuedAt: new Date(now.getTime() + 120_000) }],
  ] as const)('reports %s', (reason, overrides) => {
    expect(checkSiweMessage(message(overrides), expected)).toEqual({ ok: false, reason });
  });
  it('reports another address and garbage', () => {
    expect(checkSiweMessage(message({ address: privateKeyToAccount(generatePrivateKey()).address }), expected)).toEqual({
      ok: false,
      reason: 'wrong_address',
    });
    expect(checkSiweMessage('hello', expected)).toEqual({ ok: false, reason: 'malformed' });
  });
  it('enforces a maximum age when asked', () => {
    expect(checkSiweMessage(message(), { ...expected, now: new Date(now.getTime() + 301_000), maxAgeSeconds: 300 })).toEqual({
      ok: false,
      reason: 'expired',
    });
  });
});

describe('message purposes (login and chat pairing never cross)', () => {
  const fields = {
    domain: 'gw.example',
    uri: 'https://gw.example',
    address: wallet,
    chainId: 80002,
    nonce: 'c'.repeat(32),
    issuedAt: now,
    expirationTime: new Date(now.getTime() + 300_000),
  };
  const expected = { domain: 'gw.example', uri: 'https://gw.example', chainId: 80002, address: wallet, now };

  it('gives the two purposes different statements, each in its message', () => {
    expect(STATEMENTS.login).not.toBe(STATEMENTS.pairing);
    expect(buildSiweMessage('login', fields).split('\n')[3]).toBe(STATEMENTS.login);
    expect(buildSiweMessage('pairing', fields).split('\n')[3]).toBe(STATEMENTS.pairing);
    expect(buildLoginMessage(fields)).toBe(buildSiweMessage('login', fields));
  });
  it('accepts each message for its own purpose', () => {
    expect(checkSiweMessage(buildSiweMessage('login', fields), { ...expected, purpose: 'login' }).ok).toBe(true);
    expect(checkSiweMessage(buildSiweMessage('pairing', fields), { ...expected, purpose: 'pairing' }).ok).toBe(true);
  });
  it('refuses a login message as a pairing and a pairing message as a login (wrong_purpose)', () => {
    expect(checkSiweMessage(buildSiweMessage('login', fields), { ...expected, purpose: 'pairing' })).toEqual({
      ok: false,
      reason: 'wrong_purpose',
    });
    expect(checkSiweMessage(buildSiweMessage('pairing', fields), { ...expected, purpose: 'login' })).toEqual({
      ok: false,
      reason: 'wrong_purpose',
    });
  });
  it('refuses a message with no statement or another one, for either purpose', async () => {
    const { createSiweMessage } = await import('viem/siwe');
    const bare = createSiweMessage({ ...fields, version: '1' });
    const other = createSiweMessage({ ...fields, version: '1', statement: `${STATEMENTS.pairing} Also sign in.` });
    for (const purpose of ['login', 'pairing'] as const) {
      expect(checkSiweMessage(bare, { ...expected, purpose })).toEqual({ ok: false, reason: 'wrong_purpose' });
      expect(checkSiweMessage(other, { ...expected, purpose })).toEqual({ ok: false, reason: 'wrong_purpose' });
    }
  });
});

describe('access tokens', () => {
  it('round-trips and binds the chain', async () => {
    const { token, claims } = await issueAccessToken({ secret, wallet, chainId: 137, lifetimeSeconds: 600, now });
    expect(await verifyAccessToken(token, { secret, chainId: 137, now })).toEqual({ ok: true, claims });
    expect(await verifyAccessToken(token, { secret, chainId: 80002, now })).toEqual({ ok: false, reason: 'wrong_chain' });
  });
  it('allows 30 s of clock skew and no more', async () => {
    const { token } = await issueAccessToken({ secret, wallet, chainId: 137, lifetimeSeconds: 600, now });
    expect((await verifyAccessToken(token, { secret, chainId: 137, now: new Date(now.getTime() + 629_000) })).ok).toBe(true);
    expect(await verifyAccessToken(token, { secret, chainId: 137, now: new Date(now.getTime() + 631_000) })).toEqual({
      ok: false,
      reason: 'expired',
    });
    expect((await verifyAccessToken(token, { secret, chainId: 137, now: new Date(now.getTime() - 29_000) })).ok).toBe(true);
    expect(await verifyAccessToken(token, { secret, chainId: 137, now: new Date(now.getTime() - 31_000) })).toEqual({
      ok: false,
      reason: 'invalid',
    });
  });
  it('refuses a sub that is not an address, and a missing iat', async () => {
    const t = Math.floor(now.getTime() / 1000);
    const badSub = await new SignJWT({ cId: 137 })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('alice')
      .setIssuedAt(t)
      .setNotBefore(t)
      .setExpirationTime(t + 60)
      .sign(secret);
    expect(await verifyAccessToken(badSub, { secret, chainId: 137, now })).toEqual({ ok: false, reason: 'invalid' });
    const noIat = await new SignJWT({ cId: 137 })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(wallet)
      .setNotBefore(t)
      .setExpirationTime(t + 60)
      .sign(secret);
    expect(await verifyAccessToken(noIat, { secret, chainId: 137, now })).toEqual({ ok: false, reason: 'invalid' });
  });
});
