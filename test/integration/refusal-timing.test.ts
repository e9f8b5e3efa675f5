/**
 * Timing must not tell a stranger what an agent holds (issue 18). Against a worker whose database
 * is 500 ms away and whose chain answers at once: a caller refused by the owner check is answered
 * when the check fails, not when the handler's read ends, and agent routes carry no
 * `Server-Timing` (other routes still do).
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../scripts/lib/processes';
import { startMiniflare } from '../../scripts/lib/worker-bundle';
import { startWsBridge, type RunningBridge } from '../../scripts/lib/ws-bridge';
import { mintFreshAgent, newWallet } from '../support/chain';
import { call, deployment, expectError } from '../support/http';
import { agentPath, login } from '../support/login';
import { workerBindingsFor } from '../support/worker';

const stack = inject('stack');
const testnet = deployment('testnet');
const DB_LATENCY_MS = 500;

let bridge: RunningBridge;
let worker: Awaited<ReturnType<typeof startMiniflare>>;
let ownerToken: string;
let strangerToken: string;
let tokenId: bigint;

beforeAll(async () => {
  bridge = await startWsBridge(await freePort(), { latencyMs: DB_LATENCY_MS });
  worker = await startMiniflare({
    scriptPath: stack.scriptPath,
    deployment: 'testnet',
    bindings: { ...workerBindingsFor(stack), DB_WS_PROXY: bridge.proxy },
  });
  const owner = newWallet();
  tokenId = await mintFreshAgent(testnet, owner.address);
  [ownerToken, strangerToken] = await Promise.all([login(testnet, owner), login(testnet, newWallet())]);
  const created = await call(worker.url, agentPath(testnet.collection, tokenId, '/context'), {
    method: 'POST',
    token: ownerToken,
    json: { key: 'notes' },
  });
  expect(created.status, created.text).toBe(200);
}, 60_000);

afterAll(async () => {
  await worker?.dispose();
  await bridge?.stop();
});

async function timedGet(token: string, rest: string) {
  const started = performance.now();
  const res = await call(worker.url, agentPath(testnet.collection, tokenId, rest), { token });
  return { res, ms: performance.now() - started };
}

describe('a refused caller learns nothing from timing', () => {
  it("a stranger's read is refused before the database answers the handler's read", async () => {
    for (const rest of ['/context/notes/messages', '/contexts/keys', '/context/none/messages']) {
      const { res, ms } = await timedGet(strangerToken, rest);
      expectError(res, 403, 'not_owner');
      expect(ms, rest).toBeLessThan(DB_LATENCY_MS);
      expect(res.headers.get('server-timing')).toBeNull();
    }
    // The owner's read does wait for the database, and is served.
    const { res, ms } = await timedGet(ownerToken, '/context/notes/messages');
    expect(res.status, res.text).toBe(200);
    expect(ms).toBeGreaterThanOrEqual(DB_LATENCY_MS);
  });

  it('agent routes carry no Server-Timing, for the owner either; other routes keep it', async () => {
    const owner = await timedGet(ownerToken, '/contexts/keys');
    expect(owner.res.status).toBe(200);
    expect(owner.res.headers.get('server-timing')).toBeNull();
    const health = await call(worker.url, '/health');
    expect(health.headers.get('server-timing')).toMatch(/^total;dur=\d+$/);
  });
});
