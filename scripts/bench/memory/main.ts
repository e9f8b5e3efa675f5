/**
 * `npm run bench [-- --only a,b] [--big N] [--small N] [--requests N] [--appends N] [--batches N]
 * [--fresh N] [--seconds N] [--write]` (also `npm run bench:memory`): what agent memory and the
 * critical path cost, against the running local stack (`DEV_RATE_LIMITS=0 npm run dev`, testnet
 * worker). Every gateway request goes through the typed client (src/client), logged in with the
 * client's login helper and a viem account; every figure stands beside its floor from the same run.
 *
 * Sections (`--only` picks some, comma-separated; all by default), one file each:
 * - seeding.ts      two agents with `--big` (10^6) and `--small` (10^4) keys (run too for lists)
 * - lists.ts        page 1, middle page, search; gateway vs listKeysSql, `--requests` (50) rounds
 * - appends.ts      one message (1 and 16 clients, `--appends` 2000), batches of 100 with an
 *                   Idempotency-Key (8 clients, `--batches` 200 calls) vs appendSql
 * - provisioning.ts first vs second POST /context on `--fresh` (20) agents vs provision()
 * - critical-path.ts each path's median over the no-I/O answer, in units of the stack's latency
 * - ceiling.ts      gated reads vs the no-I/O answer, 16 clients, rounds of `--seconds` (5)
 *
 * `--write` replaces each run section's `## ` section of BENCHMARKS.md. Reads
 * `<DEV_DIR>/stack.json` (default `.dev`); the data it creates stays in the dev database. Prints
 * figures, never asserts on them; exits 1 only when the stack is not running or a request answers
 * something unexpected. Never prints tokens or private keys.
 */
import os from 'node:os';
import pg from 'pg';
import { count, describeMachine, machineFacts, readStack, runBench } from '../lib';
import { loggedInClient, newWallet, stackLatency } from '../lib/client';
import { appendsSection } from './appends';
import { ceilingSection } from './ceiling';
import { WARM_UP, log, mintAgents, type BenchAgent, type BenchContext, type SectionReport } from './common';
import { criticalPathSection } from './critical-path';
import { readOptions, type SectionName } from './options';
import { benchLists } from './lists';
import { provisioningSection } from './provisioning';
import { memoryReport, serverFacts, writeReports } from './report';
import { checkWords, seedAgent } from './seeding';

async function main(): Promise<number> {
  const { options, only, command } = readOptions(process.argv.slice(2));
  checkWords();
  const stack = await readStack();
  const { testnet } = stack;
  const machine = machineFacts();
  const loadAtStart = os.loadavg()[0] ?? NaN;
  const startedAt = new Date();
  const latency = stackLatency(stack);
  log(
    `stack: testnet ${testnet.baseUrl}, R = ${latency.rpcMs} ms, D = ${latency.dbMs} ms; ${describeMachine(machine)}; load average ${loadAtStart.toFixed(2)}`,
  );
  log(`sections: ${[...only].join(', ')}; ${WARM_UP} warm-up rounds; ${JSON.stringify(options)}`);

  const db = new pg.Client({ connectionString: stack.databaseUrl });
  await db.connect();
  const pool = new pg.Pool({ connectionString: stack.databaseUrl, max: 1 });
  pool.on('error', () => undefined);
  try {
    const server = await serverFacts(db);
    log(`database: ${server}`);
    const owner = newWallet();
    const client = await loggedInClient(testnet, owner);
    const ctx: BenchContext = { stack, testnet, latency, options, db, pool, owner, client };
    /** Agents each section needs, minted up front. */
    const needs: Record<SectionName, number> = {
      seeding: 2,
      lists: 0,
      appends: 1,
      provisioning: options.fresh,
      'critical-path': 1,
      ceiling: 1,
    };
    const agents = await mintAgents(
      ctx,
      [...only].reduce((n, name) => n + needs[name], 0),
    );
    const take = (k: number) => agents.splice(0, k);

    const reports: SectionReport[] = [];
    if (only.has('seeding')) {
      const [a, b] = take(2) as [BenchAgent, BenchAgent];
      log('seeding two agents...');
      const seededBig = await seedAgent(db, a, options.big, `A (${count(options.big)} keys)`);
      const seededSmall = await seedAgent(db, b, options.small, `B (${count(options.small)} keys)`);
      const lists = only.has('lists') ? await benchLists(ctx, seededSmall, seededBig) : null;
      reports.push(memoryReport([seededSmall, seededBig], lists, options));
    }
    if (only.has('appends')) reports.push(await appendsSection(ctx, take(1)[0]!));
    if (only.has('provisioning')) reports.push(await provisioningSection(ctx, take(options.fresh)));
    if (only.has('critical-path')) reports.push(await criticalPathSection(ctx, take(1)[0]!));
    if (only.has('ceiling')) reports.push(await ceilingSection(ctx, take(1)[0]!));

    console.log(['', ...reports.flatMap((r) => [r.heading, '', r.body])].join('\n'));
    for (const r of reports) if (r.notes) console.error(r.notes);
    const unexpected = reports.reduce((n, r) => n + r.unexpected, 0);
    if (options.write) {
      const loadAtEnd = os.loadavg()[0] ?? NaN;
      const marked = reports.map((r) =>
        r.unexpected > 0
          ? {
              ...r,
              body: `${r.body}\n**${r.unexpected} unexpected answers in this run** (see the Unexpected columns): treat its figures with care.\n`,
            }
          : r,
      );
      await writeReports(marked, { command, startedAt, machine, loadAtStart, loadAtEnd, server });
    }
    if (unexpected > 0) {
      log(`${unexpected} requests answered something unexpected (see the tables)`);
      return 1;
    }
    return 0;
  } finally {
    await db.end().catch(() => undefined);
    await pool.end().catch(() => undefined);
  }
}

runBench('bench:memory', main);
