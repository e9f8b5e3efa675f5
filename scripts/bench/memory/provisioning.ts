/**
 * Provisioning: the first `POST /context` of `--fresh` (default 20) freshly minted agents (it
 * creates the agent's schema) against a second one on the same agent, through the client; the
 * floor runs the schema lookup + `provision()` + the key insert from Node, for synthetic
 * identities (a collection nobody deployed, on the testnet chain).
 */
import type pg from 'pg';
import type { Address } from 'viem';
import type { AgentIdentity } from '../../../src/identity/identity';
import { progressBar } from '../../../src/cli/progress';
import { agentSchemaName, provision, type AgentSchema } from '../../../src/storage/agent-storage';
import type { SqlPool } from '../../../src/storage/sql-client';
import { Counter, markdownTable, ms, summarize } from '../lib';
import { floorStep, timed } from '../lib/client';
import { PAIR_ALIGN, PAIR_HEADERS, diff, pairRow, type PairResult } from '../lib/measure';
import type { BenchAgent, BenchContext, SectionReport } from './common';
import { visibleValues } from './seeding';

export const PROVISIONING_HEADING = '## Provisioning a new agent (issue 4)';
const SYNTHETIC_COLLECTION = '0xbe4c000000000000000000000000000000000004' as Address;
const SYNTHETIC_CHAIN = 80002;
const FIRST_KEY = 'bench:first';
const SECOND_KEY = 'bench:second';

/** Next token id of the synthetic collection: above any a previous run used. */
let nextSyntheticToken = 0n;

async function initSyntheticTokens(db: pg.Client): Promise<void> {
  const { rows } = await db.query<{ max: string | null }>(
    'select max(token_id::numeric)::text as max from gateway.agent_storage where chain_id = $1 and collection = $2',
    [SYNTHETIC_CHAIN, SYNTHETIC_COLLECTION.toLowerCase()],
  );
  nextSyntheticToken = BigInt(rows[0]?.max ?? '0') + 1n;
}

async function syntheticAgent(): Promise<{ identity: AgentIdentity; schema: AgentSchema }> {
  const identity: AgentIdentity = { chainId: SYNTHETIC_CHAIN, collection: SYNTHETIC_COLLECTION, tokenId: nextSyntheticToken++ };
  return { identity, schema: await agentSchemaName(identity) };
}

/** The statement `createKey` runs (contexts.service's insertKeys), for the floor. */
function insertKeySql(schema: AgentSchema): string {
  const s = schema.quoted;
  const visible = `NOT (key >= '${visibleValues[0]}' AND key < '${visibleValues[1]}')`;
  return `WITH ins AS (
         INSERT INTO ${s}.contexts (key) SELECT k FROM unnest($1::text[]) AS k ON CONFLICT (key) DO NOTHING RETURNING key
       ), counted AS (
         UPDATE ${s}.key_count SET visible = visible + (SELECT count(*) FROM ins WHERE ${visible}) RETURNING 1
       )
       SELECT (SELECT array_agg(key) FROM ins) AS created, (SELECT count(*) FROM counted) AS counted`;
}

const LOOKUP_SQL = 'select template_version from "gateway"."agent_storage" where schema_name = $1';

interface ProvisionPart {
  first: PairResult;
  second: PairResult;
}

/** First and second POST /context on each fresh agent; the floor does the same on synthetic identities. */
async function benchProvisioning(pool: pg.Pool, fresh: BenchAgent[]): Promise<ProvisionPart> {
  const sqlPool = pool as unknown as SqlPool;
  const firstG: number[] = [];
  const secondG: number[] = [];
  const firstF: number[] = [];
  const secondF: number[] = [];
  const failures = { first: new Counter<string>(), second: new Counter<string>() };
  const bar = progressBar('bench:memory: provisioning fresh agents', fresh.length);
  for (const [i, agent] of fresh.entries()) {
    const g1 = await timed(() => agent.api.createContext(FIRST_KEY));
    const g2 = await timed(() => agent.api.createContext(SECOND_KEY));
    const synthetic = await syntheticAgent();
    const f1 = await floorStep(async () => {
      const { rows } = await pool.query(LOOKUP_SQL, [synthetic.schema.name]);
      if (rows.length > 0) return 'floor: synthetic schema exists';
      await provision(sqlPool, synthetic.identity, synthetic.schema);
      const r = await pool.query(insertKeySql(synthetic.schema), [[FIRST_KEY]]);
      return r.rows[0]?.created?.length === 1 ? undefined : 'floor: key not created';
    });
    const f2 = await floorStep(async () => {
      const r = await pool.query(insertKeySql(synthetic.schema), [[SECOND_KEY]]);
      return r.rows[0]?.created?.length === 1 ? undefined : 'floor: key not created';
    });
    for (const [step, samples, counter] of [
      [g1, firstG, failures.first],
      [g2, secondG, failures.second],
      [f1, firstF, failures.first],
      [f2, secondF, failures.second],
    ] as const) {
      if (step.failure) counter.add(step.failure);
      else samples.push(step.ms);
    }
    bar.update(i + 1);
  }
  bar.finish();
  return {
    first: { gateway: summarize(firstG), floor: summarize(firstF), failures: failures.first },
    second: { gateway: summarize(secondG), floor: summarize(secondF), failures: failures.second },
  };
}

function provisionTable(part: ProvisionPart): string {
  const rows = [
    pairRow('First POST /context (creates the agent schema)', '0', part.first),
    pairRow('Second POST /context (same agent)', '1', part.second),
    [
      'Provisioning cost: first − second (medians)',
      '',
      '',
      diff(part.first.gateway.median, part.second.gateway.median),
      '',
      diff(part.first.floor.median, part.second.floor.median),
      '',
      '',
      '',
      '',
    ],
  ];
  return markdownTable(PAIR_HEADERS, rows, PAIR_ALIGN);
}

function provisionReading(prov: ProvisionPart): string {
  return (
    `**Provisioning.** A new agent's first \`POST /context\` takes ${ms(prov.first.gateway.median)} at the median against ${ms(prov.second.gateway.median)} for the second, so creating the schema costs about ${ms(prov.first.gateway.median - prov.second.gateway.median)} once per agent ` +
    `(${ms(prov.first.floor.median - prov.second.floor.median)} at the floor: one transaction with an advisory lock, CREATE SCHEMA, four tables with their primary keys, two more indexes (one of them GIN), an identity sequence, the key_count row and the registry row).`
  );
}

export async function provisioningSection(ctx: BenchContext, fresh: BenchAgent[]): Promise<SectionReport> {
  await initSyntheticTokens(ctx.db);
  await ctx.pool.query('select 1'); // warm: provision() finds an open connection
  const prov = await benchProvisioning(ctx.pool, fresh);
  const body = [provisionTable(prov), '', provisionReading(prov), ''].join('\n');
  return { heading: PROVISIONING_HEADING, body, unexpected: prov.first.failures.total() + prov.second.failures.total() };
}
