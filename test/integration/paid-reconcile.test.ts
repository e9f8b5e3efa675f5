/**
 * The reconciliation of paid replies whose settlement never reported back, run through the
 * worker's real `scheduled` handler in workerd against real Postgres and the local chain with the
 * USDC stand-in: a claim left running for two hours whose authorization was used on chain is
 * settled with that transaction (audit and usage follow), one never used (or cancelled by its
 * payer) is unsettled, a fresh one and a settled one are left alone; an RPC that fails leaves the
 * claim running and fails nothing.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, type Hex, http, toHex } from 'viem';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readWranglerConfig, startMiniflare } from '../../scripts/lib/worker-bundle';
import { newWallet } from '../support/chain';
import { workerBindingsFor } from '../support/worker';
import { type StandinLlm, startStandinLlm } from '../../scripts/lib/standin-llm';
import { closePg, sql } from '../support/pg';
import { replyWorker } from '../support/replies';
import { cancelAuthorization, fundedPayer, pricedAgent, transferWithAuthorization } from '../support/x402';

const stack = inject('stack');
const API_KEY = `sk-standin-${crypto.randomUUID()}`;
const CHAIN = stack.testnet.chainId;
const cron = readWranglerConfig('testnet').triggers?.crons?.[0] ?? '';
let llm: StandinLlm;
let worker: Awaited<ReturnType<typeof replyWorker>>;

beforeAll(async () => {
  llm = await startStandinLlm({ apiKey: API_KEY });
  worker = await replyWorker(stack, llm, {});
});

afterAll(async () => {
  await worker?.dispose();
  await llm?.close();
  await closePg();
});

type ClaimRow = {
  nonce: string;
  state: string;
  transaction: string | null;
  settled_at: Date | null;
};

const randomNonce = (): Hex => toHex(crypto.getRandomValues(new Uint8Array(32)));

describe('the reconciliation of paid replies', () => {
  it('settles a 2 h old claim used on chain (its transaction, audit, usage), unsettles one never used, and leaves fresh and settled claims alone', async () => {
    expect(cron).toBeTruthy();
    const agent = await pricedAgent(worker.deployment, API_KEY);
    const payer = await fundedPayer(stack.testnet);
    const payTo = agent.owner.address.toLowerCase();
    // (a) The facilitator sent the transfer and failed before it answered: the authorization is
    // used on chain (signed by the payer, sent by another account), the claim still running.
    const landed = await transferWithAuthorization(stack.testnet.rpcUrl, CHAIN, payer.privateKey, agent.owner.address as Hex, 10_000n);
    const used = landed.nonce.toLowerCase();
    const [unused, fresh, settled, cancelled] = [randomNonce(), randomNonce(), randomNonce(), randomNonce()];
    // An authorization its payer cancelled on chain: "used" to authorizationState, yet nothing moved.
    await cancelAuthorization(stack.testnet.rpcUrl, CHAIN, payer.privateKey, cancelled);
    const settledTx = randomNonce();
    await sql(
      stack.databaseUrl,
      `insert into gateway.paid_calls (chain_id, payer, nonce, agent_ref, pay_to, amount_units, state, transaction, claimed_at, settled_at)
       values ($1, $2, $3, $6, $7, 10000, 'running', null, now() - interval '2 hours', null),
              ($1, $2, $4, $6, $7, 10000, 'running', null, now() - interval '2 hours', null),
              ($1, $2, $5, $6, $7, 10000, 'running', null, now() - interval '5 minutes', null),
              ($1, $2, $10, $6, $7, 10000, 'running', null, now() - interval '2 hours', null),
              ($1, $2, $8, $6, $7, 20000, 'settled', $9, now() - interval '3 hours', now() - interval '3 hours' + interval '5 seconds')`,
      [
        CHAIN,
        payer.address.toLowerCase(),
        used,
        unused,
        fresh,
        `${CHAIN}:${agent.collection.toLowerCase()}:${agent.tokenId}`,
        payTo,
        settled,
        settledTx,
        cancelled,
      ],
    );
    const claims = async () =>
      new Map(
        (
          await sql<ClaimRow>(
            stack.databaseUrl,
            'select nonce, state, transaction, settled_at from gateway.paid_calls where chain_id = $1 and payer = $2 order by nonce',
            [CHAIN, payer.address.toLowerCase()],
          )
        ).map((r) => [r.nonce, r]),
      );
    const before = await claims();
    expect((await agent.call('/usage')).body.totals.paidUsd).toBe('0.02');

    const handler = await worker.miniflare.getWorker();
    // One run reconciles a bounded batch, oldest first: run until ours were reached (claims other
    // tests left may come first).
    for (let runs = 0; runs < 10 && (await claims()).get(used)?.state === 'running'; runs += 1) {
      expect((await handler.scheduled({ cron, scheduledTime: new Date() })).outcome).toBe('ok');
    }
    const after = await claims();
    expect(after.get(used)).toMatchObject({ state: 'settled', transaction: landed.transaction });
    const block = await blockTime(landed.transaction);
    expect(after.get(used)?.settled_at?.getTime()).toBe(block);
    expect(after.get(unused)).toMatchObject({ state: 'unsettled', transaction: null, settled_at: null });
    expect(after.get(cancelled)).toMatchObject({ state: 'unsettled', transaction: null, settled_at: null });
    expect(after.get(fresh)).toMatchObject({ state: 'running', transaction: null, settled_at: null });
    expect(after.get(settled)).toEqual(before.get(settled));

    const audit = await agent.call('/audit');
    expect(audit.status, audit.text).toBe(200);
    const entries = audit.body.entries.filter((e: { action: string }) => e.action === 'payment.settled');
    expect(entries.map((e: { actor: unknown; target: unknown }) => [e.actor, e.target])).toEqual([
      [
        { wallet: payer.address.toLowerCase(), via: 'payer' },
        { transaction: landed.transaction, amountUsd: '0.01', payTo },
      ],
    ]);
    // Usage counts the settled payments: the one reconciled and the one settled before, not the unsettled one.
    const usage = await agent.call('/usage');
    expect(usage.status, usage.text).toBe(200);
    expect(usage.body.totals.paidUsd).toBe('0.03');

    // A later run leaves them as they are (only running claims are reconciled).
    expect((await handler.scheduled({ cron, scheduledTime: new Date() })).outcome).toBe('ok');
    expect(await claims()).toEqual(after);
  });

  it('an RPC that fails leaves the claim running for the next run; the rest of the clean-up runs and the invocation succeeds', async () => {
    // The deployment's only RPC endpoint answers 503 to everything (a real loopback server).
    const rpc = createServer((_req, res) => res.writeHead(503).end('down'));
    await new Promise<void>((resolve) => rpc.listen(0, '127.0.0.1', resolve));
    const dir = await mkdtemp(join(tmpdir(), 'agw-reconcile-'));
    const logFile = join(dir, 'worker.log');
    const down = await startMiniflare({
      scriptPath: stack.scriptPath,
      deployment: 'testnet',
      bindings: { ...workerBindingsFor(stack), RPC_URL: `http://127.0.0.1:${(rpc.address() as AddressInfo).port}` },
      logFile,
    });
    // A claim of an agent no test uses (its own token id), 2 h old, and a consumed nonce the clean-up drops.
    const tokenId = `${Date.now()}${Math.floor(Math.random() * 1e6)}`;
    const nonce = randomNonce();
    const oldNonce = `login:80002:old-${crypto.randomUUID()}`;
    await sql(
      stack.databaseUrl,
      `insert into gateway.paid_calls (chain_id, payer, nonce, agent_ref, pay_to, amount_units, state, claimed_at)
       values ($1, $2, $3, $4, $2, 10000, 'running', now() - interval '2 hours')`,
      [CHAIN, newWallet().address.toLowerCase(), nonce, `${CHAIN}:${stack.testnet.collection.toLowerCase()}:${tokenId}`],
    );
    await sql(stack.databaseUrl, `insert into gateway.consumed_nonces (key, consumed_at) values ($1, now() - interval '3 hours')`, [
      oldNonce,
    ]);
    try {
      const handler = await down.miniflare.getWorker();
      expect((await handler.scheduled({ cron, scheduledTime: new Date() })).outcome).toBe('ok');
    } finally {
      await down.dispose();
      await new Promise((resolve) => rpc.close(resolve));
    }
    const [row] = await sql(stack.databaseUrl, 'select state from gateway.paid_calls where nonce = $1', [nonce]);
    expect(row?.state).toBe('running');
    expect(await sql(stack.databaseUrl, 'select key from gateway.consumed_nonces where key = $1', [oldNonce])).toEqual([]);
    const report = (await readFile(logFile, 'utf8'))
      .split('\n')
      .filter((line) => line.includes('"paidClaims"'))
      .map((line) => JSON.parse(line.slice(line.indexOf('{'))) as { cleanup: { paidClaims: { settled: number; left: number } } });
    expect(report).toHaveLength(1);
    expect(report[0]?.cleanup.paidClaims.settled).toBe(0);
    expect(report[0]?.cleanup.paidClaims.left).toBeGreaterThanOrEqual(1);
    // Gone, so no later run of another test reconciles a claim of no agent.
    await sql(stack.databaseUrl, 'delete from gateway.paid_calls where nonce = $1', [nonce]);
    await rm(dir, { recursive: true, force: true });
  });
});

/** The time (ms) of the block that holds `transaction` on the local chain. */
async function blockTime(transaction: Hex): Promise<number> {
  const chain = createPublicClient({ transport: http(stack.testnet.rpcUrl) });
  const receipt = await chain.getTransactionReceipt({ hash: transaction });
  return Number((await chain.getBlock({ blockHash: receipt.blockHash })).timestamp) * 1_000;
}
