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
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { type ChainId, USDC } from '../../src/chains';
import { ANVIL_ACCOUNTS, clientsFor, waitForSuccess } from '../../scripts/lib/contracts';
import { newWallet, type TestAccount } from './chain';
import { agentPath } from './login';
import { replyAgent } from './replies';
import type { DeploymentInfo } from './stack-info';
import { fundUsdc as fund, usdcAbi, usdcBalance as balance } from '../../scripts/lib/contracts-usdc';

/** USDC (6-decimal units) held by `address` on the local chain. */
export function usdcBalance(rpcUrl: string, chainId: number, address: string): Promise<bigint> {
  return balance(rpcUrl, chainId, address as Address);
}

/** Tops each address up to `amount` USDC units (the stand-in's open mint). */
export function fundUsdc(rpcUrl: string, chainId: number, addresses: readonly string[], amount: bigint): Promise<void> {
  return fund(rpcUrl, chainId, addresses as Address[], amount);
}

/** A fresh wallet holding `units` USDC (1 USDC unless told) on the local chain: its balance is its own. */
export async function fundedPayer(deployment: DeploymentInfo, units = 1_000_000n): Promise<TestAccount> {
  const wallet = newWallet();
  await fundUsdc(deployment.rpcUrl, deployment.chainId, [wallet.address], units);
  return wallet;
}

/**
 * A fresh agent on the stand-in model (replyAgent) whose owner set `pricing` (0.01 USD unless told),
 * with the URL of its paid route on the deployment's worker.
 */
export async function pricedAgent(deployment: DeploymentInfo, apiKey: string, pricing: Record<string, unknown> = { askUsd: '0.01' }) {
  const agent = await replyAgent(deployment, apiKey, { pricing });
  return Object.assign(agent, { url: `${deployment.baseUrl}${agentPath(agent.collection, agent.tokenId, '/paid/ask')}` });
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

/** The EIP-712 domain of `chainId`'s USDC (signed for `signedChainId` when another chain is named, to be refused). */
function usdcDomain(chainId: number, signedChainId = chainId) {
  const token = USDC[chainId as ChainId];
  return { name: token.name, version: token.version, chainId: signedChainId, verifyingContract: token.address };
}

/** EIP-3009's TransferWithAuthorization, as EIP-712 types. */
const TRANSFER_WITH_AUTHORIZATION = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

/**
 * An EIP-3009 transfer authorization of `value` USDC units from `signer` to `to` on `chainId`'s
 * USDC, signed (valid from 0 for an hour, a random nonce, unless `over` says otherwise; `over.from`
 * names another authorizer, `over.chainId` another chain in the signed domain).
 */
export async function signTransferAuthorization(
  signer: PrivateKeyAccount,
  chainId: number,
  to: Address,
  value: bigint,
  over: { validAfter?: bigint; validBefore?: bigint; nonce?: Hex; chainId?: number; from?: Address } = {},
) {
  const message = {
    from: over.from ?? signer.address,
    to,
    value,
    validAfter: over.validAfter ?? 0n,
    validBefore: over.validBefore ?? BigInt(Math.floor(Date.now() / 1000) + 3600),
    nonce: over.nonce ?? toHex(crypto.getRandomValues(new Uint8Array(32))),
  };
  const signature = await signer.signTypedData({
    domain: usdcDomain(chainId, over.chainId),
    types: TRANSFER_WITH_AUTHORIZATION,
    primaryType: 'TransferWithAuthorization',
    message,
  });
  return { message, signature };
}

/**
 * Moves `value` USDC units from the payer (`payerKey`) to `to` on the local chain the way x402
 * does: an EIP-3009 transferWithAuthorization the payer signs (signTransferAuthorization) and a
 * dev account sends. Resolves with the nonce and the transaction.
 */
export async function transferWithAuthorization(
  rpcUrl: string,
  chainId: number,
  payerKey: Hex,
  to: Address,
  value: bigint,
): Promise<{ nonce: Hex; transaction: Hex }> {
  const { message: m, signature } = await signTransferAuthorization(privateKeyToAccount(payerKey), chainId, to, value);
  const { walletClient, publicClient } = await clientsFor(rpcUrl, ANVIL_ACCOUNTS[0].privateKey);
  const transaction = await walletClient.writeContract({
    address: USDC[chainId as ChainId].address,
    abi: usdcAbi,
    functionName: 'transferWithAuthorization',
    args: [m.from, m.to, m.value, m.validAfter, m.validBefore, m.nonce, signature],
  });
  await waitForSuccess(publicClient, transaction, 'USDC transferWithAuthorization');
  return { nonce: m.nonce, transaction };
}

/** The payer's EIP-3009 CancelAuthorization(authorizer, nonce) signature over `chainId`'s USDC domain. */
export function signCancelAuthorization(signer: PrivateKeyAccount, chainId: number, nonce: Hex): Promise<Hex> {
  return signer.signTypedData({
    domain: usdcDomain(chainId),
    types: {
      CancelAuthorization: [
        { name: 'authorizer', type: 'address' },
        { name: 'nonce', type: 'bytes32' },
      ],
    },
    primaryType: 'CancelAuthorization',
    message: { authorizer: signer.address, nonce },
  });
}

/**
 * Cancels the payer's (`payerKey`) authorization `nonce` on `chainId`'s USDC the way a payer would:
 * signCancelAuthorization, sent by a dev account; resolves once mined. The authorization's state is
 * then "used", and no transfer ever happened.
 */
export async function cancelAuthorization(rpcUrl: string, chainId: number, payerKey: Hex, nonce: Hex): Promise<void> {
  const payer = privateKeyToAccount(payerKey);
  const signature = await signCancelAuthorization(payer, chainId, nonce);
  const { walletClient, publicClient } = await clientsFor(rpcUrl, ANVIL_ACCOUNTS[0].privateKey);
  const transaction = await walletClient.writeContract({
    address: USDC[chainId as ChainId].address,
    abi: usdcAbi,
    functionName: 'cancelAuthorization',
    args: [payer.address, nonce, signature],
  });
  await waitForSuccess(publicClient, transaction, 'USDC cancelAuthorization');
}
