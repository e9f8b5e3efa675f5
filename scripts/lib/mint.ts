/**
 * `npm run mint`: mint a demo agent on the running local stack (`.dev/stack.json` of this
 * checkout, or of DEV_DIR), signed by a funded dev account of that stack. Plain inputs, plain
 * results: scripts/mint.ts turns them into output and exit codes.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { type Address, type Hex, createPublicClient, getAddress, http, isAddress } from 'viem';
import { demoAgentsAbi, mintAgent } from './contracts';
import { REPO_ROOT } from './migrate';
import type { StackFile } from './stack-processes';

/** A failure the user can fix: its message is the whole story, no stack trace. */
export class MintError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
  }
}

export type ChainName = 'mainnet' | 'testnet';

export interface MintRequest {
  to: string;
  chain: ChainName;
  tokenId?: string;
  /** Mint on the rentable (ERC-4907) demo collection instead of the demo collection. */
  rentable?: boolean;
}

export interface Minted {
  chain: ChainName;
  chainId: number;
  baseUrl: string;
  collection: Address;
  tokenId: bigint;
  owner: Address;
}

/** `<DEV_DIR or .dev>/stack.json`, DEV_DIR resolved against the checkout as scripts/dev.ts does. */
export function stackFilePath(env: NodeJS.ProcessEnv): string {
  return path.resolve(REPO_ROOT, env.DEV_DIR || '.dev', 'stack.json');
}

/** Which stack file was read and why, for every error about it: DEV_DIR names the stack. */
export function stackSource(file: string, env: NodeJS.ProcessEnv): string {
  return env.DEV_DIR ? `${file}, from DEV_DIR=${env.DEV_DIR}` : `${file}; DEV_DIR is not set, so .dev of this clone`;
}

export function readStack(file: string, env: NodeJS.ProcessEnv = {}): StackFile {
  if (!existsSync(file)) {
    throw new MintError(
      `the local stack is not running: no stack file (${stackSource(file, env)}). Start it with npm run dev (with the same DEV_DIR), or set DEV_DIR to the directory of the stack that runs`,
    );
  }
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as StackFile;
  } catch {
    throw new MintError(`the stack file is not readable JSON (${stackSource(file, env)}): restart npm run dev`);
  }
}

/** The token id the user asked for: a decimal integer in 0..2^256-1. */
export function parseTokenId(raw: string): bigint {
  if (!/^\d{1,78}$/.test(raw) || BigInt(raw) >= 2n ** 256n) {
    throw new MintError(`--token-id ${JSON.stringify(raw.slice(0, 100))} is not a token id (a decimal integer, 0 or more)`, 2);
  }
  return BigInt(raw);
}

export function parseAddress(raw: string): Address {
  if (!/^0x[0-9a-fA-F]{40}$/.test(raw))
    throw new MintError(`--to ${JSON.stringify(raw.slice(0, 100))} is not an address (0x and 40 hex digits)`, 2);
  // Mixed case must be a valid EIP-55 checksum (a typo check); all lower or all upper case is taken as is.
  if (!isAddress(raw, { strict: true })) throw new MintError(`--to ${raw}: bad checksum (check the address, or write it in lower case)`, 2);
  return getAddress(raw);
}

/** The owner of `tokenId`, or undefined when it was never minted. */
async function ownerOf(rpcUrl: string, collection: Address, tokenId: bigint): Promise<Address | undefined> {
  const client = createPublicClient({ transport: http(rpcUrl, { retryCount: 0 }) });
  try {
    return await client.readContract({ address: collection, abi: demoAgentsAbi, functionName: 'ownerOf', args: [tokenId] });
  } catch (err) {
    if (err instanceof Error && /ERC721NonexistentToken|reverted/.test(err.message)) return undefined;
    throw err;
  }
}

async function checkRunning(rpcUrl: string, source: string): Promise<void> {
  try {
    const res = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(5_000),
    });
    if (res.ok) return;
  } catch {
    // answered below
  }
  throw new MintError(
    `the local stack is not answering (chain at ${rpcUrl}, stack file ${source}): is npm run dev (with that DEV_DIR) still running? start it again`,
  );
}

export async function mintDemoAgent(request: MintRequest, env: NodeJS.ProcessEnv): Promise<Minted> {
  const to = parseAddress(request.to);
  const wanted = request.tokenId === undefined ? undefined : parseTokenId(request.tokenId);
  const file = stackFilePath(env);
  const stack = readStack(file, env);
  const deployment = stack[request.chain];
  const account = stack.accounts?.[0];
  if (!deployment?.rpcUrl || !deployment.collection || !account)
    throw new MintError(
      `the stack file does not describe a ${request.chain} chain and a dev account (${stackSource(file, env)}): restart npm run dev`,
    );
  if (request.rentable && !deployment.rentableCollection)
    throw new MintError(
      `the stack file names no rentable collection on ${request.chain} (${stackSource(file, env)}): a stack started before there was one; restart npm run dev`,
    );
  await checkRunning(deployment.rpcUrl, stackSource(file, env));
  const collection = getAddress(request.rentable ? deployment.rentableCollection : deployment.collection);

  let tokenId = wanted;
  if (tokenId === undefined) {
    // The smallest free id: the dev chains start empty on every npm run dev, so this stays short.
    tokenId = 1n;
    while ((await ownerOf(deployment.rpcUrl, collection, tokenId)) !== undefined) tokenId++;
  } else {
    const owner = await ownerOf(deployment.rpcUrl, collection, tokenId);
    if (owner !== undefined) {
      throw new MintError(
        `token ${tokenId} of ${collection} (${request.chain}) is taken: ${owner} owns it; leave out --token-id to get a free one`,
      );
    }
  }
  try {
    await mintAgent(deployment.rpcUrl, account.privateKey as Hex, collection, to, tokenId);
  } catch (err) {
    const owner = await ownerOf(deployment.rpcUrl, collection, tokenId).catch(() => undefined);
    if (owner !== undefined && owner !== to)
      throw new MintError(`token ${tokenId} of ${collection} was just taken by ${owner}; run npm run mint again`);
    throw new MintError(`minting token ${tokenId} failed: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
  }
  return { chain: request.chain, chainId: deployment.chainId, baseUrl: deployment.baseUrl, collection, tokenId, owner: to };
}

/** The line a shell evaluates: the CLI then talks to this deployment about this agent. */
export function exportLine(minted: Minted): string {
  return `export AGENT_GATEWAY_URL=${minted.baseUrl} AGENT_COLLECTION=${minted.collection} AGENT_TOKEN_ID=${minted.tokenId}`;
}
