import type { Address, Hex } from 'viem';
import { call } from './http';
import type { DeploymentInfo } from './stack-info';
import type { TestAccount } from './chain';

/** init + personal_sign + finish; returns the access token (throws on any other outcome). */
export async function login(deployment: DeploymentInfo, signer: TestAccount, walletAddress: Address = signer.address): Promise<string> {
  const { message } = await initLogin(deployment, walletAddress);
  const signature = await signer.signMessage({ message });
  const res = await call<{ token: string }>(deployment.baseUrl, '/auth/jwt/finish', {
    method: 'POST',
    json: { walletAddress, chainId: deployment.chainId, signature },
  });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${res.text}`);
  return res.body.token;
}

export async function initLogin(
  deployment: DeploymentInfo,
  walletAddress: string,
  baseUrl = deployment.baseUrl,
  purpose?: 'login' | 'pairing',
): Promise<{ nonce: string; message: string }> {
  const res = await call<{ nonce: string; message: string }>(baseUrl, '/auth/jwt/init', {
    method: 'POST',
    json: { walletAddress, chainId: deployment.chainId, ...(purpose ? { purpose } : {}) },
  });
  if (res.status !== 200) throw new Error(`init failed: ${res.status} ${res.text}`);
  return res.body;
}

export function finish(baseUrl: string, body: { walletAddress: string; chainId: number; signature: Hex | string; nonce?: string }) {
  return call<{ token: string }>(baseUrl, '/auth/jwt/finish', { method: 'POST', json: body });
}

export function agentPath(collection: string, tokenId: bigint | string, rest = ''): string {
  return `/agent/${collection}/${tokenId.toString()}${rest}`;
}

export function verifyWallet(baseUrl: string, body: { walletAddress: string; chainId: number; message: string; signature: Hex | string }) {
  return call<{ verified: true; walletAddress: string; chainId: number }>(baseUrl, '/wallet/verify', { method: 'POST', json: body });
}
