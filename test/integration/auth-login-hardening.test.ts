/**
 * Login that cannot be hijacked or jammed: login and pairing messages never cross,
 * one nonce namespace for both, several pending logins per wallet, and a finish that checks the
 * signature before it consumes anything.
 */
import { createSiweMessage } from 'viem/siwe';
import { describe, expect, it } from 'vitest';
import { STATEMENTS } from '../../src/auth/siwe';
import { newWallet } from '../support/chain';
import { deployment, expectError } from '../support/http';
import { finish, initLogin, verifyWallet } from '../support/login';

const testnet = deployment('testnet');
const chainId = 80002;

describe('login and pairing messages never cross', () => {
  it('init with purpose "pairing" hands out a pairing message that /wallet/verify accepts once', async () => {
    const wallet = newWallet();
    const { nonce, message } = await initLogin(testnet, wallet.address, testnet.baseUrl, 'pairing');
    expect(message.split('\n')[3]).toBe(STATEMENTS.pairing);
    expect(message).toContain(`Nonce: ${nonce}\n`);
    const body = { walletAddress: wallet.address, chainId, message, signature: await wallet.signMessage({ message }) };
    const res = await verifyWallet(testnet.baseUrl, body);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ verified: true, walletAddress: wallet.address, chainId });
    expectError(await verifyWallet(testnet.baseUrl, body), 401, 'nonce_used');
  });

  it('a login message at /wallet/verify is refused (401 message_purpose_mismatch) and stays usable for its login', async () => {
    const wallet = newWallet();
    const { message } = await initLogin(testnet, wallet.address);
    expect(message.split('\n')[3]).toBe(STATEMENTS.login);
    const signature = await wallet.signMessage({ message });
    expectError(
      await verifyWallet(testnet.baseUrl, { walletAddress: wallet.address, chainId, message, signature }),
      401,
      'message_purpose_mismatch',
    );
    const login = await finish(testnet.baseUrl, { walletAddress: wallet.address, chainId, signature });
    expect(login.status, login.text).toBe(200);
  });

  it('a message without the pairing statement at /wallet/verify is refused (401 message_purpose_mismatch)', async () => {
    const wallet = newWallet();
    const { message: pairing } = await initLogin(testnet, wallet.address, testnet.baseUrl, 'pairing');
    const message = pairing.replace(`${STATEMENTS.pairing}\n\n`, '');
    expect(message).not.toContain(STATEMENTS.pairing);
    expectError(
      await verifyWallet(testnet.baseUrl, {
        walletAddress: wallet.address,
        chainId,
        message,
        signature: await wallet.signMessage({ message }),
      }),
      401,
      'message_purpose_mismatch',
    );
  });

  it('a signature over a pairing message does not log in (401 signature_invalid), and consumes nothing', async () => {
    const wallet = newWallet();
    const login = await initLogin(testnet, wallet.address);
    const pairing = await initLogin(testnet, wallet.address, testnet.baseUrl, 'pairing');
    const pairingSignature = await wallet.signMessage({ message: pairing.message });
    expectError(
      await finish(testnet.baseUrl, { walletAddress: wallet.address, chainId, signature: pairingSignature }),
      401,
      'signature_invalid',
    );
    // naming the pairing nonce does not help: only login messages are pending logins
    expectError(
      await finish(testnet.baseUrl, { walletAddress: wallet.address, chainId, signature: pairingSignature, nonce: pairing.nonce }),
      401,
      'login_not_started',
    );
    // both messages are still good for their own purpose
    const pairingBody = { walletAddress: wallet.address, chainId, message: pairing.message, signature: pairingSignature };
    expect((await verifyWallet(testnet.baseUrl, pairingBody)).status).toBe(200);
    const ok = await finish(testnet.baseUrl, {
      walletAddress: wallet.address,
      chainId,
      signature: await wallet.signMessage({ message: login.message }),
    });
    expect(ok.status, ok.text).toBe(200);
  });

  it('one nonce namespace: a nonce used for pairing is used for login too (401 nonce_used)', async () => {
    const wallet = newWallet();
    const login = await initLogin(testnet, wallet.address);
    const origin = new URL(testnet.baseUrl);
    // a bridge-built pairing message that reuses the login's nonce
    const pairing = createSiweMessage({
      statement: STATEMENTS.pairing,
      domain: origin.host,
      uri: testnet.baseUrl,
      address: wallet.address,
      chainId,
      nonce: login.nonce,
      version: '1',
      issuedAt: new Date(),
    });
    const paired = await verifyWallet(testnet.baseUrl, {
      walletAddress: wallet.address,
      chainId,
      message: pairing,
      signature: await wallet.signMessage({ message: pairing }),
    });
    expect(paired.status, paired.text).toBe(200);
    expectError(
      await finish(testnet.baseUrl, {
        walletAddress: wallet.address,
        chainId,
        signature: await wallet.signMessage({ message: login.message }),
      }),
      401,
      'nonce_used',
    );
  });
});

describe("nobody can jam a wallet's login", () => {
  it('5 inits by someone else after mine: my finish still logs in (200), with or without the nonce', async () => {
    const wallet = newWallet();
    const mine = await initLogin(testnet, wallet.address);
    const second = await initLogin(testnet, wallet.address);
    for (let i = 0; i < 5; i += 1) await initLogin(testnet, wallet.address);
    const res = await finish(testnet.baseUrl, {
      walletAddress: wallet.address,
      chainId,
      signature: await wallet.signMessage({ message: mine.message }),
    });
    expect(res.status, res.text).toBe(200);
    const direct = await finish(testnet.baseUrl, {
      walletAddress: wallet.address,
      chainId,
      signature: await wallet.signMessage({ message: second.message }),
      nonce: second.nonce,
    });
    expect(direct.status, direct.text).toBe(200);
  });

  it('concurrent inits of one wallet all succeed (one KV key per message)', async () => {
    const wallet = newWallet();
    const challenges = await Promise.all(Array.from({ length: 5 }, () => initLogin(testnet, wallet.address)));
    expect(new Set(challenges.map((c) => c.nonce)).size).toBe(5);
  });

  it('a garbage-signature finish consumes nothing (401 signature_invalid): my finish then logs in (200)', async () => {
    const wallet = newWallet();
    const { message } = await initLogin(testnet, wallet.address);
    const garbage = `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(65))).toString('hex')}`;
    expectError(await finish(testnet.baseUrl, { walletAddress: wallet.address, chainId, signature: garbage }), 401, 'signature_invalid');
    const res = await finish(testnet.baseUrl, { walletAddress: wallet.address, chainId, signature: await wallet.signMessage({ message }) });
    expect(res.status, res.text).toBe(200);
  });

  it('refuses a replay after success (401 nonce_used), with or without the nonce', async () => {
    const wallet = newWallet();
    const { nonce, message } = await initLogin(testnet, wallet.address);
    const signature = await wallet.signMessage({ message });
    expect((await finish(testnet.baseUrl, { walletAddress: wallet.address, chainId, signature, nonce })).status).toBe(200);
    expectError(await finish(testnet.baseUrl, { walletAddress: wallet.address, chainId, signature }), 401, 'nonce_used');
    expectError(await finish(testnet.baseUrl, { walletAddress: wallet.address, chainId, signature, nonce }), 401, 'nonce_used');
  });

  it('20 concurrent finishes of one signature give exactly one 200 (the rest 401 nonce_used)', async () => {
    const wallet = newWallet();
    const { message } = await initLogin(testnet, wallet.address);
    for (let i = 0; i < 3; i += 1) await initLogin(testnet, wallet.address);
    const signature = await wallet.signMessage({ message });
    const results = await Promise.all(
      Array.from({ length: 20 }, () => finish(testnet.baseUrl, { walletAddress: wallet.address, chainId, signature })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 200)) expectError(r, 401, 'nonce_used');
  });

  it('a nonce that is not a pending login of this wallet is 401 login_not_started; a malformed one 400', async () => {
    const wallet = newWallet();
    const { message } = await initLogin(testnet, wallet.address);
    const signature = await wallet.signMessage({ message });
    const other = await initLogin(testnet, newWallet().address);
    expectError(
      await finish(testnet.baseUrl, { walletAddress: wallet.address, chainId, signature, nonce: other.nonce }),
      401,
      'login_not_started',
    );
    expectError(
      await finish(testnet.baseUrl, { walletAddress: wallet.address, chainId, signature, nonce: 'not-a-nonce!' }),
      400,
      'validation_failed',
    );
  });
});
