import type { Address } from 'viem';
import { AGENT_TEMPLATE, type TemplateStep } from './agent-template';
import { indexAllMessages, schemasBehind } from './search-index';
import { provision } from './agent-storage';
import type { SqlPool } from './sql-client';

export interface UpgradeProgress {
  done: number;
  total: number;
  failed: number;
  /** The last schema handled: pass as `after` to resume from there. */
  cursor: string;
}

export interface UpgradeResult extends UpgradeProgress {
  failures: { schema: string; reason: string }[];
  /** Schemas already at the search template whose messages this run finished indexing (left by a stopped run). */
  finished: number;
}

/** The template version that added memory search's columns, filled after the upgrade. */
const SEARCH_COLUMNS_VERSION = 3;

/**
 * Brings every agent schema below the template's last version up to it, in batches ordered by
 * schema name. A schema reaching v3 (memory search) gets its columns empty, so the upgrade's lock
 * is short, then its messages indexed in batches by the indexer (src/storage/search-index.ts), outside
 * the upgrade's transaction; search reads what is not indexed yet meanwhile. Safe to stop and run
 * again: finished schemas no longer qualify, and `after` resumes past a given schema. A run first
 * finishes the indexing a stopped run left (that schema is at the last version already, so the walk
 * would not visit it again; the Cron's catch-up would, later): a probe of each schema at the search
 * template, 50 a statement. One schema failing is reported and does not stop the walk.
 */
export async function upgradeAgentSchemas(
  pool: SqlPool,
  options: {
    template?: readonly TemplateStep[];
    batchSize?: number;
    after?: string;
    onProgress?: (progress: UpgradeProgress) => void;
    /** Called with the schemas found half indexed before the walk (0 when none). */
    onUnfinished?: (count: number) => void;
  } = {},
): Promise<UpgradeResult> {
  const template = options.template ?? AGENT_TEMPLATE;
  const target = template[template.length - 1]!.version;
  const batchSize = options.batchSize ?? 100;
  let cursor = options.after ?? '';
  const failures: UpgradeResult['failures'] = [];
  let finished = 0;
  if (target >= SEARCH_COLUMNS_VERSION) {
    const { rows: indexed } = await pool.query<{ schema_name: string }>(
      'select schema_name from "gateway"."agent_storage" where template_version >= $1 order by schema_name',
      [SEARCH_COLUMNS_VERSION],
    );
    const behind = await schemasBehind(
      pool,
      indexed.map((r) => r.schema_name),
    );
    options.onUnfinished?.(behind.length);
    for (const name of behind) {
      try {
        await indexAllMessages(pool, { name, quoted: `"${name}"` });
        finished += 1;
      } catch (err) {
        failures.push({ schema: name, reason: err instanceof Error ? err.message.split('\n')[0]! : String(err) });
      }
    }
  }
  const { rows: countRows } = await pool.query<{ n: string }>(
    'select count(*) as n from "gateway"."agent_storage" where template_version < $1 and schema_name > $2',
    [target, cursor],
  );
  const progress: UpgradeProgress = { done: 0, total: Number(countRows[0]?.n ?? 0), failed: 0, cursor };
  options.onProgress?.({ ...progress });
  for (;;) {
    const { rows } = await pool.query<{ schema_name: string; chain_id: number; collection: string; token_id: string }>(
      `select schema_name, chain_id, collection, token_id from "gateway"."agent_storage"
       where template_version < $1 and schema_name > $2 order by schema_name limit $3`,
      [target, cursor, batchSize],
    );
    if (rows.length === 0) break;
    for (const row of rows) {
      const agent = { chainId: row.chain_id, collection: row.collection as Address, tokenId: BigInt(row.token_id) };
      try {
        const schema = { name: row.schema_name, quoted: `"${row.schema_name}"` };
        await provision(pool, agent, schema, template);
        if (target >= SEARCH_COLUMNS_VERSION) await indexAllMessages(pool, schema);
        progress.done += 1;
      } catch (err) {
        progress.failed += 1;
        failures.push({ schema: row.schema_name, reason: err instanceof Error ? err.message.split('\n')[0]! : String(err) });
      }
      cursor = row.schema_name;
      progress.cursor = cursor;
      options.onProgress?.({ ...progress });
    }
  }
  return { ...progress, failures, finished };
}
