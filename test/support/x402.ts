/**
 * Paying with x402 from tests: USDC balances and funding on the harness's chains, a fetch that
 * answers 402s by signing an `exact` payment with a wallet's key, and the settlement answer
 * (PAYMENT-RESPONSE) decoded.
 */
import { x402Client, x402HTTPClient } from '@x402/core/client';
import { decodePaymentResponseHeader } from '@x402/core/http';
import type { SettleResponse } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { type Address, type Hex, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { type ChainId, USDC } from '../../src/chains';
import { ANVIL_ACCOUNTS, clientsFor, waitForSuccess } from '../../scripts/lib/contracts';
import { fundUsdc as fund, usdcAbi, usdcBalance as balance } from '../../scripts/lib/contracts-usdc';

/** USDC (6-decimal units) held by `address` on the local chain. */
export function usdcBalance(rpcUrl: string, chainId: number, address: string): Promise<bigint> {
  return balance(rpcUrl, chainId, address as Address);
}

/** Tops each address up to `amount` USDC units (the stand-in's open mint). */
export function fundUsdc(rpcUrl: string, chainId: number, addresses: readonly string[], amount: bigint): Promise<void> {
  return fund(rpcUrl, chainId, addresses as Address[], amount);
}

/**
 * A fetch that pays: on a 402 it signs an EIP-3009 authorization with `privateKey` for the
 * offered `exact` requirement (on `chainId`'s network when given, else any eip155 network) and
 * retries with PAYMENT-SIGNATURE.
 */
export function payingFetch(privateKey: Hex, chainId?: number): typeof fetch {
  const account = privateKeyToAccount(privateKey);
  // The library allows only the tokens it knows by default: our chains' USDC addresses are listed.
  const client = new x402Client()
    .register(chainId ? `eip155:${chainId}` : 'eip155:*', new ExactEvmScheme(account))
    .setSpendControls({ allowedAssets: usdcAssets() });
  return wrapFetchWithPayment(fetch, client) as typeof fetch;
}

/** USDC on each local chain, as the x402 client's spend controls list assets. */
export function usdcAssets(): { network: `eip155:${number}`; asset: string }[] {
  return Object.entries(USDC).map(([id, token]) => ({ network: `eip155:${Number(id)}`, asset: token.address }));
}

/** The decoded PAYMENT-RESPONSE header of `res`, or undefined when there is none. */
export function readPaymentResponse(res: Response): SettleResponse | undefined {
  const header = res.headers.get('payment-response');
  return header ? decodePaymentResponseHeader(header) : undefined;
}

/**
 * The PAYMENT-SIGNATURE header for the terms of a 402's PAYMENT-REQUIRED (`headers`), signed with
 * `privateKey` and not sent: to send one signature twice, or through another client.
 */
export async function signPayment(privateKey: Hex, headers: Headers): Promise<Record<string, string>> {
  const x402 = new x402Client()
    .register('eip155:*', new ExactEvmScheme(privateKeyToAccount(privateKey)))
    .setSpendControls({ allowedAssets: usdcAssets() });
  const client = new x402HTTPClient(x402);
  const required = client.getPaymentRequiredResponse((name) => headers.get(name));
  return client.encodePaymentSignatureHeader(await client.createPaymentPayload(required));
}

/**
 * Moves `value` USDC units from the payer (`payerKey`) to `to` on the local chain the way x402
 * does, with an EIP-3009 transferWithAuthorization the payer signs (a fresh random nonce unless
 * given) and a dev account sends. Resolves with the nonce and the transaction.
 */
export async function transferWithAuthorization(
  rpcUrl: string,
  chainId: number,
  payerKey: Hex,
  to: Address,
  value: bigint,
  nonce: Hex = toHex(crypto.getRandomValues(new Uint8Array(32))),
): Promise<{ nonce: Hex; transaction: Hex }> {
  const payer = privateKeyToAccount(payerKey);
  const token = USDC[chainId as ChainId];
  const authorization = { from: payer.address, to, value, validAfter: 0n, validBefore: BigInt(Math.floor(Date.now() / 1000) + 600), nonce };
  const signature = await payer.signTypedData({
    domain: { name: token.name, version: token.version, chainId, verifyingContract: token.address },
    types: {
      TransferWithAuthorization: [
        { name: 'from', type: 'address' },
        { name: 'to', type: 'address' },
        { name: 'value', type: 'uint256' },
        { name: 'validAfter', type: 'uint256' },
        { name: 'validBefore', type: 'uint256' },
        { name: 'nonce', type: 'bytes32' },
      ],
    },
    primaryType: 'TransferWithAuthorization',
    message: authorization,
  });
  const { walletClient, publicClient } = await clientsFor(rpcUrl, ANVIL_ACCOUNTS[0].privateKey);
  const transaction = await walletClient.writeContract({
    address: token.address,
    abi: usdcAbi,
    functionName: 'transferWithAuthorization',
    args: [authorization.from, to, value, authorization.validAfter, authorization.validBefore, nonce, signature],
  });
  await waitForSuccess(publicClient, transaction, 'USDC transferWithAuthorization');
  return { nonce, transaction };
}
