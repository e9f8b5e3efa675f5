/**
 * `npm run bench:identity [-- --seconds N] [--requests N] [--write]`: what wallet login and the
 * three gates of agent-scoped routes cost, against the running local stack (`npm run dev`).
 *
 * 1. Logins: 16 fresh wallets log in on the testnet worker concurrently (init, personal_sign,
 *    finish) for `--seconds` (default 10); logins/s and full-login and finish latency.
 * 2. Gates: one agent minted to a fresh wallet; then sequential latency (50 warm-up requests,
 *    `--requests` (default 500) measured per case, cases round-robin so drift hits all alike):
 *      (a) GET /no-such-route → 404: routing and middleware, no gate, no I/O (the baseline)
 *      (b) GET /agent/{collection}/{tokenId} with a mainnet token → 401: the bearer gate only
 *      (c) the same on an unregistered collection → 404: bearer + registry lookup (a miss is never cached)
 *      (d) the same as the owner → 200: bearer + registry + ownerOf eth_call
 *    and throughput of (a) and (d) with 16 concurrent clients, in alternating rounds.
 * 3. Prints a markdown table; `--write` replaces the "## Identity (issue 3)" section of
 *    BENCHMARKS.md.
 *
 * Every gateway request goes through the typed client (src/client), except (a), which the client
 * does not know (plain fetch). Reads `<DEV_DIR>/stack.json` (default `.dev`). Prints figures, never asserts on them; exits 1
 * only when the stack is not running or a request answers something other than expected.
 * Never prints tokens or private keys.
 */
import os from 'node:os';
import type { Address } from 'viem';
import { createGatewayClient, isGatewayError, type GatewayClient } from '../../src/client';
import { mintAgent } from '../lib/contracts';
import {
  BenchError,
  Counter,
  booleanFlag,
  describeMachine,
  machineFacts,
  markdownTable,
  ms,
  now,
  numberFlag,
  parseFlags,
  perSecond,
  readStack,
  rejectUnknownFlags,
  runConcurrent,
  runForDuration,
  summarize,
  writeBenchmarkSection,
  type DeploymentInfo,
  type Summary,
  runBench,
  runDate,
  stackRun,
} from './lib';
import { failureOf, loggedInClient, newWallet, noIoRequest, rpc, timed, type Step, type Wallet } from './lib/client';

const SECTION = '## Identity (issue 3)';
const CONCURRENCY = 16;
const WARM_UP = 50;
/** Throughput of (a) and (d) is measured in this many alternating rounds each. */
const THROUGHPUT_ROUNDS = 4;

/** Set from the command line in main(). */
let seconds = 10;
let requests = 500;
let write = false;

function readFlags(): void {
  const flags = parseFlags();
  rejectUnknownFlags(flags, ['seconds', 'requests', 'write']);
  seconds = numberFlag(flags, 'seconds', 10);
  requests = Math.round(numberFlag(flags, 'requests', 500));
  write = booleanFlag(flags, 'write');
}

function log(message: string): void {
  console.error(`bench:identity: ${message}`);
}

// ---------------------------------------------------------------------------
// Login
// ---------------------------------------------------------------------------

interface LoginTiming {
  ok: boolean;
  /** init + sign + finish, ms */
  full: number;
  /** finish alone, ms */
  finish: number;
  /** What went wrong, for counting: `init 429`, `finish 401 nonce_used`, `finish ECONNRESET`. */
  failure?: string;
}

/** init, sign, finish through the client's calls, on a client of no token. */
async function timedLogin(deployment: DeploymentInfo, wallet: Wallet): Promise<LoginTiming> {
  const walletAddress = wallet.address;
  const chainId = deployment.chainId;
  const client = createGatewayClient({ baseUrl: deployment.baseUrl, timeoutMs: 30_000 });
  const t0 = now();
  let challenge: { message: string; nonce: string };
  try {
    challenge = await client.initLogin({ walletAddress, chainId });
  } catch (err) {
    return { ok: false, full: now() - t0, finish: NaN, failure: `init ${failureOf(err)}` };
  }
  const signature = await wallet.signMessage({ message: challenge.message });
  const t1 = now();
  try {
    await client.finishLogin({ walletAddress, chainId, signature, nonce: challenge.nonce });
  } catch (err) {
    const t = now();
    return { ok: false, full: t - t0, finish: t - t1, failure: `finish ${failureOf(err)}` };
  }
  const t2 = now();
  return { ok: true, full: t2 - t0, finish: t2 - t1 };
}

interface LoginResult {
  logins: number;
  elapsedMs: number;
  full: Summary;
  finish: Summary;
  failures: Counter<string>;
}

async function benchLogins(deployment: DeploymentInfo): Promise<LoginResult> {
  const wallets = Array.from({ length: CONCURRENCY }, newWallet);
  // Warm-up: one login per wallet (bundles, KV, DB pool paths); not counted.
  await runConcurrent(CONCURRENCY, (i) => timedLogin(deployment, wallets[i]!));
  const full: number[] = [];
  const finish: number[] = [];
  const failures = new Counter<string>();
  let logins = 0;
  const { elapsedMs } = await runForDuration(CONCURRENCY, seconds * 1000, async (client) => {
    const result = await timedLogin(deployment, wallets[client]!);
    if (result.ok) {
      logins++;
      full.push(result.full);
      finish.push(result.finish);
    } else {
      failures.add(result.failure ?? 'unknown');
    }
  });
  return { logins, elapsedMs, full: summarize(full), finish: summarize(finish), failures };
}

// ---------------------------------------------------------------------------
// Gates
// ---------------------------------------------------------------------------

type CaseName = 'a' | 'b' | 'c' | 'd';

interface GateCase {
  name: CaseName;
  label: string;
  /** One request, timed; a failure unless it answered as the case expects. */
  send: () => Promise<Step>;
}

/** Times a call that must fail with `status` and `code` (a GatewayError); anything else is the failure. */
async function expectError(call: () => Promise<unknown>, status: number, code: string): Promise<Step> {
  const t0 = now();
  try {
    await call();
    return { ms: now() - t0, failure: `answered 2xx, not ${status} ${code}` };
  } catch (err) {
    const elapsed = now() - t0;
    return isGatewayError(err) && err.status === status && err.code === code ? { ms: elapsed } : { ms: elapsed, failure: failureOf(err) };
  }
}

interface GateSetup {
  cases: Record<CaseName, GateCase>;
  tokenId: bigint;
}

async function setUpGates(testnet: DeploymentInfo, mainnet: DeploymentInfo): Promise<GateSetup> {
  const owner = newWallet();
  const minter = newWallet();
  await rpc(testnet.rpcUrl, 'anvil_setBalance', [minter.address, '0x56BC75E2D63100000']); // 100 ETH
  const tokenId = (BigInt(Date.now()) << 16n) + BigInt(Math.floor(Math.random() * 65_536));
  await mintAgent(testnet.rpcUrl, minter.privateKey, testnet.collection, owner.address, tokenId);
  const client = await loggedInClient(testnet, owner);
  const mainnetClient: GatewayClient = createGatewayClient({
    baseUrl: testnet.baseUrl,
    token: (await loggedInClient(mainnet, owner)).token,
  });
  const unregistered: Address = newWallet().address; // a random address: no collection there
  const cases: Record<CaseName, GateCase> = {
    a: { name: 'a', label: '(a) GET /no-such-route → 404, no gates, no I/O (baseline)', send: () => noIoRequest(testnet.baseUrl) },
    b: {
      name: 'b',
      label: '(b) GET, mainnet token → 401: bearer',
      send: () => expectError(() => mainnetClient.agent(testnet.collection, tokenId).getAgent(), 401, 'token_wrong_chain'),
    },
    c: {
      name: 'c',
      label: '(c) GET, unregistered collection → 404: bearer + registry',
      send: () => expectError(() => client.agent(unregistered, tokenId).getAgent(), 404, 'agent_not_found'),
    },
    d: {
      name: 'd',
      label: '(d) GET as owner → 200: bearer + registry + ownerOf',
      send: () => timed(() => client.agent(testnet.collection, tokenId).getAgent()),
    },
  };
  for (const c of Object.values(cases)) {
    const first = await c.send();
    if (first.failure) throw new BenchError(`${c.label}: got ${first.failure}`);
  }
  return { cases, tokenId };
}

interface SequentialResult {
  summary: Record<CaseName, Summary>;
  failures: Record<CaseName, Counter<string>>;
}

/** Sequential requests, the cases round-robin (a, b, c, d, a, ...): drift hits every case alike. */
async function benchSequential(cases: Record<CaseName, GateCase>): Promise<SequentialResult> {
  const names: CaseName[] = ['a', 'b', 'c', 'd'];
  const samples: Record<CaseName, number[]> = { a: [], b: [], c: [], d: [] };
  const failures: Record<CaseName, Counter<string>> = { a: new Counter(), b: new Counter(), c: new Counter(), d: new Counter() };
  for (let i = 0; i < WARM_UP + requests; i++) {
    for (const name of names) {
      const r = await cases[name].send();
      if (i < WARM_UP) continue;
      if (r.failure) failures[name].add(r.failure);
      else samples[name].push(r.ms);
    }
  }
  return {
    summary: { a: summarize(samples.a), b: summarize(samples.b), c: summarize(samples.c), d: summarize(samples.d) },
    failures,
  };
}

interface ThroughputResult {
  requests: number;
  elapsedMs: number;
  latency: Summary;
  failures: Counter<string>;
}

/** 16 concurrent clients on (a), then on (d), alternating for THROUGHPUT_ROUNDS rounds each. */
async function benchThroughput(cases: Record<CaseName, GateCase>): Promise<Record<'a' | 'd', ThroughputResult>> {
  const roundMs = (seconds * 1000) / THROUGHPUT_ROUNDS;
  const acc = {
    a: { requests: 0, elapsedMs: 0, samples: [] as number[], failures: new Counter<string>() },
    d: { requests: 0, elapsedMs: 0, samples: [] as number[], failures: new Counter<string>() },
  };
  for (let round = 0; round < THROUGHPUT_ROUNDS; round++) {
    for (const name of ['a', 'd'] as const) {
      const target = acc[name];
      const { elapsedMs } = await runForDuration(CONCURRENCY, roundMs, async () => {
        const r = await cases[name].send();
        if (r.failure) target.failures.add(r.failure);
        else {
          target.requests++;
          target.samples.push(r.ms);
        }
      });
      target.elapsedMs += elapsedMs;
    }
  }
  const result = (name: 'a' | 'd'): ThroughputResult => ({
    requests: acc[name].requests,
    elapsedMs: acc[name].elapsedMs,
    latency: summarize(acc[name].samples),
    failures: acc[name].failures,
  });
  return { a: result('a'), d: result('d') };
}

// ---------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------

function failuresCell(counter: Counter<string>): string {
  return counter.total() === 0 ? '0' : `${counter.total()} (${counter.format()})`;
}

function interpretation(loginResult: LoginResult, seq: SequentialResult, tp: Record<'a' | 'd', ThroughputResult>): string {
  const s = seq.summary;
  const total = s.d.median - s.a.median;
  const parts = [
    { short: 'JWT verification', long: 'JWT verification', cost: s.b.median - s.a.median },
    {
      short: 'the `ownerOf` eth_call',
      long: "the `ownerOf` eth_call (one JSON-RPC round trip to anvil; a found registration comes from the isolate's cache)",
      cost: s.d.median - s.b.median,
    },
  ];
  const top = [...parts].sort((x, y) => y.cost - x.cost)[0]!;
  const cost = (c: number) =>
    c < 1 ? `≈0 ms (within noise)` : `${ms(c)}${total > 0 ? ` (${Math.round((100 * Math.max(0, c)) / total)}%)` : ''}`;
  const gatedRate = (tp.d.requests * 1000) / tp.d.elapsedMs;
  const sequentialRate = 1000 / s.d.median;
  const scaling = gatedRate / sequentialRate;
  const sentences = [
    `The three gates add ${ms(total)} to the median request (×${(s.d.median / s.a.median).toFixed(1)} the gate-less ${ms(s.a.median)} baseline); ` +
      `by difference of medians ${parts.map((p) => `${p.short} costs ${cost(p.cost)}`).join(', ')}. ` +
      `An unregistered collection (c) is never cached: its registry lookup (one statement over SQL-over-HTTP to the local Neon stand-in) runs beside \`ownerOf\` and answers 404 in ${ms(s.c.median)}.`,
    `So ${top.long} dominates the gate cost${top.short === 'JWT verification' ? '' : `, and verifying the JWT is ${parts[0]!.cost < 1 ? 'close to free' : 'comparatively cheap'}`}. ` +
      `With ${CONCURRENCY} concurrent clients the gated route serves ${perSecond(tp.d.requests, tp.d.elapsedMs)} against ${perSecond(tp.a.requests, tp.a.elapsedMs)} without gates` +
      (scaling < 2
        ? `, hardly more than one sequential client gets (1 / median = ${sequentialRate.toFixed(1)}/s): on this machine the gated path does not scale with concurrency.`
        : `, ${scaling.toFixed(1)}× what one sequential client gets.`),
    `A full login (init, personal_sign, finish) takes ${ms(loginResult.full.median)} at the median with ${CONCURRENCY} wallets at once, ${ms(loginResult.finish.median)} of it in finish ` +
      `(the message rebuilt from its nonce without a KV read, signature recovery, then the nonce consumed by one SQL-over-HTTP statement while the JWT is signed), for ${perSecond(loginResult.logins, loginResult.elapsedMs)} logins.`,
  ];
  return sentences.join(' ');
}

function table(
  loginResult: LoginResult,
  seq: SequentialResult,
  tp: Record<'a' | 'd', ThroughputResult>,
  labels: Record<CaseName, string>,
): string {
  const s = seq.summary;
  const rows: string[][] = [
    [
      `Login: init + sign + finish, ${CONCURRENCY} wallets concurrently, ${seconds} s`,
      String(loginResult.logins),
      ms(loginResult.full.median),
      ms(loginResult.full.p99),
      `${perSecond(loginResult.logins, loginResult.elapsedMs)} logins`,
      failuresCell(loginResult.failures),
    ],
    ['Login: finish alone (same logins)', String(loginResult.logins), ms(loginResult.finish.median), ms(loginResult.finish.p99), '', ''],
  ];
  for (const name of ['a', 'b', 'c', 'd'] as const) {
    rows.push([
      `${labels[name]}, sequential`,
      String(s[name].n),
      ms(s[name].median),
      ms(s[name].p99),
      '',
      failuresCell(seq.failures[name]),
    ]);
  }
  rows.push([
    'Gate cost: (d) − (a), medians; (d) / (a)',
    '',
    `+${ms(s.d.median - s.a.median)}`,
    '',
    `×${(s.d.median / s.a.median).toFixed(2)}`,
    '',
  ]);
  for (const name of ['a', 'd'] as const) {
    const r = tp[name];
    rows.push([
      `${labels[name].split(' →')[0]}, ${CONCURRENCY} concurrent clients`,
      String(r.requests),
      ms(r.latency.median),
      ms(r.latency.p99),
      perSecond(r.requests, r.elapsedMs),
      failuresCell(r.failures),
    ]);
  }
  return markdownTable(['Measurement', 'n', 'Median', 'p99', 'Throughput / ratio', 'Unexpected answers'], rows, [
    'left',
    'right',
    'right',
    'right',
    'right',
    'right',
  ]);
}

async function main(): Promise<number> {
  readFlags();
  const stack = await readStack();
  const { testnet, mainnet } = stack;
  const facts = machineFacts();
  const loadAtStart = os.loadavg()[0] ?? NaN;
  log(`stack: testnet ${testnet.baseUrl}, mainnet ${mainnet.baseUrl}; ${describeMachine(facts)}; load average ${loadAtStart.toFixed(2)}`);

  log(`logins: ${CONCURRENCY} wallets for ${seconds} s on chain ${testnet.chainId}...`);
  const loginResult = await benchLogins(testnet);
  log(`  ${loginResult.logins} logins, failures: ${loginResult.failures.format()}`);

  log('gates: minting an agent to a fresh wallet and logging it in on both chains...');
  const { cases } = await setUpGates(testnet, mainnet);
  log(`gates: ${WARM_UP} warm-up + ${requests} sequential requests per case, round-robin...`);
  const seq = await benchSequential(cases);
  log(
    `gates: (a) and (d) with ${CONCURRENCY} concurrent clients, ${THROUGHPUT_ROUNDS} alternating rounds of ${(seconds / THROUGHPUT_ROUNDS).toFixed(1)} s each...`,
  );
  const tp = await benchThroughput(cases);

  const labels = { a: cases.a.label, b: cases.b.label, c: cases.c.label, d: cases.d.label };
  const tableText = table(loginResult, seq, tp, labels);
  const text = interpretation(loginResult, seq, tp);
  console.log(`\n${tableText}\n\n${text}\n`);

  const unexpected =
    loginResult.failures.total() +
    Object.values(seq.failures).reduce((n, c) => n + c.total(), 0) +
    tp.a.failures.total() +
    tp.d.failures.total();

  if (write) {
    const args = [seconds !== 10 ? `--seconds ${seconds}` : '', requests !== 500 ? `--requests ${requests}` : '', '--write'].filter(
      Boolean,
    );
    const date = runDate(new Date());
    const devStack = stackRun();
    const body = [
      `Command: \`npm run bench:identity -- ${args.join(' ')}\` (against \`${devStack.command}\`), run ${date}.`,
      `Machine: ${facts.cores} cores (${facts.model}), Node ${facts.node}, ${facts.os}; load average ${loadAtStart.toFixed(2)} when the run started (the stack, and whatever else runs, share these cores with the benchmark client).`,
      '',
      `Logins: ${CONCURRENCY} fresh wallets on the testnet worker (chain ${testnet.chainId}), each looping init → personal_sign → finish for ${seconds} s. ` +
        `Gates: one agent minted to a fresh wallet; ${requests} sequential requests per case after ${WARM_UP} warm-up, the four cases round-robin, (b) to (d) on ` +
        '`/agent/{collection}/{tokenId}` through the typed client (`src/client`), (a) the no-I/O answer by plain fetch; throughput of (a) and (d) with ' +
        `${CONCURRENCY} concurrent clients in ${THROUGHPUT_ROUNDS} alternating rounds. Latency is client-side, request sent to body parsed.`,
      '',
      tableText,
      '',
      text,
      ...(unexpected > 0
        ? ['', `**${unexpected} unexpected answers in this run** (see the last column): treat its figures with care.`]
        : []),
    ].join('\n');
    const file = await writeBenchmarkSection(SECTION, body);
    log(`wrote "${SECTION}" in ${file}`);
  }
  if (unexpected > 0) {
    log(`${unexpected} requests answered something unexpected (see the table)`);
    return 1;
  }
  return 0;
}

runBench('bench:identity', main);
