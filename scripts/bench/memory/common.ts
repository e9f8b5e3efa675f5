/**
 * What every section of the memory benchmark shares: its options, the run's context (stack,
 * database connections, the logged-in owner's client), the minted agents, and what a section
 * hands back to main.
 */
import type pg from 'pg';
import type { Address } from 'viem';
import type { AgentIdentity } from '../../../src/identity/identity';
import { progressBar } from '../../../src/cli/progress';
import type { AgentClient, GatewayClient } from '../../../src/client';
import { agentSchemaName, type AgentSchema } from '../../../src/storage/agent-storage';
import { mintAgent } from '../../lib/contracts';
import type { DeploymentInfo, StackInfo } from '../lib';
import { newWallet, rpc, type StackLatency, type Wallet } from '../lib/client';

/** Sequential measurements start with this many rounds that are not counted. */
export const WARM_UP = 5;

export interface MemoryOptions {
  big: number;
  small: number;
  requests: number;
  appends: number;
  batches: number;
  fresh: number;
  seconds: number;
  write: boolean;
}

export interface BenchContext {
  stack: StackInfo;
  testnet: DeploymentInfo;
  latency: StackLatency;
  options: MemoryOptions;
  /** One warm connection for floors and checks. */
  db: pg.Client;
  /** A pool of one connection, for `provision()` floors. */
  pool: pg.Pool;
  owner: Wallet;
  /** The owner's client, logged in through the client's login helper. */
  client: GatewayClient;
}

/** A minted agent of the testnet demo collection, owned by the benchmark's wallet. */
export interface BenchAgent {
  identity: AgentIdentity;
  schema: AgentSchema;
  /** The owner's client of this agent. */
  api: AgentClient;
}

/** What a section hands back: printed, and with --write put under `heading` in BENCHMARKS.md. */
export interface SectionReport {
  /** The `## ` heading of its BENCHMARKS.md section; sections sharing one are written together. */
  heading: string;
  /** Markdown: tables and their reading. */
  body: string;
  /** Requests that answered something unexpected. */
  unexpected: number;
  /** Extra lines for stderr only (plans). */
  notes?: string;
}

export function log(message: string): void {
  console.error(`bench:memory: ${message}`);
}

const MESSAGE_FILLER =
  'The customer asked to move the renewal call to next Tuesday and prefers email for the quote; follow up with the revised invoice and the onboarding checklist.';

/** A realistic message of about 160 characters, numbered. */
export function message(i: number): string {
  return `#${i}: ${MESSAGE_FILLER}`;
}

/** Mints `n` agents of the testnet collection to the owner; each with the owner's client of it. */
export async function mintAgents(ctx: BenchContext, n: number): Promise<BenchAgent[]> {
  const { testnet } = ctx;
  const minter = newWallet();
  await rpc(testnet.rpcUrl, 'anvil_setBalance', [minter.address, '0x56BC75E2D63100000']); // 100 ETH
  const base = (BigInt(Date.now()) << 16n) + BigInt(Math.floor(Math.random() * 65_536)) * 1000n;
  const bar = progressBar('bench:memory: minting agents', n);
  const minted: BenchAgent[] = [];
  for (let i = 0; i < n; i++) {
    const tokenId = base + BigInt(i);
    await mintAgent(testnet.rpcUrl, minter.privateKey, testnet.collection, ctx.owner.address as Address, tokenId);
    const identity: AgentIdentity = { chainId: testnet.chainId, collection: testnet.collection, tokenId };
    minted.push({ identity, schema: await agentSchemaName(identity), api: ctx.client.agent(testnet.collection, tokenId) });
    bar.update(i + 1);
  }
  bar.finish();
  return minted;
}
