/**
 * Appends, on a fresh agent, through the client, each beside its floor (`appendSql` of
 * src/contexts/messages.service.ts run from Node over warm pg connections, in the same run):
 *
 * - one message, sequential (one client), gateway and floor interleaved, `--requests` rounds;
 * - one message, 16 concurrent clients on one context, `--appends` calls (floor: 16 pg clients);
 * - a batch of 100 messages a call with an Idempotency-Key (a new key per call), 8 concurrent
 *   clients, each on its own context, `--batches` calls: messages/s and p50 per call (floor: the
 *   same 100 rows in one `INSERT … SELECT unnest(…)`, 8 pg clients on their own contexts).
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { NewContextMessage } from '../../../src/client';
import { appendSql } from '../../../src/contexts/messages.service';
import { BenchError, count, markdownTable, ms, perSecond, ratio } from '../lib';
import { failureOf, floorStep, tokenClient, timed, type Step } from '../lib/client';
import { failuresCell, measureCases, measureConcurrent, mergeCounters, met, type ConcurrentResult, type PairResult } from '../lib/measure';
import { WARM_UP, log, message, type BenchAgent, type BenchContext, type SectionReport } from './common';

export const APPENDS_HEADING = '## Appends (issues 4 and 10)';
const CONCURRENCY = 16;
const BATCH_CLIENTS = 8;
const BATCH_SIZE = 100;
/** Batch appends reach at least this share of the floor's messages/s (issue 10). */
const BATCH_TARGET = 0.1;
const APPEND_KEY = 'bench:appends';

interface AppendPart {
  sequential: PairResult;
  gateway: ConcurrentResult;
  floor: ConcurrentResult;
  batchGateway: ConcurrentResult;
  batchFloor: ConcurrentResult;
}

function batch(start: number): NewContextMessage[] {
  return Array.from({ length: BATCH_SIZE }, (_, i) => ({ role: 'user', message: message(start + i) }));
}

async function withPgClients<T>(databaseUrl: string, n: number, run: (clients: pg.Client[]) => Promise<T>): Promise<T> {
  const clients = Array.from({ length: n }, () => new pg.Client({ connectionString: databaseUrl }));
  try {
    await Promise.all(clients.map((c) => c.connect()));
    return await run(clients);
  } finally {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
  }
}

async function createContext(agent: BenchAgent, key: string): Promise<void> {
  try {
    await agent.api.createContext(key);
  } catch (err) {
    throw new BenchError(`appends: POST /context answered ${failureOf(err)}`);
  }
}

async function benchAppends(ctx: BenchContext, agent: BenchAgent): Promise<AppendPart> {
  const { options, db, stack, testnet } = ctx;
  await createContext(agent, APPEND_KEY);
  const floorAppend = (client: pg.Client, key: string, messages: NewContextMessage[]) =>
    floorStep(async () => {
      const { text, values } = appendSql(agent.schema, key, messages);
      const { rowCount } = await client.query(text, values);
      return rowCount === messages.length ? undefined : `floor stored ${rowCount} rows`;
    });
  const gatewayAppend = (api: BenchAgent['api'], i: number) =>
    timed(() => api.appendMessage(APPEND_KEY, { role: 'user', message: message(i) }));

  log(`appends: ${WARM_UP} warm-up + ${options.requests} sequential appends, gateway and floor interleaved...`);
  let seq = 0;
  const [sequential] = await measureCases(WARM_UP, options.requests, [
    {
      gateway: () => gatewayAppend(agent.api, seq++),
      floor: () => floorAppend(db, APPEND_KEY, [{ role: 'user', message: message(seq++) }]),
    },
  ]);

  const apis = Array.from({ length: CONCURRENCY }, () =>
    tokenClient(testnet, ctx.client.token).agent(testnet.collection, agent.identity.tokenId),
  );
  log(`appends: ${count(options.appends)} appends through the gateway, ${CONCURRENCY} concurrent clients...`);
  const gateway = await measureConcurrent(options.appends, CONCURRENCY, (c, i) => gatewayAppend(apis[c]!, 100_000 + i));
  log(`appends: ${count(options.appends)} appends at the floor, ${CONCURRENCY} concurrent pg clients...`);
  const floor = await withPgClients(stack.databaseUrl, CONCURRENCY, (clients) =>
    measureConcurrent(options.appends, CONCURRENCY, (c, i) =>
      floorAppend(clients[c]!, APPEND_KEY, [{ role: 'user', message: message(200_000 + i) }]),
    ),
  );

  const batchKeys = Array.from({ length: BATCH_CLIENTS }, (_, c) => `bench:batch-${c}`);
  const floorKeys = Array.from({ length: BATCH_CLIENTS }, (_, c) => `bench:batch-floor-${c}`);
  for (const key of [...batchKeys, ...floorKeys]) await createContext(agent, key);
  log(`appends: ${count(options.batches)} batch appends of ${BATCH_SIZE} with an Idempotency-Key, ${BATCH_CLIENTS} concurrent clients...`);
  const run = randomUUID();
  const batchStep = (c: number, i: number): Promise<Step> =>
    timed(
      () => apis[c]!.appendMessages(batchKeys[c]!, batch(1_000_000 + i * BATCH_SIZE), { idempotencyKey: `bench-${run}-${i}` }),
      (r) => (r.replayed ? 'replayed' : r.messages.length === BATCH_SIZE ? undefined : `stored ${r.messages.length} messages`),
    );
  const batchGateway = await measureConcurrent(options.batches, BATCH_CLIENTS, batchStep);
  log(`appends: ${count(options.batches)} batches of ${BATCH_SIZE} at the floor, ${BATCH_CLIENTS} concurrent pg clients...`);
  const batchFloor = await withPgClients(stack.databaseUrl, BATCH_CLIENTS, (clients) =>
    measureConcurrent(options.batches, BATCH_CLIENTS, (c, i) => floorAppend(clients[c]!, floorKeys[c]!, batch(2_000_000 + i * BATCH_SIZE))),
  );
  return { sequential: sequential!, gateway, floor, batchGateway, batchFloor };
}

function appendTable(part: AppendPart): string {
  const s = part.sequential;
  const row = (label: string, g: ConcurrentResult, f: ConcurrentResult, perCall: number): string[] => [
    label,
    String(g.count),
    ms(g.latency.median),
    ms(g.latency.p99),
    `${perSecond(g.count * perCall, g.elapsedMs)}${perCall > 1 ? ' messages' : ''}`,
    ms(f.latency.median),
    ms(f.latency.p99),
    `${perSecond(f.count * perCall, f.elapsedMs)}${perCall > 1 ? ' rows' : ''}`,
    `${ratio(g.latency.median, f.latency.median)} median, ${ratio(rate(g), rate(f))} throughput`,
    failuresCell(mergeCounters(g.failures, f.failures)),
  ];
  const rows = [
    [
      'Append one message, sequential (1 client)',
      String(s.gateway.n),
      ms(s.gateway.median),
      ms(s.gateway.p99),
      perSecond(1, s.gateway.median),
      ms(s.floor.median),
      ms(s.floor.p99),
      perSecond(1, s.floor.median),
      `${ratio(s.gateway.median, s.floor.median)} median`,
      failuresCell(s.failures),
    ],
    row(`Append one message, ${CONCURRENCY} concurrent clients, one context`, part.gateway, part.floor, 1),
    row(
      `Batch append, ${BATCH_SIZE} messages a call with an Idempotency-Key, ${BATCH_CLIENTS} concurrent clients, a context each`,
      part.batchGateway,
      part.batchFloor,
      BATCH_SIZE,
    ),
  ];
  return markdownTable(
    [
      'Measurement',
      'Calls',
      'Gateway median',
      'Gateway p99',
      'Gateway throughput',
      'Floor median',
      'Floor p99',
      'Floor throughput',
      'Gateway / floor',
      'Unexpected',
    ],
    rows,
    ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
  );
}

/** Calls per second. */
function rate(r: ConcurrentResult): number {
  return r.elapsedMs > 0 ? (r.count * 1000) / r.elapsedMs : NaN;
}

function appendReading(app: AppendPart): string[] {
  const seq = app.sequential;
  const g = app.gateway;
  const f = app.floor;
  const share = rate(app.batchGateway) / rate(app.batchFloor);
  return [
    `**One message.** One client: ${met(seq.gateway.median, 10)} at the gateway against the 10 ms p50 target on loopback; the floor (the same \`appendSql\` statement on a warm connection) takes ${ms(seq.floor.median)}, so ${ms(seq.gateway.median - seq.floor.median)} is per-request overhead (the gates and the worker's round trips). ` +
      `With ${CONCURRENCY} concurrent clients on one context the gateway stores ${perSecond(g.count, g.elapsedMs)} (p50 ${ms(g.latency.median)}) against ${perSecond(f.count, f.elapsedMs)} at the floor (p50 ${ms(f.latency.median)}), where appends to one context serialise on the context row's lock.`,
    `**Batches.** ${BATCH_SIZE} messages a call with an Idempotency-Key, ${BATCH_CLIENTS} clients: ${perSecond(app.batchGateway.count * BATCH_SIZE, app.batchGateway.elapsedMs)} messages (p50 ${ms(app.batchGateway.latency.median)} a call) against ${perSecond(app.batchFloor.count * BATCH_SIZE, app.batchFloor.elapsedMs)} rows at the floor (p50 ${ms(app.batchFloor.latency.median)}), ` +
      `${Number.isFinite(share) ? `${share.toFixed(2)}x` : 'n/a'}: target ≥ ${BATCH_TARGET}x ${Number.isFinite(share) ? (share >= BATCH_TARGET ? '**met**' : '**not met**') : 'not measured'}.`,
  ];
}

export async function appendsSection(ctx: BenchContext, agent: BenchAgent): Promise<SectionReport> {
  const app = await benchAppends(ctx, agent);
  const unexpected =
    app.sequential.failures.total() +
    [app.gateway, app.floor, app.batchGateway, app.batchFloor].reduce((n, r) => n + r.failures.total(), 0);
  const body = [appendTable(app), '', ...appendReading(app).flatMap((p) => [p, ''])].join('\n');
  return { heading: APPENDS_HEADING, body, unexpected };
}
