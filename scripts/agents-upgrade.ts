/**
 * Upgrades every agent schema to the current per-agent template, in resumable batches with a
 * progress bar. Requests upgrade outdated schemas lazily too; run this after deploying a new
 * template version so no request pays for it.
 *
 *   DATABASE_URL=postgresql://... npm run agents:upgrade -- [--batch 100] [--after agent_xxx]
 *
 * Stopping it is safe: finished schemas no longer qualify, so a rerun continues where it stopped
 * (and first finishes indexing the schema a stopped run was indexing). Progress goes to stderr.
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { upgradeAgentSchemas } from '../src/storage/agent-upgrade';
import type { SqlPool } from '../src/storage/sql-client';
import { operatorDatabaseUrl } from './lib/database-url';
import { progressBar } from '../src/cli/progress';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { batch: { type: 'string', default: '100' }, after: { type: 'string' } } });
  const batchSize = Number(values.batch);
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000) throw new Error('--batch must be 1..10000');
  const pool = new pg.Pool({ connectionString: operatorDatabaseUrl(), max: 2 });
  let bar: ReturnType<typeof progressBar> | undefined;
  try {
    const result = await upgradeAgentSchemas(pool as unknown as SqlPool, {
      batchSize,
      after: values.after,
      onUnfinished: (count) => {
        if (count > 0) console.error(`finishing the search index of ${count} agent schema(s) a stopped run left half indexed`);
      },
      onProgress: (p) => {
        bar ??= progressBar('upgrading agent schemas', p.total);
        bar.update(p.done + p.failed, p.failed ? `(${p.failed} failed)` : undefined);
      },
    });
    const finished = result.finished > 0 ? `; finished indexing ${result.finished}` : '';
    bar?.finish(
      `upgraded ${result.done} agent schema(s), ${result.failed} failed${finished}${result.cursor ? `; last ${result.cursor}` : ''}`,
    );
    for (const f of result.failures) console.error(`  ${f.schema}: ${f.reason}`);
    if (result.failures.length > 0) {
      console.error(`rerun to retry the failures (or resume with --after ${result.cursor})`);
      process.exitCode = 1;
    }
  } finally {
    await pool.end();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
