/**
 * `npm run bench:hydrate [-- --messages N] [--keys K] [--single N] [--parallel P] [--write]`:
 * bulk memory hydration (issue 6) against the running local stack (`npm run dev`, testnet worker).
 *
 * 1. Generates a JSONL file of `--messages` (default 10^5) messages over `--keys` (default 20)
 *    context keys, interleaved, ~160 characters each, and checks/plans it with the CLI's
 *    hydration engine (src/cli/hydrate-run.ts).
 * 2. Batch: the engine hydrates agent A as `agent-gateway hydrate --create-missing` does:
 *    batches of 100 on `POST …/context/{key}/messages` with an Idempotency-Key each, `--parallel`
 *    (default 4) keys in flight, one key's batches in order.
 * 3. Replay: the same file again into A, as a rerun after a crash would: every batch is answered
 *    from the idempotency record (`Idempotent-Replayed: true`), nothing stored.
 * 4. Single: the same messages one request each on `POST …/context/{key}/message` (with an
 *    Idempotency-Key each, as a careful pipeline would), same concurrency and the same per-key
 *    ordering rule, into agent B. `--single N` (default 10,000) times only the first N messages of
 *    the file and extrapolates to all of them (at the measured rate; the output says so).
 * 5. Checks with SQL that A holds exactly `--messages` rows and B `--single`; prints one markdown
 *    table (messages/s, request latency, the batch / single ratio); `--write` replaces the
 *    "## Hydration (issue 6)" section of BENCHMARKS.md.
 *
 * Reads `<DEV_DIR>/stack.json` (default `.dev`). The agents and messages stay in the dev database.
 * Prints figures, never asserts on them; exits 1 when the stack is not running or a line failed.
 * Never prints the token or the private key.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { parseHydrateFile } from '../../src/cli/hydrate-parse';
import { planHydration } from '../../src/hydrate/plan';
import { DEFAULT_PARALLEL, runHydration, type HydrateResult } from '../../src/cli/hydrate-run';
import { createGatewayClient, type AgentClient } from '../../src/client';
import { agentSchemaName } from '../../src/storage/agent-storage';
import { mintAgent } from '../lib/contracts';
import { REPO_ROOT } from '../lib/migrate';
import { progressBar } from '../../src/cli/progress';
import {
  BenchError,
  booleanFlag,
  count,
  describeMachine,
  machineFacts,
  markdownTable,
  ms,
  now,
  numberFlag,
  parseFlags,
  ratio,
  readStack,
  rejectUnknownFlags,
  summarize,
  writeBenchmarkSection,
  type Summary,
  runBench,
  runDate,
  stackRun,
} from './lib';

const SECTION = '## Hydration (issue 6)';
const ROLES = ['user', 'assistant', 'system'] as const;
const FILLER = [
  'asked to move the renewal call to next Tuesday and prefers email for the quote',
  'confirmed the shipping address and wants the invoice split across two cost centers',
  'reported that the export button times out on large reports since the last release',
  'agreed to the revised onboarding plan; training for the support team starts Monday',
];

function log(message: string): void {
  console.error(`bench:hydrate: ${message}`);
}

/** Request latencies by endpoint, measured around fetch (request sent to body read). */
function timedFetch(samples: Map<string, number[]>) {
  return async (input: string, init: RequestInit): Promise<Response> => {
    const kind =
      /\/messages$/.test(new URL(input).pathname) && init.method === 'POST'
        ? 'batch'
        : /\/message$/.test(new URL(input).pathname)
          ? 'single'
          : 'other';
    const t0 = now();
    const res = await fetch(input, init);
    const body = await res.arrayBuffer();
    const list = samples.get(kind) ?? [];
    list.push(now() - t0);
    samples.set(kind, list);
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

interface Run {
  label: string;
  result: HydrateResult;
  messages: number;
  latency: Summary;
}

async function hydrate(
  label: string,
  agent: AgentClient,
  plan: ReturnType<typeof planHydration>,
  options: { parallel: number; single?: boolean; createMissing?: boolean },
  samples: Map<string, number[]>,
  kind: string,
): Promise<Run> {
  samples.set(kind, []);
  const bar = progressBar(`bench:hydrate: ${label}`, plan.totalMessages);
  const result = await runHydration(agent, plan, {
    parallel: options.parallel,
    single: options.single,
    createMissing: options.createMissing,
    onProgress: (p) => bar.update(p.done),
    onNotice: (line) => log(line),
  });
  bar.finish(
    `bench:hydrate: ${label}: sent ${count(result.sent)}, replayed ${count(result.replayed)}, failed ${count(result.failed.length)} in ${result.seconds.toFixed(1)} s`,
  );
  return { label, result, messages: plan.totalMessages, latency: summarize(samples.get(kind) ?? []) };
}

async function main(): Promise<number> {
  const flags = parseFlags();
  rejectUnknownFlags(flags, ['messages', 'keys', 'single', 'parallel', 'write']);
  const total = Math.round(numberFlag(flags, 'messages', 100_000));
  const keyCount = Math.round(numberFlag(flags, 'keys', 20));
  const singleCount = Math.min(total, Math.round(numberFlag(flags, 'single', 10_000)));
  const parallel = Math.round(numberFlag(flags, 'parallel', DEFAULT_PARALLEL));
  const write = booleanFlag(flags, 'write');

  const stack = await readStack();
  const { testnet } = stack;
  const facts = machineFacts();
  const loadAtStart = os.loadavg()[0] ?? NaN;
  const startedAt = new Date();
  log(`stack: testnet ${testnet.baseUrl}; ${describeMachine(facts)}; load average ${loadAtStart.toFixed(2)}`);

  // 1. The file.
  const keys = Array.from({ length: keyCount }, (_, i) => `bench-hydrate:customer-${String(i).padStart(3, '0')}/history`);
  const lines: string[] = [];
  for (let i = 0; i < total; i++) {
    const key = keys[(i * 7 + Math.floor(i / keyCount)) % keyCount]!;
    lines.push(
      JSON.stringify({
        key,
        role: ROLES[i % 3],
        message: `Turn ${i + 1}: the customer ${FILLER[i % FILLER.length]} (ref ${(i * 2_654_435_761) % 1_000_000}).`,
      }),
    );
  }
  const content = `${lines.join('\n')}\n`;
  const t0 = now();
  const file = parseHydrateFile(content);
  const plan = planHydration(file);
  const planMs = now() - t0;
  if (file.invalid.length > 0) throw new BenchError(`generated file has ${file.invalid.length} invalid lines`);
  const singleFile = parseHydrateFile(`${lines.slice(0, singleCount).join('\n')}\n`);
  const singlePlan = planHydration(singleFile);
  log(
    `file: ${count(total)} messages over ${keyCount} keys (${(content.length / 1024 / 1024).toFixed(1)} MiB), ${plan.batchCount} batches; checked and planned in ${ms(planMs)}`,
  );

  // Wallet, agents, login.
  const ownerKey = generatePrivateKey();
  const owner = privateKeyToAccount(ownerKey);
  const minterKey = generatePrivateKey();
  const minter = privateKeyToAccount(minterKey);
  await fetch(testnet.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_setBalance', params: [minter.address, '0x56BC75E2D63100000'] }),
  }).then((r) => r.arrayBuffer());
  const base = (BigInt(Date.now()) << 16n) + BigInt(Math.floor(Math.random() * 65_536)) * 1000n;
  const [tokenA, tokenB, tokenC] = [base, base + 1n, base + 2n];
  for (const tokenId of [tokenA, tokenB, tokenC]) await mintAgent(testnet.rpcUrl, minterKey, testnet.collection, owner.address, tokenId);
  const samples = new Map<string, number[]>();
  const client = createGatewayClient({
    baseUrl: testnet.baseUrl,
    login: { account: owner, chainId: testnet.chainId },
    fetch: timedFetch(samples),
    timeoutMs: 120_000,
  });
  await client.login();
  const agentA = client.agent(testnet.collection, tokenA);
  const agentB = client.agent(testnet.collection, tokenB);
  log(`agents ${tokenA} (batches) and ${tokenB} (one message per request) of ${testnet.collection}, owned by a fresh wallet`);

  // 2-4. The runs.
  const batch = await hydrate(`batches of 100, ${parallel} parallel`, agentA, plan, { parallel, createMissing: true }, samples, 'batch');
  const replay = await hydrate('same file again (replays)', agentA, plan, { parallel, createMissing: true }, samples, 'batch');
  await agentB.createContexts(singlePlan.keys);
  const single = await hydrate(
    `one message per request, ${parallel} parallel`,
    agentB,
    singlePlan,
    { parallel, single: true },
    samples,
    'single',
  );

  // The CLI itself, as users run it: its own process, login, reading and checking the file.
  const cli = await runCli(content, {
    baseUrl: testnet.baseUrl,
    privateKey: ownerKey,
    collection: testnet.collection,
    tokenId: tokenC,
    parallel,
  });

  // 5. Check with SQL.
  const db = new pg.Client({ connectionString: stack.databaseUrl });
  await db.connect();
  const stored = async (tokenId: bigint) => {
    const schema = await agentSchemaName({ chainId: testnet.chainId, collection: testnet.collection, tokenId });
    const { rows } = await db.query<{ n: string }>(`select count(*) as n from ${schema.quoted}.messages`);
    return Number(rows[0]!.n);
  };
  const [storedA, storedB, storedC] = [await stored(tokenA), await stored(tokenB), await stored(tokenC)];
  await db.end();
  const loadAtEnd = os.loadavg()[0] ?? NaN;

  const rate = (run: Run) => (run.result.sent + run.result.replayed) / run.result.seconds;
  const batchRate = rate(batch);
  const singleRate = rate(single);
  const extrapolated = singleCount < total;
  const singleSecondsAll = total / singleRate;
  const unexpected =
    batch.result.failed.length +
    replay.result.failed.length +
    single.result.failed.length +
    (storedA !== total ? 1 : 0) +
    (storedB !== singleCount ? 1 : 0) +
    (storedC !== total ? 1 : 0) +
    (cli.code !== 0 ? 1 : 0) +
    (replay.result.sent !== 0 ? 1 : 0);

  const f1 = (v: number) => (v >= 100 ? v.toFixed(0) : v.toFixed(1));
  const table = markdownTable(
    ['Run', 'Messages', 'Requests', 'Seconds', 'Messages/s', 'Request median', 'Request p99', 'Stored (SQL)', 'Unexpected'],
    [
      [
        `Batches of 100, ${parallel} keys in parallel (hydrate engine)`,
        count(total),
        count(batch.result.requests),
        batch.result.seconds.toFixed(1),
        `${f1(batchRate)}/s`,
        ms(batch.latency.median),
        ms(batch.latency.p99),
        count(storedA),
        String(batch.result.failed.length),
      ],
      [
        `\`agent-gateway hydrate --create-missing --parallel ${parallel}\`: the CLI end to end (its own process, login, file read and checked)`,
        count(total),
        count(plan.batchCount),
        cli.seconds.toFixed(1),
        `${f1(total / cli.seconds)}/s`,
        '',
        '',
        count(storedC),
        String(cli.code === 0 ? 0 : 1),
      ],
      [
        'Same file again: every batch replayed, nothing stored',
        count(total),
        count(replay.result.requests),
        replay.result.seconds.toFixed(1),
        `${f1(rate(replay))}/s`,
        ms(replay.latency.median),
        ms(replay.latency.p99),
        `${count(storedA)} (unchanged)`,
        String(replay.result.failed.length + replay.result.sent),
      ],
      [
        `One message per request, ${parallel} keys in parallel${extrapolated ? ` (first ${count(singleCount)} measured)` : ''}`,
        count(singleCount),
        count(single.result.requests),
        single.result.seconds.toFixed(1),
        `${f1(singleRate)}/s`,
        ms(single.latency.median),
        ms(single.latency.p99),
        count(storedB),
        String(single.result.failed.length),
      ],
      ...(extrapolated
        ? [
            [
              `  extrapolated to ${count(total)} messages at the measured rate`,
              count(total),
              count(total),
              singleSecondsAll.toFixed(0),
              `${f1(singleRate)}/s`,
              '',
              '',
              '',
              '',
            ],
          ]
        : []),
      ['Batches / one per request (messages/s)', '', '', '', ratio(batchRate, singleRate), '', '', '', ''],
    ],
    ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
  );
  const reading =
    `**Reading.** Batches of 100 store ${f1(batchRate)} messages/s against ${f1(singleRate)}/s one request at a time at the same concurrency (${ratio(batchRate, singleRate)}): ` +
    `${count(total)} messages take ${batch.result.seconds.toFixed(0)} s in ${count(batch.result.requests)} requests instead of ${extrapolated ? 'an extrapolated ' : ''}${singleSecondsAll.toFixed(0)} s in ${count(total)}. ` +
    `A batch request takes ${ms(batch.latency.median)} at the median against ${ms(single.latency.median)} for one message, so the per-request cost (the three gates: bearer, registry (cached per isolate), \`ownerOf\`; see the identity and memory sections) is paid once per 100 messages. ` +
    `The CLI as users run it, in a process of its own that logs in, reads and checks the file, then sends it, stores ${f1(total / cli.seconds)} messages/s end to end. ` +
    `A rerun of the finished file (what resuming after a crash costs for the part already done) answers every batch from its idempotency record in ${replay.result.seconds.toFixed(1)} s (${f1(rate(replay))} messages/s) and stores nothing: SQL still counts ${count(storedA)} rows.`;

  console.log(['', table, '', reading].join('\n'));

  if (write) {
    const args = [
      total !== 100_000 ? `--messages ${total}` : '',
      keyCount !== 20 ? `--keys ${keyCount}` : '',
      singleCount !== 10_000 ? `--single ${singleCount}` : '',
      parallel !== 4 ? `--parallel ${parallel}` : '',
      '--write',
    ].filter(Boolean);
    const date = runDate(startedAt);
    const devStack = stackRun();
    const body = [
      `Command: \`npm run bench:hydrate -- ${args.join(' ')}\` (against \`${devStack.command}\`, testnet worker), run ${date}.`,
      `Machine: ${describeMachine(facts)}; load average ${loadAtStart.toFixed(2)} when the run started and ${loadAtEnd.toFixed(2)} when it ended (the stack, and whatever else runs, share these cores with the benchmark client).`,
      '',
      `Data: one generated JSONL file of ${count(total)} messages (${(content.length / 1024 / 1024).toFixed(1)} MiB, ~${Math.round(content.length / total)} bytes a line) over ${keyCount} context keys, interleaved, roles cycling; checked and planned locally in ${ms(planMs)} (${plan.batchCount} batches). ` +
        `Batches: the CLI's hydration engine (\`src/cli/hydrate-run.ts\`, what \`agent-gateway hydrate --create-missing\` runs) into a freshly minted agent: up to 100 messages per \`POST …/messages\` with an Idempotency-Key each, ${parallel} keys in flight, one key's batches in file order. ` +
        `One per request: the same engine in single mode into a second fresh agent: \`POST …/message\` per message with an Idempotency-Key each, the same ${parallel}-way concurrency and per-key order${extrapolated ? `; only the first ${count(singleCount)} messages of the file are timed and the time for all ${count(total)} is extrapolated at the measured rate` : ''}. ` +
        `Latency is client-side per request, sent to body read, over loopback, the worker in ${devStack.runner}; stored rows are counted with SQL afterwards.`,
      '',
      table,
      '',
      reading,
      ...(unexpected > 0
        ? ['', `**${unexpected} unexpected outcomes in this run** (failed lines or wrong row counts): treat its figures with care.`]
        : []),
    ].join('\n');
    const file = await writeBenchmarkSection(SECTION, body);
    log(`wrote "${SECTION}" in ${file}`);
  }
  if (unexpected > 0) {
    log(
      `${unexpected} unexpected outcomes (failed lines or wrong row counts); first failure: ${[...batch.result.failed, ...single.result.failed][0]?.reason ?? 'row count'}`,
    );
    return 1;
  }
  return 0;
}

/** Runs `agent-gateway hydrate` on `content` in a process of its own (a temporary HOME and token file); wall time from spawn to exit. */
async function runCli(
  content: string,
  target: { baseUrl: string; privateKey: string; collection: string; tokenId: bigint; parallel: number },
): Promise<{ code: number | null; seconds: number }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-hydrate-'));
  try {
    const file = path.join(dir, 'messages.jsonl');
    await writeFile(file, content);
    const args = ['hydrate', '--file', file, '--create-missing', '--parallel', String(target.parallel), '--collection', target.collection];
    const env = {
      PATH: process.env.PATH,
      HOME: dir,
      AGENT_GATEWAY_URL: target.baseUrl,
      AGENT_GATEWAY_PRIVATE_KEY: target.privateKey,
      AGENT_GATEWAY_TOKEN_FILE: path.join(dir, 'token.json'),
    };
    const t0 = now();
    const child = spawn(
      process.execPath,
      [path.join(REPO_ROOT, 'bin/agent-gateway.mjs'), ...args, '--token-id', target.tokenId.toString()],
      {
        cwd: dir,
        env,
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2000);
    });
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', resolve);
    });
    const seconds = (now() - t0) / 1000;
    if (code !== 0) log(`agent-gateway hydrate exited ${code}: ${stderr.split('\n').slice(-5).join(' | ')}`);
    return { code, seconds };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

runBench('bench:hydrate', main);
