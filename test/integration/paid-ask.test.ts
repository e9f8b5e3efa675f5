/**
 * Paid replies (POST /agent/{c}/{t}/paid/ask) in workerd against real Postgres, the local chain
 * with the USDC stand-in, the local x402 facilitator and the stand-in model: a payer with
 * `@x402/fetch` pays exactly the price to the owner of the moment; a failed reply is not settled
 * and the same signature buys the reply later; one signature never buys two replies; usage, audit
 * and the payer's own context record it; the memory tools only when the owner allows them.
 */
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { STANDIN_PREFIX, type StandinLlm, startStandinLlm } from '../../scripts/lib/standin-llm';
import { USDC } from '../../src/chains';
import { freshAgent, seg } from '../support/agent';
import { newWallet, type TestAccount, transferFreshAgent } from '../support/chain';
import { call } from '../support/http';
import { agentPath, login } from '../support/login';
import { closePg } from '../support/pg';
import { replyWorker, standinSettings } from '../support/replies';
import { fundedPayer, payingFetch, pricedAgent as priced, signPayment, usdcBalance } from '../support/x402';

const stack = inject('stack');
const API_KEY = `sk-standin-${crypto.randomUUID()}`;
const CHAIN = stack.testnet.chainId as 80002;
const PRICE_UNITS = 10_000n; // 0.01 USD
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

const payer = () => fundedPayer(stack.testnet);
const balance = (address: string) => usdcBalance(stack.testnet.rpcUrl, CHAIN, address);

/** An agent on the stand-in model with a price set by its owner, and its paid route's URL. */
async function pricedAgent(pricing?: Record<string, unknown>) {
  const agent = await priced(worker.deployment, API_KEY, pricing);
  return { agent, url: agent.url };
}

const ask = (url: string, message: string, headers: Record<string, string> = {}, fetcher: typeof fetch = fetch) =>
  fetcher(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ message }) });

/** Signs the payment a 402 asks for, without sending it (to send the same signature twice). */
const signFor = async (account: TestAccount, unpaid: Response) => signPayment(account.privateKey, unpaid.headers);

describe('paid replies', () => {
  it('402 names the terms (the owner, exact USDC); @x402/fetch pays exactly the price to the owner; usage, audit and the context record it', async () => {
    const { agent, url } = await pricedAgent();
    const calls = llm.completions().length;
    const unpaid = await ask(url, 'hello without paying');
    expect(unpaid.status).toBe(402);
    expect(((await unpaid.json()) as { error: { code: string } }).error.code).toBe('payment_required');
    const terms = decodePaymentRequiredHeader(unpaid.headers.get('payment-required') ?? '');
    expect(terms.x402Version).toBe(2);
    expect(terms.accepts).toHaveLength(1);
    expect(terms.accepts[0]).toMatchObject({
      scheme: 'exact',
      network: `eip155:${CHAIN}`,
      asset: USDC[CHAIN].address,
      amount: String(PRICE_UNITS),
      payTo: agent.owner.address,
      extra: { name: USDC[CHAIN].name, version: USDC[CHAIN].version },
    });
    expect(llm.completions().length).toBe(calls);

    const who = await payer();
    const [payerBefore, ownerBefore] = await Promise.all([balance(who.address), balance(agent.owner.address)]);
    const paid = await ask(url, 'what do you know?', {}, payingFetch(who.privateKey));
    const body = (await paid.json()) as { reply: { message: string } };
    expect(paid.status, JSON.stringify(body)).toBe(200);
    expect(body.reply.message).toContain('what do you know?');
    expect(body.reply.message.startsWith(STANDIN_PREFIX)).toBe(true);
    const settlement = decodePaymentResponseHeader(paid.headers.get('payment-response') ?? '');
    expect(settlement.success).toBe(true);
    expect(settlement.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(settlement.payer?.toLowerCase()).toBe(who.address.toLowerCase());
    expect(await balance(who.address)).toBe(payerBefore - PRICE_UNITS);
    expect(await balance(agent.owner.address)).toBe(ownerBefore + PRICE_UNITS);

    const payerKey = `paid/${who.address.toLowerCase()}`;
    const messages = await agent.call(`/context/${seg(payerKey)}/messages`);
    expect(messages.status, messages.text).toBe(200);
    expect(JSON.stringify(messages.body)).toContain('what do you know?');
    const byDay = await agent.call('/usage?groupBy=day');
    expect(byDay.body.totals.paidUsd).toBe('0.01');
    expect(byDay.body.groups.map((g: { paidUsd: string }) => g.paidUsd)).toEqual(['0.01']);
    const byCredential = await agent.call('/usage?groupBy=credential');
    expect(byCredential.body.groups.map((g: { credential: string }) => g.credential)).toContain(`payer:${who.address.toLowerCase()}`);
    const audit = await agent.call('/audit');
    const settled = audit.body.entries.filter((e: { action: string }) => e.action === 'payment.settled');
    expect(settled.map((e: { actor: unknown; target: unknown }) => [e.actor, e.target])).toEqual([
      [
        { wallet: who.address.toLowerCase(), via: 'payer' },
        { transaction: settlement.transaction, amountUsd: '0.01', payTo: agent.owner.address.toLowerCase() },
      ],
    ]);
  });

  it('one signature buys one reply: sent again after it was settled, or twice at once, the second is 402 and nothing more moves', async () => {
    const { agent, url } = await pricedAgent();
    const who = await payer();
    const signature = await signFor(who, await ask(url, 'first'));
    const before = await balance(who.address);
    const first = await ask(url, 'first', signature);
    expect(first.status, await first.clone().text()).toBe(200);
    const calls = llm.completions().length;
    const again = await ask(url, 'first again', signature);
    expect(again.status).toBe(402);
    expect(['payment_invalid', 'payment_replayed']).toContain(((await again.json()) as { error: { code: string } }).error.code);
    expect(llm.completions().length).toBe(calls);
    expect(await balance(who.address)).toBe(before - PRICE_UNITS);

    const twice = await signFor(who, await ask(url, 'twice'));
    const both = await Promise.all([ask(url, 'twice a', twice), ask(url, 'twice b', twice)]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 402]);
    expect(await balance(who.address)).toBe(before - 2n * PRICE_UNITS);
    expect(await balance(agent.owner.address)).toBe(2n * PRICE_UNITS);
  });

  it('a reply that fails is not settled (its own error), and the same signature buys the reply once the owner fixed it', async () => {
    const { agent, url } = await pricedAgent();
    const broken = await agent.call('/llm/settings', {
      method: 'POST',
      json: standinSettings({ apiKey: 'sk-wrong' }),
    });
    expect(broken.status, broken.text).toBe(200);
    const who = await payer();
    const signature = await signFor(who, await ask(url, 'will fail'));
    const before = await balance(who.address);
    const failed = await ask(url, 'will fail', signature);
    expect(failed.status).toBe(424);
    expect(((await failed.json()) as { error: { code: string } }).error.code).toBe('llm_credential_rejected');
    expect(failed.headers.get('payment-response')).toBeNull();
    expect(await balance(who.address)).toBe(before);
    expect(await balance(agent.owner.address)).toBe(0n);

    const fixed = await agent.call('/llm/settings', {
      method: 'POST',
      json: standinSettings({ apiKey: API_KEY }),
    });
    expect(fixed.status, fixed.text).toBe(200);
    const retried = await ask(url, 'now it works', signature);
    expect(retried.status, await retried.clone().text()).toBe(200);
    expect(await balance(who.address)).toBe(before - PRICE_UNITS);
    expect(await balance(agent.owner.address)).toBe(PRICE_UNITS);
  });

  it('after a transfer the next payment goes to the new owner, once they entered their own model key (until then 409, not settled)', async () => {
    const { agent, url } = await pricedAgent();
    const buyer = newWallet();
    await transferFreshAgent(worker.deployment, agent.owner, buyer.address, agent.tokenId);
    const who = await payer();
    const before = await balance(who.address);
    const waiting = await ask(url, 'new owner?', {}, payingFetch(who.privateKey));
    expect(waiting.status).toBe(409);
    expect(((await waiting.json()) as { error: { code: string } }).error.code).toBe('credential_reentry_required');
    expect(await balance(who.address)).toBe(before);

    const token = await login(worker.deployment, buyer);
    const reentered = await call(worker.url, agentPath(agent.collection, agent.tokenId, '/llm/settings'), {
      token,
      method: 'POST',
      json: standinSettings({ apiKey: API_KEY }),
    });
    expect(reentered.status, reentered.text).toBe(200);
    expect(reentered.body.pricing).toEqual({ askUsd: '0.01', memoryTools: false });
    const sellerBefore = await balance(agent.owner.address);
    const paid = await ask(url, 'new owner now', {}, payingFetch(who.privateKey));
    expect(paid.status, await paid.clone().text()).toBe(200);
    expect(await balance(buyer.address)).toBe(PRICE_UNITS);
    expect(await balance(agent.owner.address)).toBe(sellerBefore);
    expect(await balance(who.address)).toBe(before - PRICE_UNITS);
  });

  it('offers a payer no tools, or only memory_search and memory_read when the owner allows them', async () => {
    const offered = (from: number) => [
      ...new Set(
        llm
          .completions()
          .slice(from)
          .flatMap((r) => (r.body.tools ?? []).map((t) => t.function.name)),
      ),
    ];
    const plain = await pricedAgent();
    const who = await payer();
    let from = llm.completions().length;
    expect((await ask(plain.url, 'tools?', {}, payingFetch(who.privateKey))).status).toBe(200);
    expect(offered(from)).toEqual([]);

    const withMemory = await pricedAgent({ askUsd: '0.01', memoryTools: true });
    from = llm.completions().length;
    expect((await ask(withMemory.url, 'tools now?', {}, payingFetch(who.privateKey))).status).toBe(200);
    expect(offered(from).sort()).toEqual(['memory_read', 'memory_search']);
  });

  it('answers 404 pricing_not_set without a price (nothing asked of the facilitator), and 404 agent_not_found for a token that does not exist', async () => {
    const agent = await freshAgent(worker.deployment);
    const none = await ask(`${worker.url}${agentPath(agent.collection, agent.tokenId, '/paid/ask')}`, 'hello');
    expect(none.status).toBe(404);
    expect(((await none.json()) as { error: { code: string } }).error.code).toBe('pricing_not_set');
    const missing = await ask(`${worker.url}${agentPath(agent.collection, 999_999_999n, '/paid/ask')}`, 'hello');
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('agent_not_found');
  });
});
