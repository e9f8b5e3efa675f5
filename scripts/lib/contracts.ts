/**
 * Node-only helpers for the dev/test Solidity contracts in `contracts/`:
 * compile (solc-js, cached on disk), deploy, mint and transfer with viem.
 *
 * Not for the Worker bundle: uses node:fs, node:os and the solc npm package.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type Abi,
  type Address,
  type Chain,
  type Hex,
  type PublicClient,
  createPublicClient,
  createWalletClient,
  defineChain,
  getAddress,
  http,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { getChainId } from 'viem/actions';
import { erc721ReadAbi } from '../../src/chain/erc721-abi';

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

// ---------------------------------------------------------------------------
// Compilation
// ---------------------------------------------------------------------------

export interface CompiledContract {
  abi: Abi;
  bytecode: Hex;
}

export interface CompiledContracts {
  /** The dev chains' collection: ERC-721 Enumerable, open mint. */
  DemoAgents: CompiledContract;
  /** The same without ERC-721 Enumerable (DemoAgents' base): a collection whose holders cannot be listed. */
  PlainAgents: CompiledContract;
  TestWallet1271: CompiledContract;
  /** Multicall3's `aggregate3` (what viem's multicall calls), for the dev chain that mirrors Polygon. */
  Multicall3: CompiledContract;
}

const CONTRACT_NAMES = ['DemoAgents', 'PlainAgents', 'TestWallet1271', 'Multicall3'] as const;

/** Where Multicall3 lives on Polygon, Amoy and most chains (viem's `chain.contracts.multicall3`). */
export const MULTICALL3_ADDRESS = '0xcA11bde05977b3631167028862bE2a173976CA11' as const;

/** Repository root (this file lives in `<root>/scripts/lib/`). */
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url).href);

const SOLC_SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
} as const;

interface SolcError {
  severity: 'error' | 'warning' | 'info';
  formattedMessage?: string;
  message: string;
}

interface SolcOutput {
  errors?: SolcError[];
  contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
}

function contractsCacheDir(): string {
  return process.env.CONTRACTS_CACHE_DIR ?? path.join(os.tmpdir(), 'agent-gateway-contracts');
}

/** solc package version, read without loading the (slow to initialise) compiler. */
function solcPackageVersion(): string {
  const require = createRequire(import.meta.url);
  const pkg = require('solc/package.json') as { version: string };
  return pkg.version;
}

let memo: Promise<CompiledContracts> | undefined;

/**
 * Compile `contracts/DemoAgents.sol` (with `PlainAgents.sol`) and `contracts/TestWallet1271.sol` with solc-js
 * (optimizer on, evmVersion cancun). The result is cached as JSON in
 * `$CONTRACTS_CACHE_DIR` (default: `<tmpdir>/agent-gateway-contracts`) keyed by the sha256 of
 * the sources, the solc version and the settings; the compiler is only loaded on a cache miss.
 * Throws an Error listing all compiler errors when compilation fails.
 */
export function compileContracts(): Promise<CompiledContracts> {
  memo ??= compileUncached().catch((err: unknown) => {
    memo = undefined;
    throw err;
  });
  return memo;
}

async function compileUncached(): Promise<CompiledContracts> {
  const sources: Record<string, { content: string }> = {};
  for (const name of CONTRACT_NAMES) {
    const rel = `contracts/${name}.sol`;
    sources[rel] = { content: await readFile(path.join(REPO_ROOT, rel), 'utf8') };
  }

  const solcVersion = solcPackageVersion();
  const key = createHash('sha256')
    .update(JSON.stringify({ solcVersion, settings: SOLC_SETTINGS, sources }))
    .digest('hex');
  const cacheDir = contractsCacheDir();
  const cacheFile = path.join(cacheDir, `${key}.json`);

  try {
    const cached = JSON.parse(await readFile(cacheFile, 'utf8')) as CompiledContracts;
    if (CONTRACT_NAMES.every((n) => cached[n]?.bytecode?.startsWith('0x') && Array.isArray(cached[n].abi))) {
      return cached;
    }
  } catch {
    // cache miss or unreadable cache file: compile
  }

  const { default: solc } = await import('solc');
  const input = { language: 'Solidity', sources, settings: SOLC_SETTINGS };
  const output = JSON.parse(solc.compile(JSON.stringify(input)) as string) as SolcOutput;

  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) {
    const list = errors.map((e) => (e.formattedMessage ?? e.message).trim()).join('\n\n');
    throw new Error(`Solidity compilation failed (solc ${solcVersion}) with ${errors.length} error(s):\n\n${list}`);
  }

  const result = {} as CompiledContracts;
  for (const name of CONTRACT_NAMES) {
    const compiled = output.contracts?.[`contracts/${name}.sol`]?.[name];
    if (!compiled?.evm.bytecode.object) {
      throw new Error(`Solidity compilation produced no bytecode for ${name} (solc ${solcVersion})`);
    }
    result[name] = { abi: compiled.abi, bytecode: `0x${compiled.evm.bytecode.object}` };
  }

  try {
    await mkdir(cacheDir, { recursive: true });
    // Write-then-rename so concurrent test workers never read a half-written file.
    const tmp = `${cacheFile}.${process.pid}.${Date.now()}.tmp`;
    await writeFile(tmp, JSON.stringify(result));
    await rename(tmp, cacheFile);
  } catch {
    // caching is best-effort
  }
  return result;
}

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

async function clientsFor(rpcUrl: string, privateKey: Hex) {
  const chain = await chainFor(rpcUrl);
  const account = privateKeyToAccount(privateKey);
  const transport = http(rpcUrl);
  return {
    account,
    publicClient: createPublicClient({ chain, transport }),
    walletClient: createWalletClient({ account, chain, transport }),
  };
}

async function waitForSuccess(publicClient: PublicClient, hash: Hex, what: string) {
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
