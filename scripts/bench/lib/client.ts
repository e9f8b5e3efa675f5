/**
 * The benchmarks' way to the gateway: the typed client (`src/client`) for every request, timed
 * call by call, and a plain fetch for the one request the client does not know, the no-I/O
 * answer (`GET /no-such-route`, 404). Also the chain helpers and the stack's latency switches.
 *
 * Never prints tokens or private keys: failures are counted as `<status> <code>`.
 */
import type { Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { createGatewayClient, isGatewayError, type GatewayClient } from '../../../src/client';
import { BenchError, now, type DeploymentInfo, type StackInfo } from '../lib';

export type Wallet = PrivateKeyAccount & { privateKey: Hex };

export function newWallet(): Wallet {
  const privateKey = generatePrivateKey();
  return Object.assign(privateKeyToAccount(privateKey), { privateKey });
}

/** A client of `deployment` that logs in with `wallet` (the client's login helper: init, sign, finish). */
export async function loggedInClient(deployment: DeploymentInfo, wallet: Wallet): Promise<GatewayClient> {
  const client = createGatewayClient({ baseUrl: deployment.baseUrl, login: { account: wallet, chainId: deployment.chainId } });
  try {
    await client.login();
  } catch (err) {
    throw new BenchError(`login on chain ${deployment.chainId} failed: ${failureOf(err)}`);
  }
  return client;
}

/** Another client holding the same token (concurrent clients of one wallet); no login of its own. */
export function tokenClient(deployment: DeploymentInfo, token: string | undefined): GatewayClient {
  if (!token) throw new BenchError('no token: log in first');
  return createGatewayClient({ baseUrl: deployment.baseUrl, token });
}

/** What went wrong, for counting: `404 agent_not_found`, `0 network_error`, or an error name. Never a body. */
export function failureOf(err: unknown): string {
  if (isGatewayError(err)) return `${err.status} ${err.code}`;
  if (err instanceof BenchError) return err.message;
  return err instanceof Error ? err.name : 'error';
}

/** One timed request: its duration in ms, and what went wrong if anything. */
export interface Step {
  ms: number;
  failure?: string;
}

/**
 * Times `call` (request sent to body parsed); `check` may name a wrong answer. A thrown error
 * (a GatewayError for any non-2xx answer) is a failure, not an exception.
 */
export async function timed<T>(call: () => Promise<T>, check?: (value: T) => string | undefined): Promise<Step> {
  const t0 = now();
  try {
    const value = await call();
    const elapsed = now() - t0;
    const failure = check?.(value);
    return failure ? { ms: elapsed, failure } : { ms: elapsed };
  } catch (err) {
    return { ms: now() - t0, failure: failureOf(err) };
  }
}

/** Like `timed`, for a floor (SQL from Node): failures are labelled as the floor's. */
export async function floorStep(run: () => Promise<string | undefined>): Promise<Step> {
  const t0 = now();
  try {
    const failure = await run();
    const elapsed = now() - t0;
    return failure ? { ms: elapsed, failure } : { ms: elapsed };
  } catch (err) {
    return { ms: now() - t0, failure: `floor ${err instanceof Error ? err.message : String(err)}` };
  }
}

export const NO_IO_PATH = '/no-such-route';

/** The stack's no-I/O answer: `GET /no-such-route`, 404 (routing and middleware, no gate, no storage). Plain fetch. */
export async function noIoRequest(baseUrl: string): Promise<Step> {
  const t0 = now();
  try {
    const res = await fetch(`${baseUrl}${NO_IO_PATH}`, { signal: AbortSignal.timeout(60_000) });
    await res.arrayBuffer();
    const elapsed = now() - t0;
    return res.status === 404 ? { ms: elapsed } : { ms: elapsed, failure: `${NO_IO_PATH} answered ${res.status}` };
  } catch (err) {
    const cause = err instanceof Error ? (err as Error & { cause?: { code?: unknown } }).cause : undefined;
    return { ms: now() - t0, failure: typeof cause?.code === 'string' ? cause.code : failureOf(err) };
  }
}

/** A JSON-RPC call to the chain (anvil's own methods included); not a gateway request. */
export async function rpc(rpcUrl: string, method: string, params: unknown[]): Promise<unknown> {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(60_000),
  });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new BenchError(`${method} on ${rpcUrl}: ${body.error.message}`);
  return body.result;
}

/** The stack's latency switches (DEV_RPC_LATENCY_MS, DEV_DB_LATENCY_MS) from stack.json; 0/0 when absent. */
export interface StackLatency {
  rpcMs: number;
  dbMs: number;
}

export function stackLatency(stack: StackInfo): StackLatency {
  const raw = (stack as StackInfo & { latency?: { rpcMs?: unknown; dbMs?: unknown } }).latency;
  const read = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);
  return { rpcMs: read(raw?.rpcMs), dbMs: read(raw?.dbMs) };
}
