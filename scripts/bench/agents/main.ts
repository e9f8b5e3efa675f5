/**
 * `npm run bench:agents [-- --agents N] [--batch B] [--concurrency C] [--fresh F] [--write]`:
 * 10,000 agents in one database (issue 10, item 6), against the running local stack
 * (`DEV_RATE_LIMITS=0 npm run dev`, testnet worker).
 *
 * 1. First requests at the current size: `--fresh` (default 10) newly minted agents, each its
 *    first `GET …/contexts/keys` and first `POST …/context` (which provisions) through the typed
 *    client, beside the Node floor (schema lookup; lookup + `provision()` + insert).
 * 2. Provisioning: `--agents` (default 10,000) synthetic agent schemas (a collection nobody
 *    deployed, chain 80002) created with `provision()` from Node at template v1, in batches of
 *    `--batch` (default 1,000), `--concurrency` (default 1) at a time; schemas/s, p50/p99 each.
 * 3. Catalog size before, after, and after the upgrade: pg_class and pg_attribute rows, the size
 *    of pg_catalog's relations, the database; per agent.
 * 4. First requests again, on `--fresh` more agents, with the synthetic schemas in place.
 * 5. The real `npm run agents:upgrade` over every schema below the last template version:
 *    SIGKILLed about half way, rerun to completion; checks none was skipped or upgraded twice and
 *    every schema has the v2 index.
 * Prints markdown tables; `--write` replaces the "## 10,000 agents" section of BENCHMARKS.md.
 *
 * Reads `<DEV_DIR>/stack.json` (default `.dev`). Everything it creates stays in the dev database.
 * Exits 1 when a check fails or a request answers something unexpected. Never prints a token or key.
 */
import os from 'node:os';
import pg from 'pg';
import { TEMPLATE_VERSION } from '../../../src/storage/agent-template';
import {
  BenchError,
  booleanFlag,
  count,
  describeMachine,
  machineFacts,
  numberFlag,
  parseFlags,
  readStack,
  rejectUnknownFlags,
  runBench,
  writeBenchmarkSection,
  runDate,
  stackRun,
} from '../lib';
import { firstRequests, mintedAgents } from './first-requests';
import { catalogTable, firstRequestsTable, provisioningTable, reading, upgradeTable, type Figures } from './report';
import { catalogStats, provisionSynthetic, SYNTHETIC_COLLECTION, SyntheticAgents } from './synthetic';
import { upgradeKillAndResume } from './upgrade-run';

const SECTION = '## 10,000 agents';

function log(message: string): void {
  console.error(`bench:agents: ${message}`);
}

async function serverFacts(db: pg.Client): Promise<string> {
  const { rows } = await db.query<{ name: string; setting: string }>(
    `SELECT name, setting FROM pg_settings WHERE name IN ('server_version', 'fsync', 'synchronous_commit') ORDER BY name`,
  );
  const get = (name: string) => rows.find((r) => r.name === name)?.setting ?? '?';
  return `Postgres ${get('server_version')}; fsync ${get('fsync')}, synchronous_commit ${get('synchronous_commit')}`;
}

async function main(): Promise<number> {
  const flags = parseFlags();
  rejectUnknownFlags(flags, ['agents', 'batch', 'concurrency', 'fresh', 'write']);
  const agents = Math.round(numberFlag(flags, 'agents', 10_000));
  const batch = Math.round(numberFlag(flags, 'batch', 1_000));
  const concurrency = Math.round(numberFlag(flags, 'concurrency', 1));
  const fresh = Math.round(numberFlag(flags, 'fresh', 10));
  const write = booleanFlag(flags, 'write');
  if (agents < 2) throw new BenchError('--agents must be at least 2 (the upgrade is killed half way)');

  const stack = await readStack();
  const { testnet } = stack;
  const facts = machineFacts();
  const loadAtStart = os.loadavg()[0] ?? NaN;
  const startedAt = new Date();
  log(`stack: testnet ${testnet.baseUrl}; ${describeMachine(facts)}; load average ${loadAtStart.toFixed(2)}`);

  const db = new pg.Client({ connectionString: stack.databaseUrl });
  await db.connect();
  const pool = new pg.Pool({ connectionString: stack.databaseUrl, max: Math.max(1, concurrency) });
  pool.on('error', () => undefined);
  try {
    await pool.query('select 1');
    const server = await serverFacts(db);
    const synthetic = new SyntheticAgents();
    await synthetic.init(db);
    // One warm-up agent per round, not counted.
    const { client, tokenIds } = await mintedAgents(testnet, 2 * (fresh + 1));

    log(`first requests of ${fresh} new agents...`);
    const firstBefore = await firstRequests(
      client,
      testnet.collection,
      tokenIds.slice(0, fresh + 1),
      pool,
      synthetic,
      (await catalogStats(db)).schemas,
    );
    const before = await catalogStats(db);
    log(`${count(before.schemas)} agent schemas; provisioning ${count(agents)} more at v1...`);
    const provisioning = await provisionSynthetic(pool, synthetic, {
      total: agents,
      batchSize: batch,
      concurrency,
      schemasAtStart: before.schemas,
    });
    const provisioned = await catalogStats(db);
    log(`first requests of ${fresh} new agents at ${count(provisioned.schemas)} schemas...`);
    const firstAfter = await firstRequests(client, testnet.collection, tokenIds.slice(fresh + 1), pool, synthetic, provisioned.schemas);
    const preUpgrade = await catalogStats(db);
    log(`npm run agents:upgrade to v${TEMPLATE_VERSION}, killed half way, then rerun...`);
    const upgrade = await upgradeKillAndResume(db, stack.databaseUrl);
    const upgraded = await catalogStats(db);
    const loadAtEnd = os.loadavg()[0] ?? NaN;

    const figures: Figures = {
      agents,
      provisioning,
      catalog: { before, provisioned, preUpgrade, upgraded },
      firstBefore,
      firstAfter,
      upgrade,
    };
    const report = [
      `### Provisioning ${count(agents)} agent schemas (\`provision()\` from Node, template v1, ${concurrency} at a time)`,
      '',
      provisioningTable(provisioning),
      '',
      '### Catalog',
      '',
      catalogTable(figures),
      '',
      '### A new agent’s first read and first write',
      '',
      firstRequestsTable(figures),
      '',
      `### \`npm run agents:upgrade\` v1 → v${TEMPLATE_VERSION}, killed and resumed`,
      '',
      upgradeTable(upgrade),
      '',
      '### Reading the figures',
      '',
      ...reading(figures).flatMap((p) => [p, '']),
    ];
    console.log(['', ...report].join('\n'));

    const unexpected =
      provisioning.failures.total() +
      [firstBefore, firstAfter].reduce((n, x) => n + x.read.failures.total() + x.write.failures.total(), 0) +
      upgrade.checks.filter((c) => !c.ok).length;
    if (provisioning.failures.total() > 0) log(`provisioning failures: ${provisioning.failures.format()}`);

    if (write) {
      const args = [
        agents !== 10_000 ? `--agents ${agents}` : '',
        batch !== 1_000 ? `--batch ${batch}` : '',
        concurrency !== 1 ? `--concurrency ${concurrency}` : '',
        fresh !== 10 ? `--fresh ${fresh}` : '',
        '--write',
      ].filter(Boolean);
      const date = runDate(startedAt);
      const devStack = stackRun();
      const body = [
        `Command: \`npm run bench:agents -- ${args.join(' ')}\` against \`${devStack.command}\` (testnet worker), run ${date}.`,
        `Machine: ${describeMachine(facts)}; load average ${loadAtStart.toFixed(2)} at the start and ${loadAtEnd.toFixed(2)} at the end. Database: ${server} (the dev stack's embedded Postgres).`,
        '',
        `Synthetic agents: collection ${SYNTHETIC_COLLECTION} (deployed nowhere) on chain 80002, created with \`provision()\` at template v1 so that \`agents:upgrade\` has ${count(agents)} schemas to bring to v${TEMPLATE_VERSION}. ` +
          `New agents: ${fresh} per round (after one warm-up), minted on the demo collection to a fresh logged-in wallet and driven through the typed client (\`src/client\`); each floor runs on a new synthetic identity (at the current template). ` +
          `Latency is client-side, call to parsed answer, over loopback, the worker in ${devStack.runner}. The data stays in the dev database.`,
        '',
        ...report,
        ...(unexpected > 0 ? [`**${unexpected} unexpected answers or failed checks in this run**: treat its figures with care.`] : []),
      ].join('\n');
      log(`wrote "${SECTION}" in ${await writeBenchmarkSection(SECTION, body)}`);
    }
    if (unexpected > 0) {
      log(`${unexpected} unexpected answers or failed checks (see the tables)`);
      return 1;
    }
    return 0;
  } finally {
    await db.end().catch(() => undefined);
    await pool.end().catch(() => undefined);
  }
}

runBench('bench:agents', main);
