/**
 * A refused caller's read is cancelled, not only abandoned (issue 18): a stranger must not be able
 * to make the gateway pull a large context from the database per request. Against a worker whose
 * chain answers 300 ms late and whose SQL-over-HTTP answers arrive at about 2.5 MB/s (a proxy in
 * front of the bridge counts what it sent), a stranger's read of a 4 MB page of messages is
 * refused when the check fails, and the worker hangs up on the database's answer then; the owner's
 * read of the same page is sent whole. The runtime also cancels what is left of a request once its
 * answer is sent and no `waitUntil` work is pending; the last case keeps such work pending (a
 * seller's agent key is revoked after the answer, and that statement is held for 3 s), so only the
 * gate's own cancel cuts the read there.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startRpcProxy, type RpcProxy } from '../../scripts/lib/rpc-proxy';
import { startMiniflare } from '../../scripts/lib/worker-bundle';
import { mintFreshAgent, newWallet, type TestAccount, transferFreshAgent } from '../support/chain';
import { call, deployment, expectError } from '../support/http';
import { agentPath, login } from '../support/login';
import { agentSchema, closePg, quoted, sql } from '../support/pg';
import { type SlowSql, type SqlExchange, startSlowSql } from '../support/slow-sql';
import { workerBindingsFor } from '../support/worker';

const stack = inject('stack');
const testnet = deployment('testnet');
const CHAIN_DELAY_MS = 300;
const MESSAGES = 20;
const MESSAGE_BYTES = 200_000;
const PAGE = `/context/big/messages?limit=${MESSAGES}`;
const REVOCATION_HOLD_MS = 3_000;

let rpc: RpcProxy;
let slowSql: SlowSql;
let worker: Awaited<ReturnType<typeof startMiniflare>>;
let ownerToken: string;
let strangerToken: string;
let tokenId: bigint;
let owner: TestAccount;

beforeAll(async () => {
  rpc = await startRpcProxy(testnet.rpcUrl, { latencyMs: CHAIN_DELAY_MS });
  slowSql = await startSlowSql(stack.bridgeProxy, {
    chunkBytes: 64 * 1024,
    everyMs: 25,
    holdMs: (query) => (query.includes('owner_changed') ? REVOCATION_HOLD_MS : 0),
  });
  worker = await startMiniflare({
    scriptPath: stack.scriptPath,
    deployment: 'testnet',
    bindings: { ...workerBindingsFor(stack), RPC_URL: rpc.url, DB_WS_PROXY: slowSql.proxy },
  });
  owner = newWallet();
  tokenId = await mintFreshAgent(testnet, owner.address);
  [ownerToken, strangerToken] = await Promise.all([login(testnet, owner), login(testnet, newWallet())]);
  const created = await call(worker.url, agentPath(testnet.collection, tokenId, '/context'), {
    method: 'POST',
    token: ownerToken,
    json: { key: 'big' },
  });
  expect(created.status, created.text).toBe(200);
  // 4 MB of messages, stored directly (one request's body is capped at 1 MiB).
  const schema = quoted(await agentSchema(stack.databaseUrl, { deployment: testnet, collection: testnet.collection, tokenId }));
  await sql(
    stack.databaseUrl,
    `insert into ${schema}.messages (context_key, role, message) select 'big', 'user', repeat('x', $1) from generate_series(1, $2)`,
    [MESSAGE_BYTES, MESSAGES],
  );
}, 60_000);

afterAll(async () => {
  await worker?.dispose();
  await slowSql?.close();
  await rpc?.close();
  await closePg();
});

/** The page's read among the statements sent since `from`: the one whose answer holds the messages. */
function pageRead(from: number): SqlExchange {
  const reads = slowSql.exchanges.slice(from).filter((e) => e.answerBytes > MESSAGES * MESSAGE_BYTES);
  expect(reads).toHaveLength(1);
  return reads[0]!;
}

describe("a refused caller's read is cut short", () => {
  it("the worker hangs up on the database's answer when a stranger's owner check fails", async () => {
    const from = slowSql.exchanges.length;
    const started = performance.now();
    const res = await call(worker.url, agentPath(testnet.collection, tokenId, PAGE), { token: strangerToken });
    const ms = performance.now() - started;
    expectError(res, 403, 'not_owner');
    const read = pageRead(from);
    // Sending it whole takes about 1.6 s; the check fails after about 300 ms.
    expect(await read.ended).toBe('hung up');
    expect(read.sentBytes).toBeLessThan(read.answerBytes / 2);
    expect(ms).toBeLessThan(1_000);
  });

  it("the owner's read of the same page is sent whole and served", async () => {
    const from = slowSql.exchanges.length;
    const res = await call<{ messages: { message: string }[] }>(worker.url, agentPath(testnet.collection, tokenId, PAGE), {
      token: ownerToken,
    });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(res.body.messages).toHaveLength(MESSAGES);
    const read = pageRead(from);
    expect(await read.ended).toBe('sent');
    expect(read.sentBytes).toBe(read.answerBytes);
  });

  it("a seller's agent key after a transfer: the read is cut although the key's revocation keeps the request's work pending", async () => {
    const created = await call<{ key: string }>(worker.url, agentPath(testnet.collection, tokenId, '/keys'), {
      method: 'POST',
      token: ownerToken,
      json: { name: 'pipeline', scopes: ['contexts:read'] },
    });
    expect(created.status, created.text).toBe(200);
    await transferFreshAgent(testnet, owner, newWallet().address, tokenId);
    const from = slowSql.exchanges.length;
    const res = await call(worker.url, agentPath(testnet.collection, tokenId, PAGE), { token: created.body.key });
    expectError(res, 403, 'not_owner');
    const read = pageRead(from);
    expect(await read.ended).toBe('hung up');
    expect(read.sentBytes).toBeLessThan(read.answerBytes / 2);
    // The revocation, on the request's own database handle, is not cancelled with the read.
    const revoked = await waitFor(() => slowSql.exchanges.slice(from).find((e) => e.query.includes('owner_changed')));
    expect(await revoked.ended).toBe('sent');
  });
});

async function waitFor<T>(find: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > until) throw new Error('not seen in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
