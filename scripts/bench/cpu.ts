/**
 * `npm run bench:cpu [-- --requests N] [--clients C] [--write]`: the CPU each process of the
 * local stack spends per request, by request type, and the gated-read breakdown of issue 10
 * (items 4 and 7), against a running `DEV_RATE_LIMITS=0 npm run dev`.
 *
 * 1. One client, `--requests` (default 500) requests of each type after 10 warm-up ones: the
 *    no-I/O answer (`GET /no-such-route`, 404), `GET /health`, login init, login finish (with
 *    the nonce; inits and signatures made beforehand), `GET …/contexts/keys`,
 *    `GET …/context/{key}/messages`, `POST …/message`, `POST …/messages` (100 messages with an
 *    Idempotency-Key), `POST …/context`. Median latency and CPU ms per request of each process
 *    (see proc-cpu.ts: the worker's workerd, wrangler dev around it, the dev.ts node with the
 *    bridge and the SQL-over-HTTP stand-in, anvil, Postgres, this client) from /proc utime + stime.
 * 2. `--clients` (default 16) clients: the no-I/O answer and gated reads (`GET …/contexts/keys`),
 *    `--requests` each in two alternating rounds: req/s, their ratio (issue 10 target >= 0.3x)
 *    and CPU ms per request per process.
 * `--write` replaces the "## CPU per request" section of BENCHMARKS.md. `--profile <dir>` then
 * writes a V8 CPU profile of the worker per request type and prints where its samples fell
 * (cpu-profile.ts; needs `DEV_WRANGLER=0 DEV_INSPECT=1 npm run dev`).
 *
 * Drives the gateway through the typed client (src/client), except the no-I/O route, which the
 * client does not know. Reads `<DEV_DIR>/stack.json` and `pids.json` (default `.dev`). Prints
 * figures, never asserts on them; never prints tokens or keys. Linux only (/proc).
 */
import os from 'node:os';
import path from 'node:path';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createGatewayClient, type AgentClient, type GatewayClient } from '../../src/client';
import { mintAgent } from '../lib/contracts';
import {
  booleanFlag,
  describeMachine,
  markdownTable,
  ms,
  now,
  numberFlag,
  parseFlags,
  perSecond,
  ratio,
  readStack,
  rejectUnknownFlags,
  REPO_ROOT,
  runBench,
  runCount,
  summarize,
  writeBenchmarkSection,
  BenchError,
  stackRun,
} from './lib';
import { profileTypes } from './cpu-profile';
import { machineTicks, PART_LABELS, PARTS, perRequestMs, stackProcesses, clockTicks, type Part, type StackProcesses } from './proc-cpu';

const SECTION = '## CPU per request';
const WARM_UP = 10;

function log(message: string): void {
  console.error(`bench:cpu: ${message}`);
}

/** One request type: `run(i)` sends request i (0-based, unique per type and phase). */
interface RequestType {
  name: string;
  prepare?: (count: number) => Promise<void>;
  run: (i: number) => Promise<void>;
}

interface Measured {
  name: string;
  requests: number;
  medianMs?: number;
  perSecond?: number;
  cpu: Record<Part, number>;
  /** CPU ms per request of the whole machine (all processes, ours and others'). */
  machine: number;
}

/** Runs `count` requests of `type` on `clients` clients and what each part spent on them. */
async function measure(procs: StackProcesses, type: RequestType, count: number, clients: number, offset = 0): Promise<Measured> {
  await type.prepare?.(count);
  const latencies: number[] = [];
  const before = procs.sample();
  const machineBefore = machineTicks();
  const { elapsedMs } = await runCount(count, clients, async (_client, i) => {
    const t0 = now();
    await type.run(offset + i);
    latencies.push(now() - t0);
  });
  const machine = ((machineTicks() - machineBefore) * (1000 / clockTicks())) / count;
  return {
    name: type.name,
    requests: count,
    medianMs: summarize(latencies).median,
    perSecond: (count * 1000) / elapsedMs,
    cpu: perRequestMs(before, procs.sample(), count),
    machine,
  };
}

function sumOf(cpu: Record<Part, number>, parts: readonly Part[] = PARTS.filter((p) => p !== 'idle')): number {
  return parts.reduce((s, p) => s + cpu[p], 0);
}

const SHOWN: readonly Part[] = ['worker', 'wrangler', 'bridge', 'anvil', 'postgres', 'client'];
const cpuCell = (v: number) => (v >= 10 ? v.toFixed(1) : v.toFixed(2));

function cpuTable(rows: readonly Measured[], first: 'median' | 'rate'): string {
  const headers = ['request', first === 'median' ? 'median' : 'req/s', ...SHOWN.map((p) => p), 'stack total', 'whole machine'];
  return markdownTable(
    headers,
    rows.map((r) => [
      r.name,
      first === 'median' ? ms(r.medianMs ?? NaN) : perSecond(r.perSecond ?? 0, 1000),
      ...SHOWN.map((p) => cpuCell(r.cpu[p])),
      cpuCell(sumOf(r.cpu)),
      cpuCell(r.machine),
    ]),
    ['left', 'right', ...SHOWN.map(() => 'right' as const), 'right', 'right'],
  );
}

async function main(): Promise<number> {
  const flags = parseFlags();
  rejectUnknownFlags(flags, ['requests', 'clients', 'write', 'profile']);
  const profileFlag = flags.values.get('profile');
  if (profileFlag === 'true') throw new BenchError('--profile needs a directory for the .cpuprofile files');
  const profileDir = profileFlag !== undefined ? path.resolve(profileFlag) : undefined;
  const requests = Math.round(numberFlag(flags, 'requests', 500));
  const clients = Math.round(numberFlag(flags, 'clients', 16));
  const write = booleanFlag(flags, 'write');
  if (process.platform !== 'linux') throw new BenchError('reads /proc: Linux only');

  const stack = await readStack();
  const latency = (stack as { latency?: { rpcMs: number; dbMs: number } }).latency ?? { rpcMs: 0, dbMs: 0 };
  const devDir = path.resolve(REPO_ROOT, process.env.DEV_DIR ?? '.dev');
  const procs = stackProcesses(devDir);
  const testnet = stack.testnet;
  const loadAtStart = os.loadavg()[0] ?? 0;
  log(`stack: testnet ${testnet.baseUrl}; ${describeMachine()}; load average ${loadAtStart.toFixed(2)}`);
  log(`processes: ${procs.describe()}`);

  // An agent of a fresh wallet, minted by a fresh funded minter (no nonce races with other scripts).
  const owner = privateKeyToAccount(generatePrivateKey());
  const minterKey = generatePrivateKey();
  await fetch(testnet.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'anvil_setBalance',
      params: [privateKeyToAccount(minterKey).address, '0x56BC75E2D63100000'],
    }),
  }).then((r) => r.arrayBuffer());
  // Two agents: reads (and the concurrent phase) on one whose keys stay few, writes on the other.
  const tokenId = (BigInt(Date.now()) << 16n) + BigInt(Math.floor(Math.random() * 65_536)) * 2n;
  const writeTokenId = tokenId + 1n;
  for (const id of [tokenId, writeTokenId]) await mintAgent(testnet.rpcUrl, minterKey, testnet.collection, owner.address, id);
  const client: GatewayClient = createGatewayClient({ baseUrl: testnet.baseUrl, login: { account: owner, chainId: testnet.chainId } });
  await client.login();
  const agent: AgentClient = client.agent(testnet.collection, tokenId);
  const writer: AgentClient = client.agent(testnet.collection, writeTokenId);
  const readKey = 'cpu/read';
  const writeKey = 'cpu/write';
  await agent.createContext(readKey);
  await writer.createContext(writeKey);
  await agent.appendMessages(
    readKey,
    Array.from({ length: 20 }, (_, i) => ({ role: 'user' as const, message: `message ${i}` })),
  );
  log(`agents ${tokenId} (reads) and ${writeTokenId} (writes) of ${testnet.collection}, owned by a fresh wallet`);

  const types = requestTypes(client, { agent, writer, readKey, writeKey }, owner, testnet.chainId);
  const single: Measured[] = [];
  for (const type of types) {
    await measure(procs, type, WARM_UP, 1, 1_000_000);
    const row = await measure(procs, type, requests, 1);
    single.push(row);
    log(`${type.name}: median ${ms(row.medianMs ?? NaN)}, stack CPU ${cpuCell(sumOf(row.cpu))} ms/request`);
  }

  // Item 4: gated reads beside the no-I/O answer at `clients` clients, in alternating rounds.
  const noIo = types[0]!;
  const keys = types.find((t) => t.name.includes('contexts/keys'))!;
  const rounds: Record<'noIo' | 'keys', Measured[]> = { noIo: [], keys: [] };
  const half = Math.max(1, Math.round(requests / 2));
  for (let round = 0; round < 2; round++) {
    rounds.noIo.push(await measure(procs, noIo, half, clients, 2_000_000 + round * half));
    rounds.keys.push(await measure(procs, keys, half, clients, 2_000_000 + round * half));
  }
  const merge = (list: Measured[], name: string): Measured => {
    const total = list.reduce((s, m) => s + m.requests, 0);
    const elapsed = list.reduce((s, m) => s + (m.requests * 1000) / (m.perSecond ?? 1), 0);
    const cpu = Object.fromEntries(PARTS.map((p) => [p, list.reduce((s, m) => s + m.cpu[p] * m.requests, 0) / total])) as Record<
      Part,
      number
    >;
    const machine = list.reduce((s, m) => s + m.machine * m.requests, 0) / total;
    return { name, requests: total, perSecond: (total * 1000) / elapsed, cpu, machine };
  };
  const concurrent = [
    merge(rounds.noIo, `no-I/O answer (404), ${clients} clients`),
    merge(rounds.keys, `gated read (contexts/keys), ${clients} clients`),
  ];
  const [noIoRow, keysRow] = concurrent as [Measured, Measured];
  const dominant = PARTS.filter((p) => p !== 'idle').reduce((a, b) => (keysRow.cpu[a] >= keysRow.cpu[b] ? a : b));

  const devStack = stackRun();
  const body = [
    `Measured by \`npm run bench:cpu -- --requests ${requests} --clients ${clients}\` against \`${devStack.command}\` (the worker in ${devStack.runner}) on ${describeMachine()}, load average ${loadAtStart.toFixed(2)} at the start;`,
    `stack latency switches: chain RPC ${latency.rpcMs} ms, database ${latency.dbMs} ms. CPU is from /proc (utime + stime, with reaped children;`,
    `one tick = ${1000 / clockTicks()} ms), in ms per request for each part of the stack: ${SHOWN.map((p) => `**${p}** = ${PART_LABELS[p]}`).join(', ')}.`,
    '"stack total" is their sum; "whole machine" counts every process on the machine (others\' work included), so the gap between them is noise.',
    '',
    '### One client, per request type',
    '',
    cpuTable(single, 'median'),
    '',
    `### Gated reads at ${clients} clients (issue 10, item 4: target >= 0.3x the no-I/O answer)`,
    '',
    cpuTable(concurrent, 'rate'),
    '',
    `Gated reads: ${perSecond(keysRow.requests, (keysRow.requests * 1000) / (keysRow.perSecond ?? 1))} beside the no-I/O answer's ${perSecond(noIoRow.requests, (noIoRow.requests * 1000) / (noIoRow.perSecond ?? 1))}: ratio ${ratio(keysRow.perSecond ?? NaN, noIoRow.perSecond ?? NaN)}.`,
    `The largest share of a gated read's CPU: **${dominant}**, ${cpuCell(keysRow.cpu[dominant])} of ${cpuCell(sumOf(keysRow.cpu))} ms.`,
  ].join('\n');
  console.log(`\n${SECTION}\n\n${body}\n`);
  if (write) log(`wrote ${await writeBenchmarkSection(SECTION, body)}`);
  if (profileDir) {
    const keysConcurrent = { ...keys };
    await profileTypes({
      inspectorPort: (stack.testnet as { inspectorPort?: number }).inspectorPort,
      bundle: path.join(devDir, 'bundle', 'index.js'),
      dir: profileDir,
      types: [...types, keysConcurrent],
      count: requests,
      clients: (t) => (t === keysConcurrent ? clients : 1),
      offset: 3_000_000,
    });
  }
  return 0;
}

/** The request types of the first table, in order; the first is the no-I/O answer. */
function requestTypes(
  client: GatewayClient,
  agents: { agent: AgentClient; writer: AgentClient; readKey: string; writeKey: string },
  owner: ReturnType<typeof privateKeyToAccount>,
  chainId: number,
): RequestType[] {
  const { agent, writer, readKey, writeKey } = agents;
  const walletAddress = owner.address;
  const signed: { signature: `0x${string}`; nonce: string }[] = [];
  const run = `${Date.now().toString(36)}`;
  const batch = Array.from({ length: 100 }, (_, i) => ({ role: 'user' as const, message: `batch message ${i}` }));
  return [
    {
      name: 'no-I/O answer: GET /no-such-route (404)',
      run: async () => {
        const res = await fetch(`${client.baseUrl}/no-such-route`);
        await res.arrayBuffer();
        if (res.status !== 404) throw new BenchError(`GET /no-such-route answered ${res.status}, expected 404`);
      },
    },
    { name: 'GET /health', run: async () => void (await client.getHealth()) },
    { name: 'login init', run: async () => void (await client.initLogin({ walletAddress, chainId })) },
    {
      name: 'login finish (with nonce)',
      // Inits and signatures beforehand, outside the measured window.
      prepare: async (count) => {
        signed.length = 0;
        for (let i = 0; i < count; i++) {
          const { nonce, message } = await client.initLogin({ walletAddress, chainId });
          signed.push({ nonce, signature: await owner.signMessage({ message }) });
        }
      },
      run: async (i) => {
        const entry = signed[i % signed.length]!;
        await client.finishLogin({ walletAddress, chainId, signature: entry.signature, nonce: entry.nonce });
      },
    },
    { name: 'GET …/contexts/keys', run: async () => void (await agent.listContextKeys()) },
    { name: 'GET …/context/{key}/messages', run: async () => void (await agent.readMessages(readKey)) },
    { name: 'POST …/message', run: async () => void (await writer.appendMessage(writeKey, { role: 'user', message: 'one more' })) },
    {
      name: 'POST …/messages (100, Idempotency-Key)',
      run: async (i) => void (await writer.appendMessages(writeKey, batch, { idempotencyKey: `cpu-${run}-${i}` })),
    },
    { name: 'POST …/context', run: async (i) => void (await writer.createContext(`cpu/created-${run}-${i}`)) },
  ];
}

runBench('bench:cpu', main);
