/**
 * A newly minted agent's first read (`GET …/contexts/keys`, before it has storage) and first write
 * (`POST …/context`, which provisions its schema) through the gateway's typed client, each beside
 * its Node floor on a synthetic identity: the schema lookup, and lookup + `provision()` + insert.
 */
import type pg from 'pg';
import type { Address, Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { progressBar } from '../../../src/cli/progress';
import { createGatewayClient, isGatewayError, type GatewayClient } from '../../../src/client';
import { provision } from '../../../src/storage/agent-storage';
import type { SqlPool } from '../../../src/storage/sql-client';
import { mintAgent } from '../../lib/contracts';
import { BenchError, Counter, now, summarize, type DeploymentInfo, type Summary } from '../lib';
import type { SyntheticAgents } from './synthetic';

const FIRST_KEY = 'bench:first';
const LOOKUP_SQL = 'select template_version from "gateway"."agent_storage" where schema_name = $1';

export interface Pair {
  gateway: Summary;
  floor: Summary;
  failures: Counter<string>;
}

export interface FirstRequests {
  /** Agent schemas in the database when the round started. */
  schemas: number;
  read: Pair;
  write: Pair;
}

/** A logged-in client of a fresh wallet, and `n` agents minted to it on the testnet demo collection. */
export async function mintedAgents(testnet: DeploymentInfo, n: number): Promise<{ client: GatewayClient; tokenIds: bigint[] }> {
  const owner = privateKeyToAccount(generatePrivateKey());
  const minterKey: Hex = generatePrivateKey();
  const minter = privateKeyToAccount(minterKey);
  const res = await fetch(testnet.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_setBalance', params: [minter.address, '0x56BC75E2D63100000'] }),
  });
  if (!res.ok) throw new BenchError(`anvil_setBalance on ${testnet.rpcUrl}: HTTP ${res.status}`);
  await res.arrayBuffer();
  const base = (BigInt(Date.now()) << 16n) + BigInt(Math.floor(Math.random() * 65_536)) * 1000n;
  const tokenIds = Array.from({ length: n }, (_, i) => base + BigInt(i));
  const bar = progressBar('bench:agents: minting agents', n);
  for (const [i, tokenId] of tokenIds.entries()) {
    await mintAgent(testnet.rpcUrl, minterKey, testnet.collection, owner.address as Address, tokenId);
    bar.update(i + 1);
  }
  bar.finish();
  const client = createGatewayClient({ baseUrl: testnet.baseUrl, login: { account: owner, chainId: testnet.chainId }, timeoutMs: 60_000 });
  await client.login();
  return { client, tokenIds };
}

function failureOf(err: unknown): string {
  if (isGatewayError(err)) return `${err.status} ${err.code}`;
  return err instanceof Error ? err.name : 'error';
}

async function timed(run: () => Promise<string | undefined>): Promise<{ ms: number; failure?: string }> {
  const t0 = now();
  try {
    const failure = await run();
    return failure ? { ms: now() - t0, failure } : { ms: now() - t0 };
  } catch (err) {
    return { ms: now() - t0, failure: failureOf(err) };
  }
}

/**
 * For each agent: its first GET /contexts/keys, the floor lookup, its first POST /context, the
 * floor lookup + provision + insert (on a new synthetic identity), in that order, so drift on this
 * shared machine hits gateway and floor alike. The first agent is a warm-up and is not counted.
 */
export async function firstRequests(
  client: GatewayClient,
  collection: Address,
  tokenIds: readonly bigint[],
  pool: pg.Pool,
  synthetic: SyntheticAgents,
  schemas: number,
): Promise<FirstRequests> {
  const sqlPool = pool as unknown as SqlPool;
  const samples = { readG: [] as number[], readF: [] as number[], writeG: [] as number[], writeF: [] as number[] };
  const failures = { read: new Counter<string>(), write: new Counter<string>() };
  for (const [i, tokenId] of tokenIds.entries()) {
    const agent = client.agent(collection, tokenId);
    const floorAgent = await synthetic.take();
    const readG = await timed(async () => ((await agent.listContextKeys()).totalElements === 0 ? undefined : 'keys of a new agent'));
    const readF = await timed(async () => {
      const { rows } = await pool.query(LOOKUP_SQL, [floorAgent.schema.name]);
      return rows.length === 0 ? undefined : 'floor: synthetic schema exists';
    });
    const writeG = await timed(async () => {
      await agent.createContext(FIRST_KEY);
      return undefined;
    });
    const writeF = await timed(async () => {
      await pool.query(LOOKUP_SQL, [floorAgent.schema.name]);
      await provision(sqlPool, floorAgent.identity, floorAgent.schema);
      const s = floorAgent.schema.quoted;
      const r = await pool.query<{ created: string }>(
        `WITH ins AS (INSERT INTO ${s}.contexts (key) VALUES ($1) ON CONFLICT (key) DO NOTHING RETURNING key),
         counted AS (UPDATE ${s}.key_count SET visible = visible + (SELECT count(*) FROM ins) RETURNING 1)
         SELECT (SELECT count(*) FROM ins) AS created, (SELECT count(*) FROM counted) AS counted`,
        [FIRST_KEY],
      );
      return Number(r.rows[0]?.created) === 1 ? undefined : 'floor: key not created';
    });
    if (i === 0) continue;
    for (const [step, list, counter] of [
      [readG, samples.readG, failures.read],
      [readF, samples.readF, failures.read],
      [writeG, samples.writeG, failures.write],
      [writeF, samples.writeF, failures.write],
    ] as const) {
      if (step.failure) counter.add(step.failure);
      else list.push(step.ms);
    }
  }
  return {
    schemas,
    read: { gateway: summarize(samples.readG), floor: summarize(samples.readF), failures: failures.read },
    write: { gateway: summarize(samples.writeG), floor: summarize(samples.writeF), failures: failures.write },
  };
}
