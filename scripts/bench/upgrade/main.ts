/**
 * `npm run bench:upgrade [-- --agents N] [--messages M] [--concurrency C] [--database-url URL] [--write]`:
 * the upgrade of 10,000 existing agents to memory search (issue 23), killed and resumed.
 *
 * 1. Set-up: `--agents` (default 10,000) agent schemas at template v2 (before search) in one
 *    database, each with `--messages` (default 20) messages in one context, appended with the
 *    gateway's append SQL; `--concurrency` (default 2) at a time.
 * 2. The real `npm run agents:upgrade` to the current template (each schema: the template step,
 *    then its messages indexed): SIGKILLed about half way, then run again to completion
 *    (scripts/bench/agents/upgrade-run.ts).
 * 3. Checks: every schema at the last version with the search index, none skipped or upgraded
 *    twice, and every message indexed with the tsvectors the indexer computes (a count over all).
 *
 * Without --database-url it starts an embedded Postgres of its own in a temporary directory.
 * Prints markdown; `--write` replaces the "## Upgrading 10,000 agents to memory search" section
 * of BENCHMARKS.md.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { appendSql } from '../../../src/contexts/messages.service';
import { progressBar } from '../../../src/cli/progress';
import { provision } from '../../../src/storage/agent-storage';
import { AGENT_TEMPLATE, TEMPLATE_VERSION } from '../../../src/storage/agent-template';
import type { SqlPool } from '../../../src/storage/sql-client';
import { migrateGateway } from '../../lib/migrate';
import { ensureDatabase, startPostgres } from '../../lib/postgres';
import { removePostgresData } from '../../lib/postgres-placement';
import { freePort } from '../../lib/processes';
import { upgradeTable } from '../agents/report';
import { SYNTHETIC_CHAIN, SYNTHETIC_COLLECTION, SyntheticAgents } from '../agents/synthetic';
import { upgradeKillAndResume } from '../agents/upgrade-run';
import { corpusMessages } from '../search/corpus';
import {
  booleanFlag,
  count,
  describeLoad,
  describeMachine,
  markdownTable,
  ms,
  numberFlag,
  parseFlags,
  perSecond,
  rejectUnknownFlags,
  runBench,
  runCount,
  runDate,
  writeBenchmarkSection,
} from '../lib';

const SECTION = '## Upgrading 10,000 agents to memory search (issue 23)';
/** The template before memory search: what existing agents were at. */
const BEFORE_SEARCH = AGENT_TEMPLATE.filter((step) => step.version < 3);
const SCHEMAS_PER_STATEMENT = 500;

const log = (message: string) => console.error(`bench:upgrade: ${message}`);

interface MessageCounts {
  messages: number;
  indexed: number;
  /** Messages whose search columns differ from what the indexer computes. */
  wrong: number;
}

/** Messages of the given schemas, how many are indexed, and how many differ from the indexer's tsvectors. */
async function messageCounts(db: pg.Client, names: readonly string[]): Promise<MessageCounts> {
  const total: MessageCounts = { messages: 0, indexed: 0, wrong: 0 };
  for (let i = 0; i < names.length; i += SCHEMAS_PER_STATEMENT) {
    const parts = names.slice(i, i + SCHEMAS_PER_STATEMENT).map(
      (name) => `SELECT count(*) AS messages, count(search_en) AS indexed,
         count(*) FILTER (WHERE search_en IS DISTINCT FROM to_tsvector('english', message)
                            OR search_simple IS DISTINCT FROM to_tsvector('simple', message)) AS wrong
       FROM "${name}".messages`,
    );
    const { rows } = await db.query<Record<keyof MessageCounts, string>>(
      `SELECT sum(messages) AS messages, sum(indexed) AS indexed, sum(wrong) AS wrong FROM (${parts.join(' UNION ALL ')}) t`,
    );
    total.messages += Number(rows[0]?.messages ?? 0);
    total.indexed += Number(rows[0]?.indexed ?? 0);
    total.wrong += Number(rows[0]?.wrong ?? 0);
  }
  return total;
}

async function main(): Promise<number> {
  const flags = parseFlags();
  rejectUnknownFlags(flags, ['agents', 'messages', 'concurrency', 'database-url', 'write']);
  const agents = Math.round(numberFlag(flags, 'agents', 10_000));
  const perAgent = Math.round(numberFlag(flags, 'messages', 20));
  const concurrency = Math.round(numberFlag(flags, 'concurrency', 2));
  const startedAt = new Date();
  const loadAtStart = os.loadavg()[0] ?? NaN;

  let databaseUrl = flags.values.get('database-url');
  let stop: (() => Promise<void>) | undefined;
  let stateDir: string | undefined;
  if (!databaseUrl) {
    stateDir = await mkdtemp(path.join(os.tmpdir(), 'bench-upgrade-'));
    const server = await startPostgres({ dataDir: path.join(stateDir, 'postgres'), port: await freePort() });
    stop = () => server.stop();
    await ensureDatabase(server.adminUrl, 'bench_upgrade');
    databaseUrl = server.databaseUrl('bench_upgrade');
  }
  await migrateGateway(databaseUrl);
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const pool = new pg.Pool({ connectionString: databaseUrl, max: concurrency });
  const sqlPool = pool as unknown as SqlPool;
  try {
    // 1. Agents as they were before search: v2 schemas with messages.
    const synthetic = new SyntheticAgents();
    await synthetic.init(db);
    const texts = corpusMessages(23, 0, perAgent);
    const bar = progressBar(`bench:upgrade: ${count(agents)} agent schemas at v2 with ${perAgent} messages each`, agents);
    let made = 0;
    const { elapsedMs: setUpMs } = await runCount(agents, concurrency, async () => {
      const { identity, schema } = await synthetic.take();
      await provision(sqlPool, identity, schema, BEFORE_SEARCH);
      await pool.query(`INSERT INTO ${schema.quoted}.contexts (key) VALUES ('customer/notes')`);
      const messages = texts.map((message) => ({ role: 'user' as const, message }));
      const { text, values } = appendSql(schema, 'customer/notes', messages);
      await pool.query(text, values);
      bar.update(++made);
    });
    bar.finish();

    // 2. The real agents:upgrade, killed half way and resumed.
    log(`npm run agents:upgrade v2 → v${TEMPLATE_VERSION}, killed half way, then rerun...`);
    const upgrade = await upgradeKillAndResume(db, databaseUrl, { table: 'messages', name: 'messages_search', version: 3 });

    // 3. Every message indexed, as the indexer computes it.
    const { rows } = await db.query<{ schema_name: string }>(
      'SELECT schema_name FROM gateway.agent_storage WHERE chain_id = $1 AND collection = $2 AND token_id::numeric >= $3::numeric',
      [SYNTHETIC_CHAIN, SYNTHETIC_COLLECTION.toLowerCase(), synthetic.first.toString()],
    );
    const names = rows.map((r) => r.schema_name);
    const counted = await messageCounts(db, names);
    const expected = agents * perAgent;
    upgrade.checks.push(
      {
        label: 'the rerun finished the indexing the killed run left',
        ok: upgrade.resumed.finished <= 1,
        detail: `${upgrade.resumed.finished} schema(s) found half indexed and finished`,
      },
      {
        label: 'every message indexed (count over all schemas)',
        ok: counted.messages === expected && counted.indexed === expected && counted.wrong === 0,
        detail: `${count(counted.indexed)} of ${count(counted.messages)} indexed (${count(expected)} appended), ${counted.wrong} differ from the indexer's tsvectors`,
      },
    );
    const loadAtEnd = os.loadavg()[0] ?? NaN;

    const k = upgrade.killed;
    const r = upgrade.resumed;
    const parts = markdownTable(
      ['Part', 'Schemas', 'Time', 'Schemas/s'],
      [
        [
          `Set-up: ${count(agents)} v2 schemas with ${perAgent} messages each (${concurrency} at a time)`,
          count(agents),
          ms(setUpMs),
          perSecond(agents, setUpMs),
        ],
        ['Upgrade, run 1 (SIGKILL part way)', count(k.upgraded), ms(k.wallMs), perSecond(k.upgraded, k.wallMs)],
        ['Upgrade, run 2 (rerun to completion)', count(r.upgraded), ms(r.wallMs), perSecond(r.upgraded, r.wallMs)],
        [
          'Upgrade, both runs',
          count(k.upgraded + r.upgraded),
          ms(k.wallMs + r.wallMs),
          perSecond(k.upgraded + r.upgraded, k.wallMs + r.wallMs),
        ],
      ],
      ['left', 'right', 'right', 'right'],
    );
    const failed = upgrade.checks.filter((c) => !c.ok).length;
    const body = [
      `Command: \`npm run bench:upgrade --${agents !== 10_000 ? ` --agents ${agents}` : ''}${perAgent !== 20 ? ` --messages ${perAgent}` : ''}${booleanFlag(flags, 'write') ? ' --write' : ''}\`, run ${runDate(startedAt)}.`,
      `Machine: ${describeMachine()}; ${describeLoad(loadAtStart, loadAtEnd)}. Database: ${flags.values.has('database-url') ? 'the given one' : 'an embedded Postgres 17 of the script’s own (fsync on)'}.`,
      '',
      `${count(agents)} agent schemas at template v2 (before memory search), each with ${perAgent} messages of the search corpus in one context, brought to v${TEMPLATE_VERSION} by the real \`npm run agents:upgrade\` (batches of 100): per schema the template steps after v2 in one transaction (v3's search columns and indexes, then every later step), then its messages indexed outside it. The first run is killed with SIGKILL about half way; the second runs to completion. Wall times include the process start-up; a run's schemas/s counts the schemas it committed at v${TEMPLATE_VERSION}.`,
      '',
      parts,
      '',
      upgradeTable(upgrade),
    ].join('\n');
    console.log(`\n${body}\n`);
    if (booleanFlag(flags, 'write')) log(`wrote "${SECTION}" in ${await writeBenchmarkSection(SECTION, body)}`);
    if (failed > 0) log(`${failed} check(s) failed (see the table)`);
    return failed > 0 ? 1 : 0;
  } finally {
    await db.end().catch(() => undefined);
    await pool.end().catch(() => undefined);
    await stop?.();
    if (stateDir) {
      await removePostgresData(path.join(stateDir, 'postgres')); // also data placed outside a private TMPDIR (as root)
      await rm(stateDir, { recursive: true, force: true });
    }
  }
}

runBench('bench:upgrade', main);
