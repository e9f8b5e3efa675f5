/**
 * The delegation side of the local chains: our stand-in for delegate.xyz v2's registry, placed
 * at the registry's canonical address, and the ERC-4907 (rentable) demo collections. Node-only,
 * like contracts.ts: scripts (npm run dev, npm run mint) and tests use it.
 */
import { type Address, type Hex, getAddress } from 'viem';
import { DELEGATE_REGISTRY_ADDRESS, erc4907Abi } from '../../src/chain/delegate-registry-abi';
import { compileContracts } from './contracts-compile';
import { clientsFor, demoAgentsAbi, waitForSuccess } from './contracts';

/** RentableAgents: the demo collection's calls plus ERC-4907, `approve` and the rental event. */
export const rentableAgentsAbi = [
  ...demoAgentsAbi,
  ...erc4907Abi,
  {
    type: 'function',
    name: 'approve',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'to', type: 'address' },
      { name: 'tokenId', type: 'uint256' },
    ],
    outputs: [],
  },
  {
    type: 'event',
    name: 'UpdateUser',
    anonymous: false,
    inputs: [
      { name: 'tokenId', type: 'uint256', indexed: true },
      { name: 'user', type: 'address', indexed: true },
      { name: 'expires', type: 'uint64', indexed: false },
    ],
  },
  { type: 'error', name: 'NotRentable', inputs: [{ name: 'tokenId', type: 'uint256' }] },
] as const;

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

/** The runtime code at `address` ('0x' when none). */
export async function codeAt(rpcUrl: string, address: Address): Promise<Hex> {
  return (await rpc(rpcUrl, 'eth_getCode', [address, 'latest'])) as Hex;
}

/** anvil_setCode: `code` ('0x' for none) at `address`; the address's storage stays as it was. */
export async function setCodeAt(rpcUrl: string, address: Address, code: Hex): Promise<void> {
  await rpc(rpcUrl, 'anvil_setCode', [address, code]);
}

/**
 * Places our DelegateRegistryStandIn's runtime code at delegate.xyz v2's canonical address
 * (anvil_setCode, no deployment). A kept chain gets the current code too; its delegations, in
 * the address's storage, stay.
 */
export async function installDelegateRegistry(rpcUrl: string): Promise<Address> {
  const { DelegateRegistryStandIn } = await compileContracts();
  if ((await codeAt(rpcUrl, DELEGATE_REGISTRY_ADDRESS)) !== DelegateRegistryStandIn.runtime) {
    await setCodeAt(rpcUrl, DELEGATE_REGISTRY_ADDRESS, DelegateRegistryStandIn.runtime);
  }
  return DELEGATE_REGISTRY_ADDRESS;
}

/** Deploy RentableAgents (DemoAgents plus ERC-4907) and return its address. */
export function deployRentableAgents(rpcUrl: string, deployerPrivateKey: Hex): Promise<Address> {
  return deploy(rpcUrl, deployerPrivateKey, 'RentableAgents');
}

/** Deploy LyingRentableAgents (claims ERC-4907, `userOf` reverts; fault tests) and return its address. */
export function deployLyingRentableAgents(rpcUrl: string, deployerPrivateKey: Hex): Promise<Address> {
  return deploy(rpcUrl, deployerPrivateKey, 'LyingRentableAgents');
}

async function deploy(rpcUrl: string, deployerPrivateKey: Hex, name: 'RentableAgents' | 'LyingRentableAgents'): Promise<Address> {
  const { bytecode } = (await compileContracts())[name];
  const { walletClient, publicClient } = await clientsFor(rpcUrl, deployerPrivateKey);
  const hash = await walletClient.deployContract({ abi: rentableAgentsAbi, bytecode });
  const receipt = await waitForSuccess(publicClient, hash, `${name} deployment`);
  if (!receipt.contractAddress) throw new Error(`${name} deployment has no contract address (tx ${hash})`);
  return getAddress(receipt.contractAddress);
}

/**
 * ERC-4907 `setUser(tokenId, user, expires)` signed by `ownerPrivateKey` (the token's owner or an
 * approved wallet): `user` may use the token while the chain's time is at most `expires`.
 */
export async function setUser(
  rpcUrl: string,
  ownerPrivateKey: Hex,
  collection: Address,
  tokenId: bigint,
  user: Address,
  expires: bigint,
): Promise<void> {
  const { walletClient, publicClient } = await clientsFor(rpcUrl, ownerPrivateKey);
  const hash = await walletClient.writeContract({
    address: collection,
    abi: rentableAgentsAbi,
    functionName: 'setUser',
    args: [tokenId, user, expires],
  });
  await waitForSuccess(publicClient, hash, `setUser(${tokenId}, ${user}, ${expires})`);
}
