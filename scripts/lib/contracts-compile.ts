/**
 * Compiling the dev/test Solidity contracts in `contracts/` with solc-js, cached on disk.
 * Node-only (node:fs, node:os and the solc npm package); scripts/lib/contracts.ts re-exports it.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Abi, Hex } from 'viem';

export interface CompiledContract {
  abi: Abi;
  /** Creation code (deploy it). */
  bytecode: Hex;
  /** Runtime code (what sits at an address: anvil_setCode places it without a deployment). */
  runtime: Hex;
}

export interface CompiledContracts {
  /** The dev chains' collection: ERC-721 Enumerable, open mint. */
  DemoAgents: CompiledContract;
  /** The same without ERC-721 Enumerable (DemoAgents' base): a collection whose holders cannot be listed. */
  PlainAgents: CompiledContract;
  TestWallet1271: CompiledContract;
  /** Multicall3's `aggregate3` (what viem's multicall calls), for the dev chain that mirrors Polygon. */
  Multicall3: CompiledContract;
  /** DemoAgents plus ERC-4907 (a user for a time): the dev chains' rentable collection. */
  RentableAgents: CompiledContract;
  /** Claims ERC-4907 but its `userOf` and `userExpires` revert: fault tests. */
  LyingRentableAgents: CompiledContract;
  /** Our own implementation of delegate.xyz v2's interface, placed at its canonical address. */
  DelegateRegistryStandIn: CompiledContract;
  /** Our own ERC-20 + EIP-3009 USDC, placed at USDC's address on the local chains. */
  UsdcStandIn: CompiledContract;
}

const CONTRACT_NAMES = [
  'DemoAgents',
  'PlainAgents',
  'TestWallet1271',
  'Multicall3',
  'RentableAgents',
  'LyingRentableAgents',
  'DelegateRegistryStandIn',
  'UsdcStandIn',
] as const;

/** Repository root (this file lives in `<root>/scripts/lib/`). */
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url).href);

const SOLC_SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
} as const;

interface SolcError {
  severity: 'error' | 'warning' | 'info';
  formattedMessage?: string;
  message: string;
}

interface SolcOutput {
  errors?: SolcError[];
  contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>>;
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
 * Compile the contracts of CONTRACT_NAMES (`contracts/<name>.sol`, with what they import) with solc-js
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
    if (
      CONTRACT_NAMES.every(
        (n) => cached[n]?.bytecode?.startsWith('0x') && cached[n].runtime?.startsWith('0x') && Array.isArray(cached[n].abi),
      )
    ) {
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
    result[name] = {
      abi: compiled.abi,
      bytecode: `0x${compiled.evm.bytecode.object}`,
      runtime: `0x${compiled.evm.deployedBytecode.object}`,
    };
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
