/**
 * Critical path (issue 10): one client, sequential, every path once per round (drift hits all
 * alike), `--requests` rounds after the warm-up; medians. Each path's "added" time is its median
 * minus the same rounds' no-I/O answer (`GET /no-such-route`, 404), then expressed in units of
 * the stack's latency switches R (DEV_RPC_LATENCY_MS) and D (DEV_DB_LATENCY_MS) from stack.json:
 * reads ≤ 1.2 × max(R, D), writes ≤ 1.2 × (R + D), a login finish ≤ 1.5 × D. Reads and writes
 * also run with an agent key (issue 19), and reads as the owner's delegate (issue 35), each beside
 * its token twin with the ratio of medians.
 */
import { randomUUID } from 'node:crypto';
import { getAddress, zeroHash } from 'viem';
import { clientsFor, waitForSuccess } from '../../lib/contracts';
import { DELEGATE_REGISTRY_ADDRESS, delegateRegistryAbi } from '../../../src/chain/delegate-registry-abi';
import { createGatewayClient, type AgentClient } from '../../../src/client';
import { BenchError, markdownTable, ms } from '../lib';
import { failureOf, loggedInClient, newWallet, noIoRequest, rpc, timed, type StackLatency, type Step } from '../lib/client';
import { failuresCell, measureCases, type Case, type PairResult } from '../lib/measure';
import { WARM_UP, log, message, type BenchAgent, type BenchContext, type SectionReport } from './common';

export const CRITICAL_PATH_HEADING = '## Critical path (issue 10)';
const KEY = 'bench:critical-path';
const BATCH = 10;
const READ_LIMIT = 10;

type Kind = 'floor' | 'read' | 'write' | 'login';

interface PathCase extends Case {
  label: string;
  kind: Kind;
  /** For a path called with an agent key: the label of the same path with the owner's token. */
  twin?: string;
}

/** The unit each kind of path is measured in, and its target in that unit. */
const TARGETS: Record<Exclude<Kind, 'floor'>, { unit: string; factor: number; of: (l: StackLatency) => number }> = {
  read: { unit: 'max(R, D)', factor: 1.2, of: (l) => Math.max(l.rpcMs, l.dbMs) },
  write: { unit: '(R + D)', factor: 1.2, of: (l) => l.rpcMs + l.dbMs },
  login: { unit: 'D', factor: 1.5, of: (l) => l.dbMs },
};

/** init and sign (not timed), then the finish alone, timed; a fresh ordinary wallet (an EOA) each time. */
async function loginFinish(ctx: BenchContext): Promise<Step> {
  const { baseUrl, chainId } = ctx.testnet;
  const wallet = newWallet();
  const client = createGatewayClient({ baseUrl });
  let challenge: { message: string; nonce: string };
  try {
    challenge = await client.initLogin({ walletAddress: wallet.address, chainId });
  } catch (err) {
    return { ms: NaN, failure: `init ${failureOf(err)}` };
  }
  const signature = await wallet.signMessage({ message: challenge.message });
  return timed(
    () => client.finishLogin({ walletAddress: wallet.address, chainId, signature, nonce: challenge.nonce }),
    (r) => (r.token ? undefined : 'no token'),
  );
}

/** The same agent through an agent key (issue 19): the key lookup runs beside the owner check. */
async function keyedClient(ctx: BenchContext, agent: BenchAgent): Promise<AgentClient> {
  const { key } = await agent.api.createAgentKey({ name: 'bench: critical path', scopes: ['contexts:read', 'contexts:write'] });
  return createGatewayClient({ baseUrl: ctx.testnet.baseUrl, apiKey: key }).agent(agent.api.collection, agent.api.tokenId);
}

/**
 * The same agent as the owner's delegate (issue 35): a fresh hot wallet the owner delegates this
 * token to in delegate.xyz v2's registry (the dev chains' stand-in), logged in with its own token.
 */
async function delegateClient(ctx: BenchContext, agent: BenchAgent): Promise<AgentClient> {
  const hot = newWallet();
  const { rpcUrl } = ctx.testnet;
  try {
    await rpc(rpcUrl, 'anvil_setBalance', [ctx.owner.address, '0x56BC75E2D63100000']);
    const { walletClient, publicClient } = await clientsFor(rpcUrl, ctx.owner.privateKey);
    const args = [hot.address, getAddress(agent.api.collection), BigInt(agent.api.tokenId), zeroHash, true] as const;
    const hash = await walletClient.writeContract({
      address: DELEGATE_REGISTRY_ADDRESS,
      abi: delegateRegistryAbi,
      functionName: 'delegateERC721',
      args,
    });
    await waitForSuccess(publicClient, hash, 'the bench delegation');
  } catch (err) {
    throw new BenchError(
      `critical path: delegating to a hot wallet failed (a stack without the registry stand-in? restart npm run dev): ${failureOf(err)}`,
    );
  }
  return (await loggedInClient(ctx.testnet, hot)).agent(agent.api.collection, agent.api.tokenId);
}

function cases(ctx: BenchContext, agent: BenchAgent, keyed: AgentClient, delegated: AgentClient): PathCase[] {
  const api = agent.api;
  const run = randomUUID().slice(0, 8);
  let n = 0;
  const messages = () => Array.from({ length: BATCH }, () => ({ role: 'user' as const, message: message(n++) }));
  return [
    {
      label: `The stack's no-I/O answer: GET /no-such-route (404)`,
      kind: 'floor',
      gateway: () => noIoRequest(ctx.testnet.baseUrl),
      floor: null,
    },
    { label: 'GET …/contexts/keys', kind: 'read', gateway: () => timed(() => api.listContextKeys()), floor: null },
    {
      label: `GET …/context/{key}/messages (limit ${READ_LIMIT})`,
      kind: 'read',
      gateway: () => timed(() => api.readMessages(KEY, { limit: READ_LIMIT })),
      floor: null,
    },
    {
      label: 'POST …/context/{key}/message',
      kind: 'write',
      gateway: () => timed(() => api.appendMessage(KEY, { role: 'user', message: message(n++) })),
      floor: null,
    },
    {
      label: `POST …/context/{key}/messages (${BATCH} messages)`,
      kind: 'write',
      gateway: () => timed(() => api.appendMessages(KEY, messages())),
      floor: null,
    },
    {
      label: `POST …/context/{key}/messages (${BATCH} messages, a new Idempotency-Key each time)`,
      kind: 'write',
      gateway: () => timed(() => api.appendMessages(KEY, messages(), { idempotencyKey: `bench:cp-${run}-${n++}` })),
      floor: null,
    },
    {
      label: 'POST …/context (a new key each time)',
      kind: 'write',
      gateway: () => timed(() => api.createContext(`bench:cp-${run}-${n++}`)),
      floor: null,
    },
    {
      label: 'GET …/contexts/keys (agent key)',
      kind: 'read',
      twin: 'GET …/contexts/keys',
      gateway: () => timed(() => keyed.listContextKeys()),
      floor: null,
    },
    {
      label: `GET …/context/{key}/messages (limit ${READ_LIMIT}, agent key)`,
      kind: 'read',
      twin: `GET …/context/{key}/messages (limit ${READ_LIMIT})`,
      gateway: () => timed(() => keyed.readMessages(KEY, { limit: READ_LIMIT })),
      floor: null,
    },
    {
      label: 'POST …/context/{key}/message (agent key)',
      kind: 'write',
      twin: 'POST …/context/{key}/message',
      gateway: () => timed(() => keyed.appendMessage(KEY, { role: 'user', message: message(n++) })),
      floor: null,
    },
    {
      label: `POST …/context/{key}/messages (${BATCH} messages, agent key)`,
      kind: 'write',
      twin: `POST …/context/{key}/messages (${BATCH} messages)`,
      gateway: () => timed(() => keyed.appendMessages(KEY, messages())),
      floor: null,
    },
    {
      label: 'GET …/contexts/keys (delegate)',
      kind: 'read',
      twin: 'GET …/contexts/keys',
      gateway: () => timed(() => delegated.listContextKeys()),
      floor: null,
    },
    {
      label: `GET …/context/{key}/messages (limit ${READ_LIMIT}, delegate)`,
      kind: 'read',
      twin: `GET …/context/{key}/messages (limit ${READ_LIMIT})`,
      gateway: () => timed(() => delegated.readMessages(KEY, { limit: READ_LIMIT })),
      floor: null,
    },
    {
      label: 'POST /auth/jwt/finish (an ordinary wallet; init and signing not timed)',
      kind: 'login',
      gateway: () => loginFinish(ctx),
      floor: null,
    },
  ];
}

/** `0.85 × max(R, D)`, or n/a when the unit is 0. */
function units(added: number, unit: number, name: string): string {
  return Number.isFinite(added) && unit > 0 ? `${(added / unit).toFixed(2)} × ${name}` : 'n/a';
}

function pathTable(list: PathCase[], results: PairResult[], latency: StackLatency): { table: string; verdicts: string[] } {
  const floor = results[0]!.gateway.median;
  const active = latency.rpcMs > 0 && latency.dbMs > 0;
  const verdicts: string[] = [];
  const rows = list.map((c, i) => {
    const r = results[i]!;
    const base = [c.label, String(r.gateway.n), ms(r.gateway.median), ms(r.gateway.p99)];
    if (c.kind === 'floor') return [...base, '', '', '', '', failuresCell(r.failures)];
    const target = TARGETS[c.kind];
    const added = r.gateway.median - floor;
    const unit = target.of(latency);
    const inUnits = added / unit;
    let verdict = 'n/a (R or D is 0)';
    if (active) {
      verdict = Number.isFinite(inUnits) ? (inUnits <= target.factor ? '**met**' : '**not met**') : 'n/a';
      verdicts.push(`${c.label}: ${verdict.replaceAll('*', '')} (${units(added, unit, target.unit)} against ${target.factor})`);
    }
    return [
      ...base,
      ms(added),
      units(added, unit, target.unit),
      `≤ ${target.factor} × ${target.unit}${unit > 0 ? ` = ${ms(target.factor * unit)}` : ''}`,
      verdict,
      failuresCell(r.failures),
    ];
  });
  const table = markdownTable(
    ['Path', 'n', 'Median', 'p99', 'Added (− no-I/O median)', 'Added in units', 'Target', 'Met', 'Unexpected'],
    rows,
    ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'left', 'right'],
  );
  return { table, verdicts };
}

/** Each keyed path's median beside its token twin's: the key's cost on the critical path. */
function keyedRatios(list: PathCase[], results: PairResult[]): string[] {
  const median = (label: string) => results[list.findIndex((c) => c.label === label)]?.gateway.median ?? NaN;
  return list.flatMap((c, i) =>
    c.twin === undefined
      ? []
      : [
          `${c.label}: ${ms(results[i]!.gateway.median)} against ${ms(median(c.twin))} with a token, ×${(results[i]!.gateway.median / median(c.twin)).toFixed(2)}`,
        ],
  );
}

export async function criticalPathSection(ctx: BenchContext, agent: BenchAgent): Promise<SectionReport> {
  const { latency, options } = ctx;
  try {
    await agent.api.createContext(KEY);
    await agent.api.appendMessages(
      KEY,
      Array.from({ length: READ_LIMIT }, (_, i) => ({ role: 'user', message: message(i) })),
    );
  } catch (err) {
    throw new BenchError(`critical path: setting up ${KEY} answered ${failureOf(err)}`);
  }
  const list = cases(ctx, agent, await keyedClient(ctx, agent), await delegateClient(ctx, agent));
  log(
    `critical path: R = ${latency.rpcMs} ms, D = ${latency.dbMs} ms; ${WARM_UP} warm-up + ${options.requests} rounds of ${list.length} paths...`,
  );
  const results = await measureCases(WARM_UP, options.requests, list);
  const { table, verdicts } = pathTable(list, results, latency);
  const stackLine =
    latency.rpcMs > 0 || latency.dbMs > 0
      ? `Stack latency (stack.json): R = ${latency.rpcMs} ms per chain RPC exchange, D = ${latency.dbMs} ms per database exchange.`
      : 'Stack latency (stack.json): none recorded (R = D = 0), so "added" is loopback cost only and targets are not judged; start the stack with `DEV_RPC_LATENCY_MS=60 DEV_DB_LATENCY_MS=20` to judge them.';
  const body = [
    stackLine,
    '',
    table,
    '',
    `One client, sequential; each round runs every path once in this order, ${WARM_UP} warm-up rounds not counted. "Added" is a path's median minus the no-I/O median of the same rounds; "in units" divides it by the path's unit.`,
    '',
    ...(verdicts.length > 0 ? [`Targets: ${verdicts.join('; ')}.`, ''] : []),
    `Agent keys (issue 19) and the owner's delegate (issue 35), median against the same path with the owner's token (the key's lookup runs beside the owner check, never before it; the delegate's access choice is read beside the chain's answer once the isolate has seen it as a delegate): ${keyedRatios(list, results).join('; ')}.`,
    '',
  ].join('\n');
  return { heading: CRITICAL_PATH_HEADING, body, unexpected: results.reduce((n, r) => n + r.failures.total(), 0) };
}
