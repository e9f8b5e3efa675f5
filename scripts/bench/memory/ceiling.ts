/**
 * The local stack's ceiling (issue 10): gated reads (`GET …/contexts/keys` through the client)
 * at 16 concurrent clients against the same stack's no-I/O answer (`GET /no-such-route`, 404,
 * plain fetch) at 16 clients, in alternating rounds of `--seconds` each so the machine's noise
 * hits both alike: requests/s, p50, and the ratio (target ≥ 0.3x).
 */
import { BenchError, Counter, markdownTable, ms, perSecond, ratio, runConcurrent, runForDuration, summarize, type Summary } from '../lib';
import { failureOf, noIoRequest, timed, tokenClient, type Step } from '../lib/client';
import { failuresCell } from '../lib/measure';
import { log, type BenchAgent, type BenchContext, type SectionReport } from './common';

export const CEILING_HEADING = '## Ceiling of the local stack (issue 10)';
const CONCURRENCY = 16;
const ROUNDS = 4;
const TARGET = 0.3;

interface Throughput {
  requests: number;
  elapsedMs: number;
  latency: Summary;
  failures: Counter<string>;
}

async function phase(
  seconds: number,
  steps: ((client: number) => Promise<Step>)[],
  into: { samples: number[]; t: Throughput },
): Promise<void> {
  const { elapsedMs } = await runForDuration(CONCURRENCY, seconds * 1000, async (client) => {
    const r = await steps[client]!(client);
    if (r.failure) into.t.failures.add(r.failure);
    else into.samples.push(r.ms);
  });
  into.t.elapsedMs += elapsedMs;
}

export async function ceilingSection(ctx: BenchContext, agent: BenchAgent): Promise<SectionReport> {
  const { testnet, options } = ctx;
  try {
    await agent.api.createContext('bench:ceiling');
  } catch (err) {
    throw new BenchError(`ceiling: POST /context answered ${failureOf(err)}`);
  }
  const apis = Array.from({ length: CONCURRENCY }, () =>
    tokenClient(testnet, ctx.client.token).agent(testnet.collection, agent.identity.tokenId),
  );
  const gated = apis.map((api) => () => timed(() => api.listContextKeys()));
  const noIo = apis.map(() => () => noIoRequest(testnet.baseUrl));
  const fresh = () => ({
    samples: [] as number[],
    t: { requests: 0, elapsedMs: 0, latency: summarize([]), failures: new Counter<string>() },
  });
  const g = fresh();
  const f = fresh();
  // Warm-up: one request of each kind per client (connections, isolates), not counted.
  await runConcurrent(CONCURRENCY, async (c) => {
    await gated[c]!();
    await noIo[c]!();
  });
  log(`ceiling: ${ROUNDS} alternating rounds of ${options.seconds} s each, no-I/O then gated reads, ${CONCURRENCY} clients...`);
  for (let round = 0; round < ROUNDS; round++) {
    await phase(options.seconds, noIo, f);
    await phase(options.seconds, gated, g);
  }
  for (const x of [g, f]) {
    x.t.requests = x.samples.length;
    x.t.latency = summarize(x.samples);
  }
  const gRate = (g.t.requests * 1000) / g.t.elapsedMs;
  const fRate = (f.t.requests * 1000) / f.t.elapsedMs;
  const share = gRate / fRate;
  const row = (label: string, t: Throughput): string[] => [
    label,
    String(t.requests),
    perSecond(t.requests, t.elapsedMs),
    ms(t.latency.median),
    ms(t.latency.p99),
    failuresCell(t.failures),
  ];
  const table = markdownTable(
    ['Measurement', 'Requests', 'Throughput', 'p50', 'p99', 'Unexpected'],
    [
      row(`No-I/O answer: GET /no-such-route (404), ${CONCURRENCY} clients`, f.t),
      row(`Gated read: GET …/contexts/keys, ${CONCURRENCY} clients`, g.t),
      ['Gated / no-I/O', '', ratio(gRate, fRate), '', '', ''],
    ],
    ['left', 'right', 'right', 'right', 'right', 'right'],
  );
  const verdict = Number.isFinite(share) ? (share >= TARGET ? '**met**' : '**not met**') : 'not measured';
  const body = [
    table,
    '',
    `${ROUNDS} alternating rounds of ${options.seconds} s each (no-I/O, then gated reads), ${CONCURRENCY} concurrent clients each; one warm-up request per client and kind not counted. ` +
      `Gated reads reach ${Number.isFinite(share) ? `${share.toFixed(2)}x` : 'n/a'} of the no-I/O answer's throughput: target ≥ ${TARGET}x ${verdict}.`,
    '',
  ].join('\n');
  return { heading: CEILING_HEADING, body, unexpected: g.t.failures.total() + f.t.failures.total() };
}
