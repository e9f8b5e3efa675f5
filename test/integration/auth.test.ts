import { decodeJwt } from 'jose';
import { describe, expect, inject, it } from 'vitest';
import { startMiniflare } from '../../scripts/lib/worker-bundle';
import { deploySmartWallet, flipCaseOfFirstLetter, mintFreshAgent, newWallet } from '../support/chain';
import { call, deployment, errorCode, expectError } from '../support/http';
import { agentPath, finish, initLogin, login } from '../support/login';
import { workerBindingsFor } from '../support/worker';
import { STATEMENTS } from '../../src/auth/siwe';

const stack = inject('stack');
const testnet = deployment('testnet');
const mainnet = deployment('mainnet');

describe('POST /auth/jwt/init', () => {
  it("returns a nonce of 128 random bits (with its issue time and the gateway's tag) and an EIP-4361 message built from config, not the request", async () => {
    const wallet = newWallet();
    const res = await call<{ nonce: string; message: string }>(testnet.baseUrl, '/auth/jwt/init', {
      method: 'POST',
      json: { walletAddress: wallet.address.toLowerCase(), chainId: 80002 },
      headers: { host: 'evil.example' },
    });
    expect(res.status).toBe(200);
    expect(res.body.nonce).toMatch(/^[0-9a-z]{9}[0-9a-f]{64}$/);
    const origin = new URL(testnet.baseUrl);
    const lines = res.body.message.split('\n');
    expect(lines[0]).toBe(`${origin.host} wants you to sign in with your Ethereum account:`);
    expect(lines[1]).toBe(wallet.address); // checksummed
    expect(res.body.message).toContain(`URI: ${testnet.baseUrl}\n`);
    expect(res.body.message).toContain('Chain ID: 80002\n');
    expect(res.body.message).toContain(`Nonce: ${res.body.nonce}\n`);
    expect(res.body.message).toMatch(/Expiration Time: \d{4}-/);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it.each([
    ['a bad checksum', flipCaseOfFirstLetter],
    ['not hex', (_a: string) => `0x${'g'.repeat(40)}`],
    ['a wrong length', (a: string) => a.slice(0, 40)],
    ['no 0x prefix', (a: string) => a.slice(2)],
  ])('rejects a wallet address with %s (400)', async (_, mangle) => {
    const bad = mangle(newWallet().address);
    const res = await call(testnet.baseUrl, '/auth/jwt/init', { method: 'POST', json: { walletAddress: bad, chainId: 80002 } });
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe('validation_failed');
  });

  it.each([137, 1, '80002', null])('rejects chainId %s on the testnet deployment (400)', async (chainId) => {
    const res = await call(testnet.baseUrl, '/auth/jwt/init', {
      method: 'POST',
      json: { walletAddress: newWallet().address, chainId },
    });
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe('validation_failed');
  });
});

describe('POST /auth/jwt/finish', () => {
  it('logs an ordinary wallet in with a token bound to the wallet and the chain', async () => {
    const wallet = newWallet();
    const token = await login(testnet, wallet);
    const claims = decodeJwt(token);
    expect(claims.sub).toBe(wallet.address);
    expect(claims.cId).toBe(80002);
    expect(claims.exp! - claims.iat!).toBe(86_400);
    expect(claims.nbf).toBe(claims.iat);
    expect(typeof claims.jti).toBe('string');
    expect(Math.abs(claims.iat! - Date.now() / 1000)).toBeLessThan(60);
  });

  it('logs an ERC-1271 smart-contract wallet in (signature checked through the chain)', async () => {
    const owner = newWallet();
    const smartWallet = await deploySmartWallet(testnet, owner.address);
    const token = await login(testnet, owner, smartWallet);
    expect(decodeJwt(token).sub).toBe(smartWallet);
    // and the wallet can use agents it holds
    const tokenId = await mintFreshAgent(testnet, smartWallet);
    const res = await call(testnet.baseUrl, agentPath(testnet.collection, tokenId), { token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ owner: smartWallet, kind: 'internal' });
  });

  it('refuses an ERC-1271 wallet whose owner did not sign (401)', async () => {
    const owner = newWallet();
    const smartWallet = await deploySmartWallet(testnet, owner.address);
    const { message } = await initLogin(testnet, smartWallet);
    const signature = await newWallet().signMessage({ message });
    const res = await finish(testnet.baseUrl, { walletAddress: smartWallet, chainId: 80002, signature });
    expect(res.status).toBe(401);
    expect(errorCode(res)).toBe('signature_invalid');
  });

  it('gives exactly one 200 for 20 concurrent finish calls with one signature', async () => {
    const wallet = newWallet();
    const { message } = await initLogin(testnet, wallet.address);
    const signature = await wallet.signMessage({ message });
    const results = await Promise.all(
      Array.from({ length: 20 }, () => finish(testnet.baseUrl, { walletAddress: wallet.address, chainId: 80002, signature })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 401)).toHaveLength(19);
    for (const r of results.filter((r) => r.status === 401)) expect(errorCode(r)).toBe('nonce_used');
  });

  it('refuses a replayed signature (401 nonce_used)', async () => {
    const wallet = newWallet();
    const { message } = await initLogin(testnet, wallet.address);
    const signature = await wallet.signMessage({ message });
    const body = { walletAddress: wallet.address, chainId: 80002, signature };
    expect((await finish(testnet.baseUrl, body)).status).toBe(200);
    const replay = await finish(testnet.baseUrl, body);
    expect(replay.status).toBe(401);
    expect(errorCode(replay)).toBe('nonce_used');
  });

  it('consumes nothing on a wrong signer: the right signature afterwards logs in', async () => {
    const wallet = newWallet();
    const { message } = await initLogin(testnet, wallet.address);
    const wrong = await finish(testnet.baseUrl, {
      walletAddress: wallet.address,
      chainId: 80002,
      signature: await newWallet().signMessage({ message }),
    });
    expectError(wrong, 401, 'signature_invalid');
    const right = await finish(testnet.baseUrl, {
      walletAddress: wallet.address,
      chainId: 80002,
      signature: await wallet.signMessage({ message }),
    });
    expect(right.status, right.text).toBe(200);
  });

  it('refuses finish without init: without a nonce, the same answer as a wrong signature (401 signature_invalid)', async () => {
    const wallet = newWallet();
    const signature = await wallet.signMessage({ message: 'anything' });
    const none = await finish(testnet.baseUrl, { walletAddress: wallet.address, chainId: 80002, signature });
    // Once the wallet has a login pending, a wrong signature must read exactly the same (issue 18).
    await initLogin(testnet, wallet.address);
    const pending = await finish(testnet.baseUrl, { walletAddress: wallet.address, chainId: 80002, signature });
    for (const res of [none, pending]) {
      expect(res.status).toBe(401);
      expect(errorCode(res)).toBe('signature_invalid');
    }
    const { requestId: _a, ...noneBody } = none.body as Record<string, unknown>;
    const { requestId: _b, ...pendingBody } = pending.body as Record<string, unknown>;
    expect(noneBody).toEqual(pendingBody);
  });

  it('refuses a login started on the other deployment (401)', async () => {
    const wallet = newWallet();
    const { message } = await initLogin(mainnet, wallet.address);
    const signature = await wallet.signMessage({ message });
    const res = await finish(testnet.baseUrl, { walletAddress: wallet.address, chainId: 80002, signature });
    expect(res.status).toBe(401);
    expect(errorCode(res)).toBe('signature_invalid');
  });

  it('refuses the chain id of another deployment (400)', async () => {
    const wallet = newWallet();
    const { message } = await initLogin(testnet, wallet.address);
    const res = await finish(testnet.baseUrl, {
      walletAddress: wallet.address,
      chainId: 137,
      signature: await wallet.signMessage({ message }),
    });
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe('validation_failed');
  });

  it.each([
    ['not hex', `0x${'zz'.repeat(65)}`],
    ['no 0x prefix', 'ab'.repeat(65)],
    ['64 bytes', `0x${'ab'.repeat(64)}`],
    ['66 bytes', `0x${'ab'.repeat(66)}`],
    ['an odd number of digits', `0x${'ab'.repeat(65)}a`],
    ['empty', '0x'],
  ])('refuses a signature that is %s (400)', async (_, signature) => {
    const wallet = newWallet();
    await initLogin(testnet, wallet.address);
    const res = await finish(testnet.baseUrl, { walletAddress: wallet.address, chainId: 80002, signature });
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe('validation_failed');
  });

  it('refuses an expired nonce (401 login_expired) on a deployment with a 1 s nonce lifetime', async () => {
    const worker = await startMiniflare({
      scriptPath: stack.scriptPath,
      deployment: 'testnet',
      bindings: { ...workerBindingsFor(stack), NONCE_TTL_SECONDS: '1' },
    });
    try {
      const wallet = newWallet();
      const { message, nonce } = await initLogin(testnet, wallet.address, worker.url);
      const signature = await wallet.signMessage({ message });
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const res = await finish(worker.url, { walletAddress: wallet.address, chainId: 80002, signature, nonce });
      expect(res.status).toBe(401);
      expect(errorCode(res)).toBe('login_expired');
      // Without its nonce, an expired login reads as no login at all (issue 18).
      const bare = await finish(worker.url, { walletAddress: wallet.address, chainId: 80002, signature });
      expect(errorCode(bare)).toBe('signature_invalid');
    } finally {
      await worker.dispose();
    }
  });
});

describe('POST /wallet/verify (chat pairing)', () => {
  async function signedMessage(overrides: { domain?: string; chainId?: number; issuedAt?: Date; nonce?: string } = {}) {
    const wallet = newWallet();
    const { createSiweMessage, generateSiweNonce } = await import('viem/siwe');
    const origin = new URL(testnet.baseUrl);
    const message = createSiweMessage({
      statement: STATEMENTS.pairing,
      domain: overrides.domain ?? origin.host,
      uri: testnet.baseUrl,
      address: wallet.address,
      chainId: overrides.chainId ?? 80002,
      nonce: overrides.nonce ?? generateSiweNonce(),
      version: '1',
      issuedAt: overrides.issuedAt ?? new Date(),
    });
    return { wallet, message, signature: await wallet.signMessage({ message }) };
  }

  it('verifies a fresh message for this deployment, once', async () => {
    const { wallet, message, signature } = await signedMessage();
    const body = { walletAddress: wallet.address, chainId: 80002, message, signature };
    const res = await call(testnet.baseUrl, '/wallet/verify', { method: 'POST', json: body });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ verified: true, walletAddress: wallet.address, chainId: 80002 });
    const replay = await call(testnet.baseUrl, '/wallet/verify', { method: 'POST', json: body });
    expect(replay.status).toBe(401);
    expect(errorCode(replay)).toBe('nonce_used');
  });

  it.each([
    ['another domain', { domain: 'evil.example' }, 'login_message_invalid'],
    ['another chain', { chainId: 137 }, 'login_message_invalid'],
    ['an old issue date', { issuedAt: new Date(Date.now() - 3_600_000) }, 'login_expired'],
    ['a short nonce', { nonce: 'abc12345' }, 'login_message_invalid'],
  ] as const)('refuses a message with %s (401)', async (_, overrides, code) => {
    const { wallet, message, signature } = await signedMessage(overrides);
    const res = await call(testnet.baseUrl, '/wallet/verify', {
      method: 'POST',
      json: { walletAddress: wallet.address, chainId: 80002, message, signature },
    });
    expect(res.status).toBe(401);
    expect(errorCode(res)).toBe(code);
  });

  it('refuses a signature by another wallet (401 signature_invalid)', async () => {
    const { wallet, message } = await signedMessage();
    const signature = await newWallet().signMessage({ message });
    const res = await call(testnet.baseUrl, '/wallet/verify', {
      method: 'POST',
      json: { walletAddress: wallet.address, chainId: 80002, message, signature },
    });
    expect(res.status).toBe(401);
    expect(errorCode(res)).toBe('signature_invalid');
  });
});
