/**
 * The local chains' USDC (our EIP-3009 stand-in placed at USDC's address), against the harness's
 * anvils: name and version per chain, funded dev accounts, signed transfers that move exactly their
 * value once, and every refusal EIP-3009 asks for.
 */
import { type Address, createPublicClient, http, parseSignature } from 'viem';
import { describe, expect, inject, it } from 'vitest';
import { clientsFor } from '../../scripts/lib/contracts';
import { DEV_USDC_FUNDING, usdcAbi } from '../../scripts/lib/contracts-usdc';
import { USDC } from '../../src/chains';
import { fundedWallet, newWallet, type TestAccount } from '../support/chain';
import { fundUsdc, signCancelAuthorization, signTransferAuthorization, usdcBalance } from '../support/x402';

const stack = inject('stack');
const { rpcUrl, chainId } = stack.testnet;
const token = USDC[80002].address;
const reader = createPublicClient({ transport: http(rpcUrl) });

const sign = (signer: TestAccount, to: Address, value: bigint, over: Parameters<typeof signTransferAuthorization>[4] = {}) =>
  signTransferAuthorization(signer, chainId, to, value, over);

async function submit(
  relayer: TestAccount,
  signed: Awaited<ReturnType<typeof sign>>,
  fn: 'transferWithAuthorization' | 'receiveWithAuthorization' = 'transferWithAuthorization',
) {
  const { walletClient, publicClient } = await clientsFor(rpcUrl, relayer.privateKey);
  const { message: m, signature } = signed;
  const { v, r, s } = parseSignature(signature);
  await publicClient.simulateContract({
    account: relayer,
    address: token,
    abi: usdcAbi,
    functionName: fn,
    args: [m.from, m.to, m.value, m.validAfter, m.validBefore, m.nonce, Number(v), r, s],
  });
  const hash = await walletClient.writeContract({
    address: token,
    abi: usdcAbi,
    functionName: fn,
    args: [m.from, m.to, m.value, m.validAfter, m.validBefore, m.nonce, signature],
  });
  return publicClient.waitForTransactionReceipt({ hash });
}

async function payer(): Promise<TestAccount> {
  const wallet = await fundedWallet(rpcUrl);
  await fundUsdc(rpcUrl, chainId, [wallet.address], 5_000_000n);
  return wallet;
}

describe('USDC stand-in', () => {
  it('answers the name and version of the USDC its chain mirrors, 6 decimals', async () => {
    for (const name of ['mainnet', 'testnet'] as const) {
      const d = stack[name];
      const client = createPublicClient({ transport: http(d.rpcUrl) });
      const address = USDC[d.chainId as 137 | 80002].address;
      expect(stack.x402.usdc[name]).toBe(address);
      expect(await client.readContract({ address, abi: usdcAbi, functionName: 'name' })).toBe(USDC[d.chainId as 137 | 80002].name);
      expect(await client.readContract({ address, abi: usdcAbi, functionName: 'version' })).toBe('2');
      expect(await client.readContract({ address, abi: usdcAbi, functionName: 'decimals' })).toBe(6);
      for (const account of stack.accounts) {
        expect(await usdcBalance(d.rpcUrl, d.chainId, account.address)).toBeGreaterThanOrEqual(DEV_USDC_FUNDING / 2n);
      }
    }
  });

  it('moves exactly the signed value once; a replay reverts', async () => {
    const from = await payer();
    const to = newWallet().address;
    const relayer = await fundedWallet(rpcUrl);
    const signed = await sign(from, to, 1_234_567n);
    const receipt = await submit(relayer, signed);
    expect(receipt.status).toBe('success');
    expect(await usdcBalance(rpcUrl, chainId, to)).toBe(1_234_567n);
    expect(await usdcBalance(rpcUrl, chainId, from.address)).toBe(5_000_000n - 1_234_567n);
    expect(
      await reader.readContract({
        address: token,
        abi: usdcAbi,
        functionName: 'authorizationState',
        args: [from.address, signed.message.nonce],
      }),
    ).toBe(true);
    await expect(submit(relayer, signed)).rejects.toThrow(/authorization is used/);
  });

  it('refuses expired, not yet valid, wrongly signed and wrong-chain authorizations', async () => {
    const from = await payer();
    const relayer = await fundedWallet(rpcUrl);
    const to = newWallet().address;
    const now = BigInt(Math.floor(Date.now() / 1000));
    await expect(submit(relayer, await sign(from, to, 1n, { validBefore: 1n }))).rejects.toThrow(/authorization is expired/);
    await expect(submit(relayer, await sign(from, to, 1n, { validAfter: now + 100_000n }))).rejects.toThrow(
      /authorization is not yet valid/,
    );
    await expect(submit(relayer, await sign(newWallet(), to, 1n, { from: from.address }))).rejects.toThrow(/invalid signature/);
    await expect(submit(relayer, await sign(from, to, 1n, { chainId: 137 }))).rejects.toThrow(/invalid signature/);
    await expect(submit(relayer, await sign(from, to, 50_000_000n))).rejects.toThrow(/insufficient balance/);
    expect(await usdcBalance(rpcUrl, chainId, to)).toBe(0n);
  });

  it('cancels an authorization; receiveWithAuthorization is for the payee only', async () => {
    const from = await payer();
    const relayer = await fundedWallet(rpcUrl);
    const to = newWallet().address;
    const signed = await sign(from, to, 10n);
    const cancel = await signCancelAuthorization(from, chainId, signed.message.nonce);
    const { walletClient, publicClient } = await clientsFor(rpcUrl, relayer.privateKey);
    const hash = await walletClient.writeContract({
      address: token,
      abi: usdcAbi,
      functionName: 'cancelAuthorization',
      args: [from.address, signed.message.nonce, cancel],
    });
    expect((await publicClient.waitForTransactionReceipt({ hash })).status).toBe('success');
    await expect(submit(relayer, signed)).rejects.toThrow(/authorization is used/);
    await expect(submit(relayer, await sign(from, to, 10n), 'receiveWithAuthorization')).rejects.toThrow(/caller must be the payee/);
  });
});
