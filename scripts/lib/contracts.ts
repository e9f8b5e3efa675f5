/**
 * Node-only helpers for the dev/test Solidity contracts in `contracts/`:
 * compile (solc-js, cached on disk: contracts-compile.ts), deploy, mint and transfer with viem.
 * The delegate registry stand-in and the rentable collections: contracts-delegation.ts.
 *
 * Not for the Worker bundle: uses node:fs, node:os and the solc npm package.
 */
import {
  type Address,
  type Chain,
  type Hex,
  type HttpTransport,
  type PublicClient,
  type WalletClient,
  createPublicClient,
  createWalletClient,
  defineChain,
  getAddress,
  http,
} from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { getChainId } from 'viem/actions';
import { erc721ReadAbi } from '../../src/chain/erc721-abi';
import { compileContracts } from './contracts-compile';

// ---------------------------------------------------------------------------
// Well-known anvil dev accounts
// ---------------------------------------------------------------------------

/**
 * First three default anvil/hardhat accounts
 * (mnemonic "test test test test test test test test test test test junk").
 * Public, pre-funded on dev chains only. Never use on a real network.
 */
export const ANVIL_ACCOUNTS = [
  {
    address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    privateKey: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  },
  {
    address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    privateKey: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  },
  {
    address: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
    privateKey: '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  },
] as const satisfies readonly { address: Address; privateKey: Hex }[];

// ---------------------------------------------------------------------------
// Typed ABIs (hand-written subsets; checked against the compiled ABI in tests)
// ---------------------------------------------------------------------------

/**
 * Subset of the DemoAgents ABI used by the gateway, scripts and tests, incl. all custom errors: the
 * gateway's own ERC-721 reads (src/chain/erc721-abi.ts) and what the scripts and tests add.
 */
export const demoAgentsAbi = [
  ...erc721ReadAbi,
  {
    type: 'function',
    name: 'name',
    stateMutability: 'pure',
    inputs: [],
    outputs: [{ name: '', type: 'string' }],
  },
  {
    type: 'function',
    name: 'symbol',
    stateMutability: 'pure',
    inputs: [],
    outputs: [{ name: '', type: 'string' }],
  },
  {
    type: 'function',
    name: 'mint',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'to', type: 'address' },
      { name: 'tokenId', type: 'uint256' },
    ],
    outputs: [],
  },
  {
    type: 'function',
    name: 'transferFrom',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'from', type: 'address' },
      { name: 'to', type: 'address' },
      { name: 'tokenId', type: 'uint256' },
    ],
    outputs: [],
  },
  {
    type: 'function',
    name: 'safeTransferFrom',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'from', type: 'address' },
      { name: 'to', type: 'address' },
      { name: 'tokenId', type: 'uint256' },
    ],
    outputs: [],
  },
  {
    type: 'function',
    name: 'safeTransferFrom',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'from', type: 'address' },
      { name: 'to', type: 'address' },
      { name: 'tokenId', type: 'uint256' },
      { name: 'data', type: 'bytes' },
    ],
    outputs: [],
  },
  {
    type: 'event',
    name: 'Transfer',
    anonymous: false,
    inputs: [
      { name: 'from', type: 'address', indexed: true },
      { name: 'to', type: 'address', indexed: true },
      { name: 'tokenId', type: 'uint256', indexed: true },
    ],
  },
  { type: 'error', name: 'ERC721InvalidOwner', inputs: [{ name: 'owner', type: 'address' }] },
  { type: 'error', name: 'ERC721NonexistentToken', inputs: [{ name: 'tokenId', type: 'uint256' }] },
  {
    type: 'error',
    name: 'ERC721IncorrectOwner',
    inputs: [
      { name: 'sender', type: 'address' },
      { name: 'tokenId', type: 'uint256' },
      { name: 'owner', type: 'address' },
    ],
  },
  { type: 'error', name: 'ERC721InvalidSender', inputs: [{ name: 'sender', type: 'address' }] },
  { type: 'error', name: 'ERC721InvalidReceiver', inputs: [{ name: 'receiver', type: 'address' }] },
  {
    type: 'error',
    name: 'ERC721InsufficientApproval',
    inputs: [
      { name: 'operator', type: 'address' },
      { name: 'tokenId', type: 'uint256' },
    ],
  },
  { type: 'error', name: 'ERC721InvalidApprover', inputs: [{ name: 'approver', type: 'address' }] },
  { type: 'error', name: 'ERC721InvalidOperator', inputs: [{ name: 'operator', type: 'address' }] },
  {
    type: 'error',
    name: 'ERC721OutOfBoundsIndex',
    inputs: [
      { name: 'owner', type: 'address' },
      { name: 'index', type: 'uint256' },
    ],
  },
] as const;

/** TestWallet1271 ABI subset: constructor, ERC-1271 check, owner, ERC-721 receiver hook. */
export const testWalletAbi = [
  {
    type: 'constructor',
    stateMutability: 'nonpayable',
    inputs: [{ name: 'owner_', type: 'address' }],
  },
  {
    type: 'function',
    name: 'isValidSignature',
    stateMutability: 'view',
    inputs: [
      { name: 'hash', type: 'bytes32' },
      { name: 'signature', type: 'bytes' },
    ],
    outputs: [{ name: '', type: 'bytes4' }],
  },
  {
    type: 'function',
    name: 'owner',
    stateMutability: 'view',
    inputs: [],
    outputs: [{ name: '', type: 'address' }],
  },
  {
    type: 'function',
    name: 'onERC721Received',
    stateMutability: 'pure',
    inputs: [
      { name: '', type: 'address' },
      { name: '', type: 'address' },
      { name: '', type: 'uint256' },
      { name: '', type: 'bytes' },
    ],
    outputs: [{ name: '', type: 'bytes4' }],
  },
] as const;

/** ERC-1271 magic value returned by `isValidSignature` for a valid signature. */
export const ERC1271_MAGIC_VALUE = '0x1626ba7e' as const;

/** Where Multicall3 lives on Polygon, Amoy and most chains (viem's `chain.contracts.multicall3`). */
export const MULTICALL3_ADDRESS = '0xcA11bde05977b3631167028862bE2a173976CA11' as const;

export { type CompiledContract, type CompiledContracts, compileContracts } from './contracts-compile';

// ---------------------------------------------------------------------------
// Chain interaction
// ---------------------------------------------------------------------------

/** Build a viem chain for `rpcUrl`, reading the chain id from the node. */
async function chainFor(rpcUrl: string): Promise<Chain> {
  const id = await getChainId(createPublicClient({ transport: http(rpcUrl) }));
  return defineChain({
    id,
    name: `chain-${id}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

export interface ChainClients {
  account: PrivateKeyAccount;
  publicClient: PublicClient<HttpTransport, Chain>;
  walletClient: WalletClient<HttpTransport, Chain, PrivateKeyAccount>;
}

/** A reader and a writer for `rpcUrl`, signing with `privateKey`. */
export async function clientsFor(rpcUrl: string, privateKey: Hex): Promise<ChainClients> {
  const chain = await chainFor(rpcUrl);
  const account = privateKeyToAccount(privateKey);
  const transport = http(rpcUrl);
  return {
    account,
    publicClient: createPublicClient({ chain, transport }),
    walletClient: createWalletClient({ account, chain, transport }),
  };
}

export async function waitForSuccess(publicClient: PublicClient, hash: Hex, what: string) {
  const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  if (receipt.status !== 'success') throw new Error(`${what} reverted (tx ${hash})`);
  return receipt;
}

/** Deploy DemoAgents (ERC-721 Enumerable) and return its address. */
export function deployDemoAgents(rpcUrl: string, deployerPrivateKey: Hex): Promise<Address> {
  return deployCollection(rpcUrl, deployerPrivateKey, 'DemoAgents');
}

/**
 * Deploy PlainAgents (DemoAgents without ERC-721 Enumerable; same mint, transfers and errors, so
 * `mintAgent` and `transferAgent` work on it) and return its address.
 */
export function deployPlainAgents(rpcUrl: string, deployerPrivateKey: Hex): Promise<Address> {
  return deployCollection(rpcUrl, deployerPrivateKey, 'PlainAgents');
}

async function deployCollection(rpcUrl: string, deployerPrivateKey: Hex, name: 'DemoAgents' | 'PlainAgents'): Promise<Address> {
  const { bytecode } = (await compileContracts())[name];
  const { walletClient, publicClient } = await clientsFor(rpcUrl, deployerPrivateKey);
  const hash = await walletClient.deployContract({ abi: demoAgentsAbi, bytecode });
  const receipt = await waitForSuccess(publicClient, hash, `${name} deployment`);
  if (!receipt.contractAddress) throw new Error(`${name} deployment has no contract address (tx ${hash})`);
  return getAddress(receipt.contractAddress);
}

/**
 * Puts Multicall3's `aggregate3` at its canonical address (anvil_setCode, the code of a fresh
 * deployment), unless code is there already: the chain then batches reads as Polygon does.
 */
export async function installMulticall3(rpcUrl: string, deployerPrivateKey: Hex): Promise<void> {
  const { publicClient, walletClient } = await clientsFor(rpcUrl, deployerPrivateKey);
  if ((await publicClient.getCode({ address: MULTICALL3_ADDRESS })) !== undefined) return;
  const { Multicall3 } = await compileContracts();
  const hash = await walletClient.deployContract({ abi: [], bytecode: Multicall3.bytecode });
  const receipt = await waitForSuccess(publicClient, hash, 'Multicall3 deployment');
  if (!receipt.contractAddress) throw new Error(`Multicall3 deployment has no contract address (tx ${hash})`);
  const code = await publicClient.getCode({ address: receipt.contractAddress });
  if (!code) throw new Error('Multicall3 deployment left no code');
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_setCode', params: [MULTICALL3_ADDRESS, code] }),
  });
  const body = (await res.json()) as { error?: { message: string } };
  if (body.error) throw new Error(`anvil_setCode: ${body.error.message}`);
}

/** Deploy a TestWallet1271 owned by `owner` and return its address. */
export async function deployTestWallet(rpcUrl: string, deployerPrivateKey: Hex, owner: Address): Promise<Address> {
  const { TestWallet1271 } = await compileContracts();
  const { walletClient, publicClient } = await clientsFor(rpcUrl, deployerPrivateKey);
  const hash = await walletClient.deployContract({
    abi: testWalletAbi,
    bytecode: TestWallet1271.bytecode,
    args: [owner],
  });
  const receipt = await waitForSuccess(publicClient, hash, 'TestWallet1271 deployment');
  if (!receipt.contractAddress) throw new Error(`TestWallet1271 deployment has no contract address (tx ${hash})`);
  return getAddress(receipt.contractAddress);
}

/**
 * Gas a mint may need beyond its estimate: DemoAgents' enumeration stores the token's index in the
 * collection and in the owner's list, and a mint estimated while another one is still pending (to
 * the same owner, or the first of the collection) writes 1 where the estimate wrote 0: a fresh
 * storage slot (about 17,100 gas more) twice.
 */
const MINT_GAS_HEADROOM = 60_000n;

/** Mint `tokenId` of `collection` to `to` (DemoAgents.mint is open to anyone). */
export async function mintAgent(rpcUrl: string, privateKey: Hex, collection: Address, to: Address, tokenId: bigint): Promise<void> {
  const { account, walletClient, publicClient } = await clientsFor(rpcUrl, privateKey);
  const call = { address: collection, abi: demoAgentsAbi, functionName: 'mint', args: [to, tokenId] } as const;
  const gas = (await publicClient.estimateContractGas({ ...call, account })) + MINT_GAS_HEADROOM;
  const hash = await walletClient.writeContract({ ...call, gas });
  await waitForSuccess(publicClient, hash, `mint(${to}, ${tokenId})`);
}

/** `transferFrom(from, to, tokenId)` signed by `ownerPrivateKey` (the owner or an approved operator). */
export async function transferAgent(
  rpcUrl: string,
  ownerPrivateKey: Hex,
  collection: Address,
  from: Address,
  to: Address,
  tokenId: bigint,
): Promise<void> {
  const { walletClient, publicClient } = await clientsFor(rpcUrl, ownerPrivateKey);
  const hash = await walletClient.writeContract({
    address: collection,
    abi: demoAgentsAbi,
    functionName: 'transferFrom',
    args: [from, to, tokenId],
  });
  await waitForSuccess(publicClient, hash, `transferFrom(${from}, ${to}, ${tokenId})`);
}
