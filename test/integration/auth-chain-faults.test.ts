/**
 * Chain faults at login and RPC fallback: a smart-wallet login that cannot reach the chain is 503
 * with Retry-After and consumes nothing; RPC_URLS falls through dead and hanging endpoints.
 * Extra workers run against the harness' Postgres and anvil, with RPC endpoints a test controls.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../scripts/lib/processes';
import { startMiniflare } from '../../scripts/lib/worker-bundle';
import { deploySmartWallet, mintFreshAgent, newWallet, type TestAccount } from '../support/chain';
import { call, deployment, expectError, type JsonResponse } from '../support/http';
import { agentPath, finish, initLogin, login, verifyWallet } from '../support/login';
import { startBlackHole, startRpcProxy, type RpcProxy } from '../support/rpc-proxy';
import { workerBindingsFor } from '../support/worker';

const stack = inject('stack');
const testnet = deployment('testnet');
const chainId = 80002;

type Worker = Awaited<ReturnType<typeof startMiniflare>>;
const workers: Worker[] = [];
let proxy: RpcProxy;
let blackHole: Awaited<ReturnType<typeof startBlackHole>>;
/** RPC_URL is a proxy in front of anvil that the tests switch off and on. */
let behindProxy: Worker;
/** RPC_URLS: a closed port, then a port that never answers, then anvil. */
let deadFirst: Worker;
/** RPC_URLS: only dead endpoints. */
let allDead: Worker;

async function worker(overrides: Record<string, string>, omit: string[] = []): Promise<Worker> {
  const started = await startMiniflare({
    scriptPath: stack.scriptPath,
    deployment: 'testnet',
    omit,
    bindings: { ...workerBindingsFor(stack), ...overrides },
  });
  workers.push(started);
  return started;
}

beforeAll(async () => {
  proxy = await startRpcProxy(testnet.rpcUrl);
  blackHole = await startBlackHole();
  const closed = `http://127.0.0.1:${await freePort()}`;
  [behindProxy, deadFirst, allDead] = await Promise.all([
    worker({ RPC_URL: proxy.url, RPC_TIMEOUT_MS: '1000' }),
    // no RPC_URL: the list alone must serve
    worker({ RPC_URLS: `${closed},${blackHole.url},${testnet.rpcUrl}`, RPC_TIMEOUT_MS: '500' }, ['RPC_URL']),
    worker({ RPC_URLS: `${closed},${blackHole.url}`, RPC_TIMEOUT_MS: '500' }, ['RPC_URL']),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all(workers.map((w) => w.dispose()));
  await proxy?.close();
  await blackHole?.close();
});

function expectChainUnavailable(res: JsonResponse): void {
  expectError(res, 503, 'dependency_unavailable');
  expect(res.headers.get('retry-after')).toBe('5');
}

/** An ERC-1271 wallet (deployed on anvil) and the key that signs for it. */
async function smartWallet(): Promise<{ owner: TestAccount; wallet: `0x${string}` }> {
  const owner = newWallet();
  return { owner, wallet: await deploySmartWallet(testnet, owner.address) };
}

describe('a chain fault during a smart-wallet login', () => {
  it('is 503 dependency_unavailable with Retry-After and consumes nothing: the same signature logs in once the RPC is back', async () => {
    const { owner, wallet } = await smartWallet();
    const { nonce, message } = await initLogin(testnet, wallet, behindProxy.url);
    const signature = await owner.signMessage({ message });
    proxy.setUp(false);
    try {
      expectChainUnavailable(await finish(behindProxy.url, { walletAddress: wallet, chainId, signature }));
      expectChainUnavailable(await finish(behindProxy.url, { walletAddress: wallet, chainId, signature, nonce }));
    } finally {
      proxy.setUp(true);
    }
    const res = await finish(behindProxy.url, { walletAddress: wallet, chainId, signature });
    expect(res.status, res.text).toBe(200);
    expectError(await finish(behindProxy.url, { walletAddress: wallet, chainId, signature }), 401, 'nonce_used');
  });

  it('is 503 at /wallet/verify too, and the pairing succeeds once the RPC is back', async () => {
    const { owner, wallet } = await smartWallet();
    const { message } = await initLogin(testnet, wallet, behindProxy.url, 'pairing');
    const body = { walletAddress: wallet, chainId, message, signature: await owner.signMessage({ message }) };
    proxy.setUp(false);
    try {
      expectChainUnavailable(await verifyWallet(behindProxy.url, body));
    } finally {
      proxy.setUp(true);
    }
    const res = await verifyWallet(behindProxy.url, body);
    expect(res.status, res.text).toBe(200);
  });

  it('a wrong signer is still 401 signature_invalid when the chain answers (a revert is a verdict, not a fault)', async () => {
    const { wallet } = await smartWallet();
    const { message } = await initLogin(testnet, wallet, behindProxy.url);
    const signature = await newWallet().signMessage({ message });
    expectError(await finish(behindProxy.url, { walletAddress: wallet, chainId, signature }), 401, 'signature_invalid');
  });
});

describe('RPC_URLS: viem fallback with a per-call timeout', () => {
  it('a dead and a hanging endpoint first still serve a smart-wallet login, the gate and /health', async () => {
    const { owner, wallet } = await smartWallet();
    const { message } = await initLogin(testnet, wallet, deadFirst.url);
    const hungBefore = blackHole.connections();
    const res = await finish(deadFirst.url, { walletAddress: wallet, chainId, signature: await owner.signMessage({ message }) });
    expect(res.status, res.text).toBe(200);
    expect(blackHole.connections()).toBeGreaterThan(hungBefore); // the list was tried in order, the hanging one timed out
    const token = (res.body as { token: string }).token;
    const tokenId = await mintFreshAgent(testnet, wallet);
    const agent = await call(deadFirst.url, agentPath(testnet.collection, tokenId), { token });
    expect(agent.status, agent.text).toBe(200);
    expect(agent.body).toMatchObject({ owner: wallet });
    const health = await call(deadFirst.url, '/health');
    expect(health.status, health.text).toBe(200);
  });

  it('all endpoints dead: smart-wallet login, the gate and /health answer 503 with Retry-After; an ordinary wallet still logs in', async () => {
    const { owner, wallet } = await smartWallet();
    const { message } = await initLogin(testnet, wallet, allDead.url);
    expectChainUnavailable(await finish(allDead.url, { walletAddress: wallet, chainId, signature: await owner.signMessage({ message }) }));

    const holder = newWallet();
    const tokenId = await mintFreshAgent(testnet, holder.address);
    const token = await login({ ...testnet, baseUrl: allDead.url }, holder); // local recovery: no RPC needed
    expectChainUnavailable(await call(allDead.url, agentPath(testnet.collection, tokenId), { token }));

    const health = await call(allDead.url, '/health');
    expect(health.status).toBe(503);
    expect(health.headers.get('retry-after')).toBe('5');
  });
});
