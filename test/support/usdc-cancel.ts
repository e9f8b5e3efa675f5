/**
 * Cancelling an EIP-3009 authorization on the local chain's USDC stand-in the way a payer would:
 * the payer signs CancelAuthorization(authorizer, nonce) over USDC's EIP-712 domain and a dev
 * account sends it. The authorization's state is then "used", and no transfer ever happened.
 */
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ANVIL_ACCOUNTS, clientsFor, waitForSuccess } from '../../scripts/lib/contracts';
import { usdcAbi } from '../../scripts/lib/contracts-usdc';
import { type ChainId, USDC } from '../../src/chains';

/** Cancels the authorization `nonce` of the payer (`payerKey`) on `chainId`'s USDC; resolves once mined. */
export async function cancelAuthorization(rpcUrl: string, chainId: number, payerKey: Hex, nonce: Hex): Promise<void> {
  const payer = privateKeyToAccount(payerKey);
  const token = USDC[chainId as ChainId];
  const signature = await payer.signTypedData({
    domain: { name: token.name, version: token.version, chainId, verifyingContract: token.address },
    types: {
      CancelAuthorization: [
        { name: 'authorizer', type: 'address' },
        { name: 'nonce', type: 'bytes32' },
      ],
    },
    primaryType: 'CancelAuthorization',
    message: { authorizer: payer.address, nonce },
  });
  const { walletClient, publicClient } = await clientsFor(rpcUrl, ANVIL_ACCOUNTS[0].privateKey);
  const transaction = await walletClient.writeContract({
    address: token.address,
    abi: usdcAbi,
    functionName: 'cancelAuthorization',
    args: [payer.address, nonce, signature],
  });
  await waitForSuccess(publicClient, transaction, 'USDC cancelAuthorization');
}
