/**
 * Paid replies refused, in workerd against real Postgres, the local chain with the USDC stand-in,
 * the local x402 facilitator and the stand-in model: a signature for an older, lower price; terms
 * changed before signing (another payTo, asset or network); a payload changed after signing; a
 * payer without USDC; an authorization about to expire or valid for too long; a header that is not a payment; a browser
 * without a payment (JSON, not a paywall page); a bad body (checked before any 402); the USDC
 * moved away while the reply ran (not settled, and the authorization spent); a hostile model (tools it
 * was not offered, endless text: nothing runs, the reply is cut, the price paid once); a
 * deployment without a facilitator or with one that is down. In each the model is not called and
 * no USDC moves. Then the owner's price rules over LLM settings (bounds, form, null ends paid
 * replies, omitted keeps it, delegates never), and `x402Support` in the registration file.
 */
import { x402Client, x402HTTPClient } from '@x402/core/client';
import { decodePaymentSignatureHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentRequirements } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../scripts/lib/processes';
import { type StandinLlm, type StandinScript, startStandinLlm } from '../../scripts/lib/standin-llm';
import { MAX_REPLY_CHARS } from '../../src/replies/loop';
import { seg } from '../support/agent';
import { newWallet, type TestAccount } from '../support/chain';
import { delegateERC721 } from '../support/delegation';
import { call, expectError } from '../support/http';
import { agentPath, login } from '../support/login';
import { closePg } from '../support/pg';
import { replyAgent, replyWorker, standinSettings } from '../support/replies';
import { fundedPayer, fundUsdc, pricedAgent as priced, transferWithAuthorization, usdcBalance } from '../support/x402';

const stack = inject('stack');
const API_KEY = `sk-standin-${crypto.randomUUID()}`;
const CHAIN = stack.testnet.chainId as 80002;
const SETTINGS = standinSettings();
let llm: StandinLlm;
let worker: Awaited<ReturnType<typeof replyWorker>>;
/** Runs while the model answers (then the stand-in's usual reply). */
let duringReply: (() => Promise<void>) | undefined;
/** What a hostile model answers instead of the stand-in's usual reply, while set. */
let hostile: StandinScript | undefined;

beforeAll(async () => {
  llm = await startStandinLlm({
    apiKey: API_KEY,
    script: async (request) => {
      await duringReply?.();
      return hostile?.(request);
    },
  });
  worker = await replyWorker(stack, llm, {});
});

afterAll(async () => {
  await worker?.dispose();
  await llm?.close();
  await closePg();
});

type Agent = Awaited<ReturnType<typeof replyAgent>>;

const payer = () => fundedPayer(stack.testnet);
const balance = (address: string) => usdcBalance(stack.testnet.rpcUrl, CHAIN, address);
const setPricing = (agent: Agent, pricing: unknown) => agent.call('/llm/settings', { method: 'POST', json: { ...SETTINGS, pricing } });
const paidPath = (agent: Agent) => agentPath(agent.collection, agent.tokenId, '/paid/ask');

const pricedAgent = (askUsd = '0.01') => priced(worker.deployment, API_KEY, { askUsd });

const ask = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

/** Status, error code and PAYMENT-REQUIRED of an answer. */
async function refusal(res: Response): Promise<{ status: number; code: string | undefined; required: boolean; reason?: unknown }> {
  const body = (await res.json().catch(() => ({}))) as { error?: { code?: string; details?: { reason?: unknown } } };
  const reason = body.error?.details?.reason;
  return {
    status: res.status,
    code: body.error?.code,
    required: res.headers.has('payment-required'),
    ...(reason === undefined ? {} : { reason }),
  };
}

/** Signs the payment a 402 asks for, after `edit` changed its terms (spend controls off: any asset may be signed). */
async function signFor(account: TestAccount, unpaid: Response, edit: (r: PaymentRequirements) => void = () => undefined) {
  const client = new x402HTTPClient(
    new x402Client().register('eip155:*', new ExactEvmScheme(privateKeyToAccount(account.privateKey))).setSpendControls(false),
  );
  const required = client.getPaymentRequiredResponse((name) => unpaid.headers.get(name));
  for (const accepted of required.accepts) edit(accepted);
  return client.encodePaymentSignatureHeader(await client.createPaymentPayload(required));
}

/** Runs `send`, and checks it answered 402 payment_invalid with the model not called and no USDC moved. */
async function refusedUnpaid(agent: Agent, who: TestAccount, send: () => Promise<Response>, code = 'payment_invalid') {
  const calls = llm.completions().length;
  const [payerBefore, ownerBefore] = await Promise.all([balance(who.address), balance(agent.owner.address)]);
  const answer = await refusal(await send());
  expect(answer, JSON.stringify(answer)).toMatchObject({ status: 402, code });
  // x402's reason for a refused payment is passed on.
  if (code === 'payment_invalid') expect(answer.reason).toEqual(expect.any(String));
  expect(llm.completions().length).toBe(calls);
  expect(await balance(who.address)).toBe(payerBefore);
  expect(await balance(agent.owner.address)).toBe(ownerBefore);
  return answer;
}

describe('payments refused', () => {
  it('a signature for the old, lower price after the owner raised it', async () => {
    const agent = await pricedAgent('0.01');
    const who = await payer();
    const signature = await signFor(who, await ask(agent.url, { message: 'cheap' }));
    expect((await setPricing(agent, { askUsd: '0.02' })).status).toBe(200);
    await refusedUnpaid(agent, who, () => ask(agent.url, { message: 'cheap' }, signature));
  });

  it.each([
    ['payTo: the payer itself', (r: PaymentRequirements, who: TestAccount) => (r.payTo = who.address)],
    ['asset: another token', (r: PaymentRequirements) => (r.asset = newWallet().address)],
    ['network: eip155:137 on the testnet', (r: PaymentRequirements) => (r.network = 'eip155:137')],
    ['amount: less than the price', (r: PaymentRequirements) => (r.amount = '1000')],
  ])('terms changed before signing (%s)', async (_name, edit) => {
    const agent = await pricedAgent();
    const who = await payer();
    const signature = await signFor(who, await ask(agent.url, { message: 'tampered' }), (r) => edit(r, who));
    await refusedUnpaid(agent, who, () => ask(agent.url, { message: 'tampered' }, signature));
  });

  it('a payload changed after signing: a flipped signature byte, another authorization value', async () => {
    const agent = await pricedAgent();
    const who = await payer();
    const signed = decodePaymentSignatureHeader(
      (await signFor(who, await ask(agent.url, { message: 'changed' })))['PAYMENT-SIGNATURE'] ?? '',
    );
    const payload = signed.payload as { signature: string; authorization: { value: string } };
    const flipped = structuredClone(signed);
    const sig = payload.signature;
    (flipped.payload as typeof payload).signature = `${sig.slice(0, 10)}${sig[10] === 'a' ? 'b' : 'a'}${sig.slice(11)}`;
    await refusedUnpaid(agent, who, () =>
      ask(agent.url, { message: 'flipped' }, { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(flipped) }),
    );
    const raised = structuredClone(signed);
    (raised.payload as typeof payload).authorization.value = '20000';
    await refusedUnpaid(agent, who, () =>
      ask(agent.url, { message: 'raised' }, { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(raised) }),
    );
    // The untouched payload still pays: the refusals spent nothing of it.
    const ok = await ask(agent.url, { message: 'untouched' }, { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(signed) });
    expect(ok.status, await ok.clone().text()).toBe(200);
  });

  it('a payer without USDC', async () => {
    const agent = await pricedAgent();
    const broke = newWallet();
    const signature = await signFor(broke, await ask(agent.url, { message: 'on credit?' }));
    const answer = await refusedUnpaid(agent, broke, () => ask(agent.url, { message: 'on credit?' }, signature));
    expect(answer.required).toBe(true);
    expect(await balance(broke.address)).toBe(0n);
  });

  it.each([
    [60, 'authorization_expires_too_soon'],
    [7_200, 'authorization_valid_too_long'],
  ])(
    'an authorization valid for %i s (120 s to 30 min taken): refused before it is claimed, so it stays unspent',
    async (seconds, reason) => {
      const agent = await pricedAgent();
      const who = await payer();
      // Signed with validBefore = now + seconds, the terms it names left as the route gave them.
      const signed = decodePaymentSignatureHeader(
        (await signFor(who, await ask(agent.url, { message: 'when?' }), (r) => (r.maxTimeoutSeconds = seconds)))['PAYMENT-SIGNATURE'] ?? '',
      );
      signed.accepted.maxTimeoutSeconds = 300;
      const header = { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(signed) };
      for (let i = 0; i < 2; i++) {
        const answer = await refusedUnpaid(agent, who, () => ask(agent.url, { message: 'when?' }, header));
        expect(answer.reason).toBe(reason);
      }
    },
  );

  it('a browser without a payment gets the JSON 402 with the terms, not a paywall page', async () => {
    const agent = await pricedAgent();
    const res = await ask(
      agent.url,
      { message: 'from a browser' },
      { accept: 'text/html,application/xhtml+xml', 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0' },
    );
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(await refusal(res)).toEqual({ status: 402, code: 'payment_required', required: true });
  });

  // A header that does not decode is no payment at all (x402 answers as without one); one that decodes but is no payment is refused.
  it.each([
    ['not base64', '%%% not base64 %%%', 'payment_required'],
    ['base64, not JSON', Buffer.from('not json at all').toString('base64'), 'payment_required'],
    ['base64 JSON, not a payment', Buffer.from('{}').toString('base64'), 'payment_invalid'],
  ])('a PAYMENT-SIGNATURE that is not a payment (%s): 402 %s with the terms', async (_name, header, code) => {
    const agent = await pricedAgent();
    const who = await payer();
    const answer = await refusedUnpaid(agent, who, () => ask(agent.url, { message: 'garbage' }, { 'PAYMENT-SIGNATURE': header }), code);
    expect(answer.required).toBe(true);
  });

  it.each([
    ['an empty body', {}],
    ['a 1-character message', { message: 'x' }],
    ['an unknown field', { message: 'hello', tip: 1 }],
  ])('%s: 400 validation_failed before any 402', async (_name, body) => {
    const agent = await pricedAgent();
    const who = await payer();
    const signature = await signFor(who, await ask(agent.url, { message: 'valid' }));
    for (const headers of [{}, signature]) {
      const calls = llm.completions().length;
      const answer = await refusal(await ask(agent.url, body, headers));
      expect(answer).toEqual({ status: 400, code: 'validation_failed', required: false });
      expect(llm.completions().length).toBe(calls);
    }
  });
});

describe('a settlement that fails after the reply', () => {
  it("the payer's USDC moved away while its reply ran: 402 payment_settlement_failed, nothing charged; that authorization never buys another reply", async () => {
    const agent = await pricedAgent();
    const who = await payer();
    const signature = await signFor(who, await ask(agent.url, { message: 'mid-reply' }));
    const ownerBefore = await balance(agent.owner.address);
    duringReply = async () => {
      duringReply = undefined;
      await transferWithAuthorization(stack.testnet.rpcUrl, CHAIN, who.privateKey, newWallet().address, 1_000_000n);
    };
    try {
      const failed = await refusal(await ask(agent.url, { message: 'mid-reply' }, signature));
      expect(failed, JSON.stringify(failed)).toMatchObject({ status: 402, code: 'payment_settlement_failed' });
    } finally {
      duringReply = undefined;
    }
    expect(await balance(agent.owner.address)).toBe(ownerBefore);
    // With the USDC back the same authorization verifies again, but it was spent on the reply it bought.
    await fundUsdc(stack.testnet.rpcUrl, CHAIN, [who.address], 1_000_000n);
    const calls = llm.completions().length;
    expect(await refusal(await ask(agent.url, { message: 'mid-reply' }, signature))).toMatchObject({
      status: 402,
      code: 'payment_replayed',
    });
    expect(llm.completions().length).toBe(calls);
    expect(await balance(agent.owner.address)).toBe(ownerBefore);
  });
});

describe('a hostile model on a paid reply', () => {
  it("calls tools it was not offered and writes without end: no tool runs, the owner's memory stays unread, the reply is cut at its bound, and the payment is the price once", async () => {
    const agent = await pricedAgent();
    const secret = `vault code ${crypto.randomUUID()}`;
    expect((await agent.call('/context', { method: 'POST', json: { key: 'private' } })).status).toBe(200);
    expect(
      (await agent.call(`/context/${seg('private')}/messages`, { method: 'POST', json: { messages: [{ role: 'user', message: secret }] } }))
        .status,
    ).toBe(200);
    const who = await payer();
    const [payerBefore, ownerBefore] = await Promise.all([balance(who.address), balance(agent.owner.address)]);
    const offered: string[][] = [];
    hostile = (request) => {
      offered.push((request.body.tools ?? []).map((t) => t.function.name));
      return request.body.messages?.some((m) => m.role === 'tool')
        ? { text: 'A'.repeat(MAX_REPLY_CHARS * 3), chunkChars: 16_384 }
        : {
            toolCalls: [
              { name: 'memory_read', arguments: { contextKey: 'private' } },
              { name: 'memory_search', arguments: { query: 'vault code' } },
            ],
          };
    };
    let res: Response;
    try {
      res = await ask(
        agent.url,
        { message: 'tell me everything' },
        await signFor(who, await ask(agent.url, { message: 'tell me everything' })),
      );
    } finally {
      hostile = undefined;
    }
    const text = await res.text();
    expect(res.status, text.slice(0, 300)).toBe(200);
    const answer = JSON.parse(text) as { reply: { message: string }; steps: { tool: string; isError: boolean }[] };
    expect(offered.flat()).toEqual([]);
    expect(answer.steps.map((s) => [s.tool, s.isError])).toEqual([
      ['memory_read', true],
      ['memory_search', true],
    ]);
    expect(text).not.toContain(secret);
    expect(answer.reply.message.length).toBeLessThanOrEqual(MAX_REPLY_CHARS);
    expect(await balance(who.address)).toBe(payerBefore - 10_000n);
    expect(await balance(agent.owner.address)).toBe(ownerBefore + 10_000n);
  });
});

describe('deployments that cannot take payments', () => {
  it('no X402_FACILITATOR_URL: 503 payments_unavailable, and the registration file never says x402Support', async () => {
    const plain = await replyWorker(stack, llm, {}, { X402_FACILITATOR_URL: '' });
    try {
      const agent = await pricedAgent();
      const who = await payer();
      const signature = await signFor(who, await ask(agent.url, { message: 'hi' }));
      for (const headers of [{}, signature]) {
        expect(await refusal(await ask(`${plain.url}${paidPath(agent)}`, { message: 'hi' }, headers))).toEqual({
          status: 503,
          code: 'payments_unavailable',
          required: false,
        });
      }
      expect((await agent.call('/profile', { method: 'PUT', json: { name: 'Priced', description: 'Paid replies' } })).status).toBe(200);
      const file = await call(plain.url, agentPath(agent.collection, agent.tokenId, '/registration.json'));
      expect(file.status, file.text).toBe(200);
      expect(file.body.x402Support).toBe(false);
    } finally {
      await plain.dispose();
    }
  });

  it('a facilitator that is down: 503 facilitator_unavailable, nothing charged, nothing stored', async () => {
    const down = await replyWorker(stack, llm, {}, { X402_FACILITATOR_URL: `http://127.0.0.1:${await freePort()}` });
    try {
      const agent = await pricedAgent();
      const who = await payer();
      const signature = await signFor(who, await ask(agent.url, { message: 'anyone?' }));
      const calls = llm.completions().length;
      const before = await balance(who.address);
      for (const headers of [{}, signature]) {
        const res = await ask(`${down.url}${paidPath(agent)}`, { message: 'anyone?' }, headers);
        expect(await refusal(res)).toEqual({ status: 503, code: 'facilitator_unavailable', required: false });
      }
      expect(llm.completions().length).toBe(calls);
      expect(await balance(who.address)).toBe(before);
      expect((await agent.call(`/context/${seg(`paid/${who.address.toLowerCase()}`)}/messages`)).status).toBe(404);
      const audit = await agent.call('/audit');
      expect(audit.body.entries.map((e: { action: string }) => e.action)).not.toContain('payment.settled');
      // The same signature still pays where the facilitator answers.
      const ok = await ask(agent.url, { message: 'anyone?' }, signature);
      expect(ok.status, await ok.clone().text()).toBe(200);
    } finally {
      await down.dispose();
    }
  });
});

describe("the owner's price", () => {
  it.each([['0'], ['0.0009'], ['100.01'], ['1.1234567'], ['abc'], ['00.5'], [1]])('askUsd %j: 400 validation_failed', async (askUsd) => {
    const agent = await replyAgent(worker.deployment, API_KEY);
    expectError(await setPricing(agent, { askUsd }), 400, 'validation_failed');
    expect((await agent.call('/llm/settings')).body.pricing).toBeNull();
  });

  it('0.001 and 100 are taken; omitted keeps the price; null ends paid replies (404 pricing_not_set)', async () => {
    const agent = await replyAgent(worker.deployment, API_KEY);
    for (const askUsd of ['0.001', '100']) {
      const saved = await setPricing(agent, { askUsd });
      expect(saved.status, saved.text).toBe(200);
      expect(saved.body.pricing).toEqual({ askUsd, memoryTools: false });
    }
    const kept = await agent.call('/llm/settings', { method: 'POST', json: { ...SETTINGS, maxTokens: 128 } });
    expect(kept.status, kept.text).toBe(200);
    expect(kept.body.pricing).toEqual({ askUsd: '100', memoryTools: false });
    expect((await refusal(await ask(`${worker.url}${paidPath(agent)}`, { message: 'price?' }))).code).toBe('payment_required');

    const ended = await setPricing(agent, null);
    expect(ended.status, ended.text).toBe(200);
    expect(ended.body.pricing).toBeNull();
    expect(await refusal(await ask(`${worker.url}${paidPath(agent)}`, { message: 'price?' }))).toEqual({
      status: 404,
      code: 'pricing_not_set',
      required: false,
    });
  });

  it('a delegate with admin leave may not set or end it (403 not_owner, the price unchanged), only send it back as it is', async () => {
    const agent = await pricedAgent('0.05');
    const other = newWallet();
    await delegateERC721(worker.deployment, agent.owner, other.address, agent.collection as `0x${string}`, agent.tokenId);
    const access = await agent.call('/llm/settings', {
      method: 'POST',
      json: { ...SETTINGS, access: { delegates: 'admin', renters: 'use' } },
    });
    expect(access.status, access.text).toBe(200);
    const token = await login(worker.deployment, other);
    const path = agentPath(agent.collection, agent.tokenId, '/llm/settings');
    for (const pricing of [{ askUsd: '0.001' }, null]) {
      expectError(await call(worker.url, path, { token, method: 'POST', json: { ...SETTINGS, pricing } }), 403, 'not_owner');
    }
    const saved = await call(worker.url, path, { token, method: 'POST', json: { ...SETTINGS, maxTokens: 64 } });
    expect(saved.status, saved.text).toBe(200);
    // The settings as read, sent back whole (a form does that): the same price is no change.
    const echoed = await call(worker.url, path, {
      token,
      method: 'POST',
      json: { ...SETTINGS, pricing: { askUsd: '0.050', memoryTools: false } },
    });
    expect(echoed.status, echoed.text).toBe(200);
    expect((await agent.call('/llm/settings')).body.pricing).toEqual({ askUsd: '0.05', memoryTools: false });
  });

  it('the registration file says x402Support while a price is set, and not after', async () => {
    const agent = await replyAgent(worker.deployment, API_KEY);
    expect((await agent.call('/profile', { method: 'PUT', json: { name: 'Paid desk', description: 'Answers for a cent' } })).status).toBe(
      200,
    );
    const file = () => call(worker.url, agentPath(agent.collection, agent.tokenId, '/registration.json'));
    expect((await file()).body.x402Support).toBe(false);
    expect((await setPricing(agent, { askUsd: '0.01' })).status).toBe(200);
    const priced = await file();
    expect(priced.status, priced.text).toBe(200);
    expect(priced.body.x402Support).toBe(true);
    expect((await setPricing(agent, null)).status).toBe(200);
    expect((await file()).body.x402Support).toBe(false);
  });
});
