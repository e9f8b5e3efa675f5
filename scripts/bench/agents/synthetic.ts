/**
 * Synthetic agents for `bench:agents`: identities of a collection nobody deployed, provisioned
 * with `provision()` from Node at template v1 (so `agents:upgrade` has work), and the catalog's
 * size before and after.
 */
import type pg from 'pg';
import type { Address } from 'viem';
import type { AgentIdentity } from '../../../src/identity/identity';
import { progressBar } from '../../../src/cli/progress';
import { agentSchemaName, provision, type AgentSchema } from '../../../src/storage/agent-storage';
import { AGENT_TEMPLATE } from '../../../src/storage/agent-template';
import type { SqlPool } from '../../../src/storage/sql-client';
import { Counter, count, now, summarize, type Summary } from '../lib';

/** A collection nobody deployed, on the testnet chain: only this benchmark provisions its tokens. */
export const SYNTHETIC_COLLECTION = '0xbe4c00000000000000000000000000000000000a' as Address;
export const SYNTHETIC_CHAIN = 80002;
/** The template's first step only: the synthetic schemas start at v1. */
export const TEMPLATE_V1 = AGENT_TEMPLATE.slice(0, 1);

export interface Synthetic {
  identity: AgentIdentity;
  schema: AgentSchema;
}

/** Hands out synthetic identities above any token id a previous run used. */
export class SyntheticAgents {
  private next = 0n;
  /** Token ids handed out by this run: [first, next). */
  first = 0n;

  async init(db: pg.Client): Promise<void> {
    const { rows } = await db.query<{ max: string | null }>(
      'select max(token_id::numeric)::text as max from gateway.agent_storage where chain_id = $1 and collection = $2',
      [SYNTHETIC_CHAIN, SYNTHETIC_COLLECTION.toLowerCase()],
    );
    this.next = BigInt(rows[0]?.max ?? '0') + 1n;
    this.first = this.next;
  }

  async take(): Promise<Synthetic> {
    const identity: AgentIdentity = { chainId: SYNTHETIC_CHAIN, collection: SYNTHETIC_COLLECTION, tokenId: this.next++ };
    return { identity, schema: await agentSchemaName(identity) };
  }
}

export interface CatalogStats {
  /** Agent schemas in the database (pg_namespace `agent_*`). */
  schemas: number;
  pgClass: number;
  pgAttribute: number;
  /** pg_catalog's tables with their indexes and TOAST. */
  catalogBytes: number;
  databaseBytes: number;
}

export async function catalogStats(db: pg.Client): Promise<CatalogStats> {
  const { rows } = await db.query<Record<keyof CatalogStats, string>>(`
    SELECT (SELECT count(*) FROM pg_namespace WHERE nspname ~ '^agent_[a-z2-7]{32}$') AS "schemas",
           (SELECT count(*) FROM pg_class) AS "pgClass",
           (SELECT count(*) FROM pg_attribute) AS "pgAttribute",
           (SELECT sum(pg_total_relation_size(oid)) FROM pg_class
             WHERE relnamespace = 'pg_catalog'::regnamespace AND relkind = 'r') AS "catalogBytes",
           pg_database_size(current_database()) AS "databaseBytes"`);
  const r = rows[0]!;
  return {
    schemas: Number(r.schemas),
    pgClass: Number(r.pgClass),
    pgAttribute: Number(r.pgAttribute),
    catalogBytes: Number(r.catalogBytes),
    databaseBytes: Number(r.databaseBytes),
  };
}

export interface BatchFigures {
  /** Agent schemas in the database when the batch started. */
  schemasBefore: number;
  created: number;
  elapsedMs: number;
  perSchema: Summary;
}

export interface ProvisionFigures {
  created: number;
  elapsedMs: number;
  perSchema: Summary;
  batches: BatchFigures[];
  failures: Counter<string>;
}

/**
 * Provisions `total` synthetic agents at v1 in batches of `batchSize`, `concurrency` at a time
 * (each on its own pooled connection), with a progress bar on stderr.
 */
export async function provisionSynthetic(
  pool: pg.Pool,
  agents: SyntheticAgents,
  options: { total: number; batchSize: number; concurrency: number; schemasAtStart: number },
): Promise<ProvisionFigures> {
  const sqlPool = pool as unknown as SqlPool;
  const all: number[] = [];
  const batches: BatchFigures[] = [];
  const failures = new Counter<string>();
  const bar = progressBar(`bench:agents: provisioning ${count(options.total)} agent schemas at v1`, options.total);
  const t0 = now();
  let done = 0;
  let handled = 0;
  while (done < options.total) {
    const size = Math.min(options.batchSize, options.total - done);
    const times: number[] = [];
    const schemasBefore = options.schemasAtStart + all.length;
    const b0 = now();
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < size) {
        next++;
        const synthetic = await agents.take();
        const t = now();
        try {
          const from = await provision(sqlPool, synthetic.identity, synthetic.schema, TEMPLATE_V1);
          if (from !== 0) failures.add(`schema existed (v${from})`);
          else times.push(now() - t);
        } catch (err) {
          failures.add(err instanceof Error ? (err.message.split('\n')[0] ?? 'error') : String(err));
        }
        bar.update(++handled);
      }
    };
    await Promise.all(Array.from({ length: Math.min(options.concurrency, size) }, worker));
    batches.push({ schemasBefore, created: times.length, elapsedMs: now() - b0, perSchema: summarize(times) });
    all.push(...times);
    done += size;
  }
  bar.finish();
  return { created: all.length, elapsedMs: now() - t0, perSchema: summarize(all), batches, failures };
}
