/**
 * Rate limits through the real Workers Rate Limiting binding as Miniflare runs it.
 * Miniflare counts in fixed windows aligned to the epoch (60 s here): a burst started early in a
 * window cannot straddle two, so the counts below are exact.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readWranglerConfig, startMiniflare } from '../../scripts/lib/worker-bundle';
import { freshAgent } from '../support/agent';
import { createKey } from '../support/agent-keys';
import { newWallet } from '../support/chain';
import { call, deployment, expectError, type JsonResponse } from '../support/http';
import { agentPath, finish, initLogin } from '../support/login';
import { earlyInWindow, initBurst } from '../support/rate-limits';
import { workerBindingsFor } from '../support/worker';

const stack = inject('stack');
const testnet = deployment('testnet');

const loginLimit = readWranglerConfig('testnet').ratelimits?.find((r) => r.name === 'LOGIN_RATE_LIMITER')?.simple.limit ?? 0;

function expectRateLimited(res: JsonResponse): void {
  expectError(res, 429, 'rate_limited');
  expect(res.headers.get('retry-after')).toBe('60');
}

const init = (baseUrl: string, walletAddress: string, headers: Record<string, string> = {}) =>
  call(baseUrl, '/auth/jwt/init', { method: 'POST', json: { walletAddress, chainId: 80002 }, headers });

describe('per wallet on the login routes', () => {
  it('a burst of 40 inits for one wallet gets 429 rate_limited with Retry-After; another wallet is unaffected', async () => {
    expect(loginLimit).toBeGreaterThan(0);
    expect(loginLimit).toBeLessThan(40);
    const wallet = newWallet();
    await earlyInWindow();
    // The owner's own message, handed out before someone floods the wallet with inits.
    const mine = await initLogin(testnet, wallet.address);
    const results = await initBurst(testnet.baseUrl, wallet.address, 40);
    expect(results.filter((r) => r.status === 200)).toHaveLength(loginLimit - 1);
    const limited = results.filter((r) => r.status !== 200);
    expect(limited).toHaveLength(40 - loginLimit + 1);
    for (const res of limited) expectRateLimited(res);

    // One init budget per wallet, however the address is spelled.
    expectRateLimited(await init(testnet.baseUrl, wallet.address.toLowerCase()));
    // Finish and verify count apart: a flood of inits never blocks the finish of a message handed out.
    expectError(
      await finish(testnet.baseUrl, { walletAddress: wallet.address, chainId: 80002, signature: `0x${'ab'.repeat(65)}` }),
      401,
      'signature_invalid',
    );
    // The owner's message is still found among the pending ones, without its nonce (the spec's body).
    const signature = await wallet.signMessage({ message: mine.message });
    expect((await finish(testnet.baseUrl, { walletAddress: wallet.address, chainId: 80002, signature })).status).toBe(200);

    const other = newWallet();
    expect((await initLogin(testnet, other.address)).nonce).toBeTruthy();
  });
});

describe('per wallet on costly signature checks (finish without its nonce, chain checks)', () => {
  it('a burst of garbage finishes spends the wallet budget; the owner finishing with the nonce is never blocked', async () => {
    const wallet = newWallet();
    await earlyInWindow();
    const mine = await initLogin(testnet, wallet.address);
    const garbage = { walletAddress: wallet.address, chainId: 80002, signature: `0x${'cd'.repeat(65)}` };
    const results = await Promise.all(Array.from({ length: 40 }, () => finish(testnet.baseUrl, garbage)));
    expect(results.filter((r) => r.status === 401)).toHaveLength(loginLimit);
    for (const res of results.filter((r) => r.status !== 401)) expectRateLimited(res);
    // A garbage signature with a nonce must ask the chain (a smart wallet's?): that is costly, and limited.
    expectRateLimited(await finish(testnet.baseUrl, { ...garbage, nonce: mine.nonce }));
    // So is a pairing check whose signature does not recover locally.
    const pairing = await initLogin(testnet, wallet.address, testnet.baseUrl, 'pairing');
    const stranger = newWallet();
    expectRateLimited(
      await call(testnet.baseUrl, '/wallet/verify', {
        method: 'POST',
        json: {
          walletAddress: wallet.address,
          chainId: 80002,
          message: pairing.message,
          signature: await stranger.signMessage({ message: pairing.message }),
        },
      }),
    );
    // The owner, finishing with the nonce and a signature that recovers locally, spends nothing.
    const signature = await wallet.signMessage({ message: mine.message });
    const res = await finish(testnet.baseUrl, { walletAddress: wallet.address, chainId: 80002, signature, nonce: mine.nonce });
    expect(res.status, res.text).toBe(200);
  });

  it('counts per public client address too: a flood from one address does not spend the budget of another', async () => {
    const wallet = newWallet();
    const flooder = `203.0.113.${1 + Math.floor(Math.random() * 250)}`;
    const owner = `198.51.100.${1 + Math.floor(Math.random() * 250)}`;
    await earlyInWindow();
    const results = await initBurst(testnet.baseUrl, wallet.address, loginLimit + 1, 80002, { 'cf-connecting-ip': flooder });
    expect(results.filter((r) => r.status === 200)).toHaveLength(loginLimit);
    expectRateLimited(results.find((r) => r.status !== 200) as JsonResponse);
    expect((await init(testnet.baseUrl, wallet.address, { 'cf-connecting-ip': owner })).status).toBe(200);
  });
});

describe('on a deployment with low limits (agent routes 5, client address 5 a minute)', () => {
  let worker: Awaited<ReturnType<typeof startMiniflare>>;
  beforeAll(async () => {
    worker = await startMiniflare({
      scriptPath: stack.scriptPath,
      deployment: 'testnet',
      bindings: workerBindingsFor(stack),
      limits: { AGENT_RATE_LIMITER: 5, IP_RATE_LIMITER: 5 },
    });
  });
  afterAll(async () => {
    await worker?.dispose();
  });

  it('limits agent routes per wallet of the token, after the bearer gate; another wallet is unaffected', async () => {
    const [agent, other] = await Promise.all([freshAgent(testnet), freshAgent(testnet)]);
    const path = agentPath(agent.collection, agent.tokenId);
    await earlyInWindow();
    for (let i = 0; i < 5; i++) {
      const r = await call(worker.url, path, { token: agent.token });
      expect(r.status, `${i} ${r.text}`).toBe(200);
    }
    expectRateLimited(await call(worker.url, path, { token: agent.token }));
    expectRateLimited(await call(worker.url, agentPath(agent.collection, agent.tokenId, '/contexts/keys'), { token: agent.token }));
    // The bearer gate answers first: no token, no count.
    expectError(await call(worker.url, path), 401, 'unauthorized');
    expect((await call(worker.url, agentPath(other.collection, other.tokenId), { token: other.token })).status).toBe(200);
  });

  it("counts every agent key of an agent against one budget, besides each key's own; another agent's keys and the owner are unaffected", async () => {
    const [agent, other] = await Promise.all([freshAgent(testnet), freshAgent(testnet)]);
    // Made through the harness' worker: nothing here is spent on this worker's budgets.
    const keys = await Promise.all(['a', 'b', 'c'].map((name) => createKey(agent, ['contexts:read'], { name })));
    const otherKey = await createKey(other, ['contexts:read']);
    const path = agentPath(agent.collection, agent.tokenId, '/contexts/keys');
    const madeUp = () =>
      `agk_${Array.from({ length: 32 }, () => 'abcdefghijklmnopqrstuvwxyz234567'[Math.floor(Math.random() * 32)]).join('')}`;
    await earlyInWindow();
    // Keys that are not this agent's spend nothing of its budget: a stranger cannot drain it.
    for (let i = 0; i < 3; i++) expectError(await call(worker.url, path, { token: madeUp() }), 401, 'key_invalid');
    for (let i = 0; i < 2; i++) expectError(await call(worker.url, path, { token: otherKey.key }), 403, 'key_wrong_agent');
    // Five requests over three keys: each key well within its own budget of 5, the agent's spent.
    for (const k of [0, 1, 2, 0, 1]) {
      const r = await call(worker.url, path, { token: keys[k]!.key });
      expect(r.status, r.text).toBe(200);
    }
    expectRateLimited(await call(worker.url, path, { token: keys[2]!.key }));
    const fresh = await createKey(agent, ['contexts:read'], { name: 'd' });
    expectRateLimited(await call(worker.url, path, { token: fresh.key }));
    // The owner's token has its own budget; another agent's keys count against theirs.
    expect((await call(worker.url, path, { token: agent.token })).status).toBe(200);
    const elsewhere = await call(worker.url, agentPath(other.collection, other.tokenId, '/contexts/keys'), { token: otherKey.key });
    expect(elsewhere.status, elsewhere.text).toBe(200);
  });

  it('limits routes without a token per public client address; loopback, private and absent addresses are not limited', async () => {
    const ip = `203.0.113.${1 + Math.floor(Math.random() * 250)}`;
    await earlyInWindow();
    for (let i = 0; i < 5; i++) {
      expect((await call(worker.url, '/health', { headers: { 'cf-connecting-ip': ip } })).status).toBe(200);
    }
    expectRateLimited(await call(worker.url, '/health', { headers: { 'cf-connecting-ip': ip } }));
    expectRateLimited(await init(worker.url, newWallet().address, { 'cf-connecting-ip': ip }));
    // An IPv6 client counts per /64.
    const net = `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}:1`;
    for (let i = 0; i < 5; i++) {
      expect((await call(worker.url, '/health', { headers: { 'cf-connecting-ip': `${net}::${i + 1}` } })).status).toBe(200);
    }
    expectRateLimited(await call(worker.url, '/health', { headers: { 'cf-connecting-ip': `${net}::99` } }));

    for (const local of ['127.0.0.1', '10.1.2.3', '192.168.0.7', '172.16.5.5', '100.64.1.1', 'fd00::1', '::1', 'not-an-ip']) {
      const statuses = [];
      for (let i = 0; i < 7; i++) statuses.push((await call(worker.url, '/health', { headers: { 'cf-connecting-ip': local } })).status);
      expect(statuses, local).toEqual(Array(7).fill(200));
    }
    const statuses = [];
    for (let i = 0; i < 7; i++) statuses.push((await call(worker.url, '/health')).status); // Miniflare: 127.0.0.1
    expect(statuses).toEqual(Array(7).fill(200));
  });

  it('counts agent routes per public client address too, before the token is checked, apart from the routes without a token', async () => {
    const ip = `198.51.100.${1 + Math.floor(Math.random() * 250)}`;
    const path = agentPath(testnet.collection, 1n);
    await earlyInWindow();
    for (let i = 0; i < 5; i++) expectError(await call(worker.url, path, { headers: { 'cf-connecting-ip': ip } }), 401, 'unauthorized');
    expectRateLimited(await call(worker.url, path, { headers: { 'cf-connecting-ip': ip } }));
    expect((await call(worker.url, '/health', { headers: { 'cf-connecting-ip': ip } })).status).toBe(200);
  });
});

describe('a deployment without its rate-limit bindings', () => {
  it('answers 500 misconfigured naming the missing binding', async () => {
    const worker = await startMiniflare({
      scriptPath: stack.scriptPath,
      deployment: 'testnet',
      bindings: workerBindingsFor(stack),
      omit: ['IP_RATE_LIMITER'],
    });
    try {
      for (const res of [await call(worker.url, '/health'), await init(worker.url, newWallet().address)]) {
        expectError(res, 500, 'misconfigured');
        expect((res.body as { error: { details: { problems: string[] } } }).error.details.problems).toEqual([
          expect.stringContaining('IP_RATE_LIMITER'),
        ]);
      }
    } finally {
      await worker.dispose();
    }
  });

  it('serves without limits when the local stack runs with DEV_RATE_LIMITS=0', async () => {
    const worker = await startMiniflare({
      scriptPath: stack.scriptPath,
      deployment: 'testnet',
      bindings: { ...workerBindingsFor(stack), DEV_RATE_LIMITS: '0' },
      omit: ['LOGIN_RATE_LIMITER', 'AGENT_RATE_LIMITER', 'IP_RATE_LIMITER'],
    });
    try {
      const wallet = newWallet();
      const results = await initBurst(worker.url, wallet.address, 40, 80002, { 'cf-connecting-ip': '203.0.113.200' });
      expect(results.map((r) => r.status)).toEqual(Array(40).fill(200));
    } finally {
      await worker.dispose();
    }
  });
});
