/**
 * The local x402 facilitator the harness started, driven as a resource server drives it: payloads
 * built by @x402/core's client for real requirements (USDC on the testnet chain), verified,
 * settled on chain with balances moved exactly, and refused when replayed, underpaid or paid to
 * someone else; a malformed body is a 400.
 */
import { x402Client } from '@x402/core/client';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { createPublicClient, type Hex, http } from 'viem';
import { describe, expect, inject, it } from 'vitest';
import { USDC } from '../../src/chains';
import { fundedWallet, newWallet, type TestAccount } from '../support/chain';
import { fundUsdc, usdcAssets, usdcBalance } from '../support/x402';

const stack = inject('stack');
const { rpcUrl, chainId } = stack.testnet;
const network = `eip155:${chainId}` as const;
const base = stack.x402.facilitatorUrl;

function requirements(payTo: string, amount: string): PaymentRequirements {
  const token = USDC[80002];
  return {
    scheme: 'exact',
    network,
    asset: token.address,
    amount,
    payTo,
    maxTimeoutSeconds: 300,
    extra: { name: token.name, version: token.version },
  };
}

async function payload(wallet: TestAccount, req: PaymentRequirements): Promise<PaymentPayload> {
  const client = new x402Client().register(network, new ExactEvmScheme(wallet)).setSpendControls({ allowedAssets: usdcAssets() });
  return client.createPaymentPayload({
    x402Version: 2,
    resource: { url: 'http://127.0.0.1/paid', description: 'test', mimeType: 'application/json' },
    accepts: [req],
  });
}

async function post(path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

const call = (path: '/verify' | '/settle', paymentPayload: PaymentPayload, paymentRequirements: PaymentRequirements) =>
  post(path, { x402Version: 2, paymentPayload, paymentRequirements });

async function payer(): Promise<TestAccount> {
  const wallet = await fundedWallet(rpcUrl);
  await fundUsdc(rpcUrl, chainId, [wallet.address], 1_000_000n);
  return wallet;
}

describe('x402 facilitator (local)', () => {
  it('lists both local networks for the exact scheme', async () => {
    const res = await fetch(`${base}/supported`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { kinds: { scheme: string; network: string; x402Version: number }[] };
    const networks = body.kinds.filter((k) => k.scheme === 'exact' && k.x402Version === 2).map((k) => k.network);
    expect(networks).toEqual(expect.arrayContaining(['eip155:137', 'eip155:80002']));
  });

  it('verifies, settles on chain moving exactly the amount, then refuses the settled payload', async () => {
    const wallet = await payer();
    const payTo = newWallet().address;
    const req = requirements(payTo, '10000');
    const paid = await payload(wallet, req);
    const verified = await call('/verify', paid, req);
    expect(verified).toMatchObject({ status: 200, json: { isValid: true } });
    const settled = await call('/settle', paid, req);
    expect(settled.status).toBe(200);
    expect(settled.json).toMatchObject({ success: true, network });
    expect((settled.json.payer as string).toLowerCase()).toBe(wallet.address.toLowerCase());
    const receipt = await createPublicClient({ transport: http(rpcUrl) }).getTransactionReceipt({ hash: settled.json.transaction as Hex });
    expect(receipt.status).toBe('success');
    expect(await usdcBalance(rpcUrl, chainId, payTo)).toBe(10_000n);
    expect(await usdcBalance(rpcUrl, chainId, wallet.address)).toBe(990_000n);
    expect(await call('/verify', paid, req)).toMatchObject({ status: 200, json: { isValid: false } });
    expect(await call('/settle', paid, req)).toMatchObject({ status: 200, json: { success: false } });
    expect(await usdcBalance(rpcUrl, chainId, payTo)).toBe(10_000n);
  });

  it('refuses an underpaid payload and one paying someone else', async () => {
    const wallet = await payer();
    const payTo = newWallet().address;
    const cheap = await payload(wallet, requirements(payTo, '100'));
    expect(await call('/verify', cheap, requirements(payTo, '10000'))).toMatchObject({ status: 200, json: { isValid: false } });
    const elsewhere = await payload(wallet, requirements(newWallet().address, '10000'));
    expect(await call('/verify', elsewhere, requirements(payTo, '10000'))).toMatchObject({ status: 200, json: { isValid: false } });
    expect(await usdcBalance(rpcUrl, chainId, payTo)).toBe(0n);
  });

  it('answers 400 to a malformed body or an unserved network, 413 to an oversized body', async () => {
    expect((await post('/verify', '{not json')).status).toBe(400);
    expect((await post('/settle', { x402Version: 2, paymentPayload: 'x' })).status).toBe(400);
    expect((await post('/verify', 'x'.repeat(70_000))).status).toBe(413);
    const other = { ...requirements(newWallet().address, '1'), network: 'eip155:1' };
    expect(
      await post('/verify', {
        x402Version: 2,
        paymentPayload: { x402Version: 2, accepted: other, payload: {} },
        paymentRequirements: other,
      }),
    ).toEqual({
      status: 400,
      json: { error: 'unsupported_scheme_or_network' },
    });
  });
});
