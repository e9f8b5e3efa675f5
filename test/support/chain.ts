import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { createPublicClient, createWalletClient, getAddress, http, type Address, type Hex } from 'viem';
import { demoAgentsAbi, deployTestWallet, mintAgent, transferAgent } from '../../scripts/lib/contracts';
import type { DeploymentInfo } from './stack-info';

export type TestAccount = PrivateKeyAccount & { privateKey: Hex };

/** A fresh wallet nobody else uses: tests own their data. */
export function newWallet(): TestAccount {
  const privateKey = generatePrivateKey();
  return Object.assign(privateKeyToAccount(privateKey), { privateKey });
}

async function rpc(rpcUrl: string, method: string, params: unknown[]): Promise<unknown> {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/**
 * A fresh account with gas money (anvil_setBalance): every test file sends its own transactions,
 * so parallel files never race on one sender's nonce.
 */
export async function fundedWallet(rpcUrl: string): Promise<TestAccount> {
  const wallet = newWallet();
  await rpc(rpcUrl, 'anvil_setBalance', [wallet.address, '0x56BC75E2D63100000']); // 100 ETH
  return wallet;
}

let counter = 0n;
/** A token id no other test uses. */
export function freshTokenId(): bigint {
  counter += 1n;
  return (BigInt(Date.now()) << 24n) + (BigInt(process.pid) << 8n) * 1000n + counter;
}

/** Mints a new agent of the deployment's demo collection to `owner`; returns its token id. */
export async function mintFreshAgent(deployment: DeploymentInfo, owner: Address, collection = deployment.collection): Promise<bigint> {
  const minter = await fundedWallet(deployment.rpcUrl);
  const tokenId = freshTokenId();
  await mintAgent(deployment.rpcUrl, minter.privateKey, collection as Address, owner, tokenId);
  return tokenId;
}

/** Mints `count` fresh tokens of `collection` to `to` from one funded minter, without a round trip per receipt. */
export async function mintAgents(d: DeploymentInfo, to: Address, count: number, collection = d.collection as Address): Promise<bigint[]> {
  const minter = await fundedWallet(d.rpcUrl);
  const chain = {
    id: d.chainId,
    name: 'dev',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [d.rpcUrl] } },
  };
  const wallet = createWalletClient({ account: minter, chain, transport: http(d.rpcUrl) });
  const reader = createPublicClient({ chain, transport: http(d.rpcUrl) });
  const tokenIds = Array.from({ length: count }, () => freshTokenId());
  let nonce = await reader.getTransactionCount({ address: minter.address, blockTag: 'pending' });
  let last: `0x${string}` | undefined;
  for (const tokenId of tokenIds) {
    last = await wallet.writeContract({
      address: collection,
      abi: demoAgentsAbi,
      functionName: 'mint',
      args: [to, tokenId],
      nonce: nonce++,
      gas: 300_000n,
    });
  }
  if (last && (await reader.waitForTransactionReceipt({ hash: last, pollingInterval: 50 })).status !== 'success') {
    throw new Error(`minting ${count} agents: the last mint reverted (tx ${last})`);
  }
  return tokenIds;
}

export async function transferFreshAgent(deployment: DeploymentInfo, from: TestAccount, to: Address, tokenId: bigint): Promise<void> {
  await rpc(deployment.rpcUrl, 'anvil_setBalance', [from.address, '0x56BC75E2D63100000']);
  await transferAgent(deployment.rpcUrl, from.privateKey, deployment.collection as Address, from.address, to, tokenId);
}

/** Deploys a minimal ERC-1271 smart-contract wallet owned by `owner`. */
export async function deploySmartWallet(deployment: DeploymentInfo, owner: Address): Promise<Address> {
  const deployer = await fundedWallet(deployment.rpcUrl);
  return deployTestWallet(deployment.rpcUrl, deployer.privateKey, owner);
}

/** A checksummed address with one letter's case flipped: same hex, invalid EIP-55 checksum. */
export function flipCaseOfFirstLetter(address: string): string {
  const i = address.slice(2).search(/[a-fA-F]/) + 2;
  if (i < 2) throw new Error(`no letter to flip in ${address}`);
  const c = address[i]!;
  const flipped = address.slice(0, i) + (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()) + address.slice(i + 1);
  if (flipped === getAddress(flipped.toLowerCase())) throw new Error('flip kept a valid checksum');
  return flipped;
}
