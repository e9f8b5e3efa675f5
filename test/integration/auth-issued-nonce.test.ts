/**
 * A finish that sends its nonce is checked without reading the pending login back from KV:
 * the nonce carries when init issued it and the gateway's tag, so the message is
 * rebuilt. What that must not open: a nonce the gateway did not issue, one issued to another
 * wallet, a replay. Against a worker of its own, whose KV the test can edit.
 */
import { createSiweMessage } from 'viem/siwe';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startMiniflare } from '../../scripts/lib/worker-bundle';
import { STATEMENTS } from '../../src/auth/siwe';
import { newWallet } from '../support/chain';
import { deployment, expectError } from '../support/http';
import { finish, initLogin } from '../support/login';
import { closePg, sql } from '../support/pg';
import { workerBindingsFor } from '../support/worker';

const stack = inject('stack');
const testnet = deployment('testnet');
const chainId = 80002;
let worker: Awaited<ReturnType<typeof startMiniflare>>;

beforeAll(async () => {
  worker = await startMiniflare({ scriptPath: stack.scriptPath, deployment: 'testnet', bindings: workerBindingsFor(stack) });
});

afterAll(async () => {
  await worker?.dispose();
  await closePg();
});

async function consumed(nonce: string): Promise<number> {
  const rows = await sql<{ n: number }>(stack.databaseUrl, 'select count(*)::int as n from gateway.consumed_nonces where key = $1', [
    `nonce:${chainId}:${nonce}`,
  ]);
  return rows[0]!.n;
}

/** A login message as init builds it, for this worker, with any nonce. */
function loginMessage(address: `0x${string}`, nonce: string): string {
  const issuedAt = new Date();
  return createSiweMessage({
    domain: '127.0.0.1',
    uri: 'http://127.0.0.1',
    address,
    chainId,
    nonce,
    issuedAt,
    expirationTime: new Date(issuedAt.getTime() + 300_000),
    version: '1',
    statement: STATEMENTS.login,
  });
}

describe('finish with the nonce init issued', () => {
  it('logs in without the pending login in KV, once (then 401 nonce_used)', async () => {
    const wallet = newWallet();
    const { nonce, message } = await initLogin(testnet, wallet.address, worker.url);
    const kv = await worker.miniflare.getKVNamespace('NONCES');
    const { keys } = await kv.list({ prefix: `login:${chainId}:${wallet.address.toLowerCase()}:` });
    expect(keys.map((k) => k.name)).toEqual([`login:${chainId}:${wallet.address.toLowerCase()}:${nonce}`]);
    await kv.delete(keys[0]!.name);
    const body = { walletAddress: wallet.address, chainId, signature: await wallet.signMessage({ message }), nonce };
    const res = await finish(worker.url, body);
    expect(res.status, res.text).toBe(200);
    expect(res.body.token).toMatch(/^ey/);
    expectError(await finish(worker.url, body), 401, 'nonce_used');
  });

  it('refuses a nonce of the right shape that the gateway did not issue, signed by the wallet itself, and consumes nothing', async () => {
    const wallet = newWallet();
    const forged = `${Date.now().toString(36).padStart(9, '0')}${'ab'.repeat(16)}${'cd'.repeat(16)}`;
    const message = loginMessage(wallet.address, forged);
    const res = await finish(worker.url, {
      walletAddress: wallet.address,
      chainId,
      signature: await wallet.signMessage({ message }),
      nonce: forged,
    });
    expectError(res, 401, 'login_not_started');
    expect(await consumed(forged)).toBe(0);
  });

  it("refuses another wallet's nonce: the nonce names the wallet it was issued to", async () => {
    const victim = newWallet();
    const attacker = newWallet();
    const { nonce } = await initLogin(testnet, victim.address, worker.url);
    const message = loginMessage(attacker.address, nonce);
    const res = await finish(worker.url, {
      walletAddress: attacker.address,
      chainId,
      signature: await attacker.signMessage({ message }),
      nonce,
    });
    expectError(res, 401, 'login_not_started');
    expect(await consumed(nonce)).toBe(0);
  });

  it('refuses a signature over a message that differs from the issued one (another issue time), and consumes nothing', async () => {
    const wallet = newWallet();
    const { nonce, message } = await initLogin(testnet, wallet.address, worker.url);
    const other = message.replace(/Issued At: (.+)/, 'Issued At: 2026-01-01T00:00:00.000Z');
    expect(other).not.toBe(message);
    const res = await finish(worker.url, {
      walletAddress: wallet.address,
      chainId,
      signature: await wallet.signMessage({ message: other }),
      nonce,
    });
    expectError(res, 401, 'signature_invalid');
    expect(await consumed(nonce)).toBe(0);
    const ok = await finish(worker.url, {
      walletAddress: wallet.address,
      chainId,
      signature: await wallet.signMessage({ message }),
      nonce,
    });
    expect(ok.status, ok.text).toBe(200);
  });
});
