import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { registerCollection } from '../../scripts/lib/collections';
import { migrateGateway } from '../../scripts/lib/migrate';
import { ensureDatabase, startPostgres, type RunningPostgres } from '../../scripts/lib/postgres';
import { freePort } from '../../scripts/lib/processes';
import { startMiniflare } from '../../scripts/lib/worker-bundle';
import { startWsBridge, type RunningBridge } from '../../scripts/lib/ws-bridge';
import { freshAgent, seg, type TestAgent } from '../support/agent';
import { mintFreshAgent, newWallet } from '../support/chain';
import { call, deployment, expectError } from '../support/http';
import { agentPath, finish, initLogin } from '../support/login';
import { agentSchema, closePg, quoted, sql } from '../support/pg';
import { workerBindingsFor } from '../support/worker';

const stack = inject('stack');
const testnet = deployment('testnet');

afterAll(closePg);

describe('a storage failure inside a write', () => {
  let agent: TestAgent;
  let schema: string;

  beforeAll(async () => {
    agent = await freshAgent(testnet);
    expect((await agent.call('/context', { method: 'POST', json: { key: 'existing' } })).status).toBe(200);
    schema = quoted(await agentSchema(stack.databaseUrl, agent));
  });

  it('answers 500 internal_error, leaks no SQL, and leaves nothing half-written', async () => {
    await sql(stack.databaseUrl, `DROP TABLE ${schema}.key_count`);
    const res = await agent.call('/context', { method: 'POST', json: { key: 'new-key' } });
    expectError(res, 500, 'internal_error');
    expect(res.text).not.toMatch(/key_count|relation|agent_|select|insert/i);
    const rows = await sql<{ key: string }>(stack.databaseUrl, `select key from ${schema}.contexts order by key`);
    expect(rows.map((r) => r.key)).toEqual(['existing']);

    const batch = await agent.call('/contexts', { method: 'POST', json: { keys: ['batch-a', 'batch-b'] } });
    expectError(batch, 500, 'internal_error');
    expect((await sql<{ key: string }>(stack.databaseUrl, `select key from ${schema}.contexts order by key`)).map((r) => r.key)).toEqual([
      'existing',
    ]);
  });
});

describe('when Postgres stops and comes back', () => {
  let stateDir: string;
  let postgres: RunningPostgres | undefined;
  let bridge: RunningBridge | undefined;
  let worker: Awaited<ReturnType<typeof startMiniflare>> | undefined;
  let dataDir: string;
  let port: number;
  let token: string;
  let tokenId: bigint;
  const wallet = newWallet();

  const at = (rest: string, init: Parameters<typeof call>[2] = {}) =>
    call(worker!.url, agentPath(testnet.collection, tokenId, rest), { token, ...init });

  beforeAll(async () => {
    stateDir = await mkdtemp(path.join(tmpdir(), 'contexts-resilience-'));
    await chmod(stateDir, 0o755); // Postgres runs as its own user when we are root
    dataDir = path.join(stateDir, 'pg');
    port = await freePort();
    postgres = await startPostgres({ dataDir, port });
    await ensureDatabase(postgres.adminUrl, 'agent_gateway');
    const databaseUrl = postgres.databaseUrl('agent_gateway');
    await migrateGateway(databaseUrl);
    await registerCollection(databaseUrl, { chainId: 80002, address: testnet.collection, kind: 'internal' });
    bridge = await startWsBridge(await freePort());
    worker = await startMiniflare({
      scriptPath: stack.scriptPath,
      deployment: 'testnet',
      bindings: { ...workerBindingsFor(stack), DATABASE_URL: databaseUrl, DB_WS_PROXY: bridge.proxy },
    });
    tokenId = await mintFreshAgent(testnet, wallet.address);
    const { message } = await initLogin(testnet, wallet.address, worker.url);
    const login = await finish(worker.url, {
      walletAddress: wallet.address,
      chainId: 80002,
      signature: await wallet.signMessage({ message }),
    });
    expect(login.status, login.text).toBe(200);
    token = login.body.token;
  });

  afterAll(async () => {
    await worker?.dispose().catch(() => undefined);
    await bridge?.stop().catch(() => undefined);
    await postgres?.stop().catch(() => undefined);
    if (stateDir) await rm(stateDir, { recursive: true, force: true });
  });

  it('answers 503 dependency_unavailable with Retry-After, then serves again without a worker restart', async () => {
    expect((await at('/context', { method: 'POST', json: { key: 'before-outage' } })).status).toBe(200);
    expect((await at(`/context/${seg('before-outage')}/message`, { method: 'POST', json: { role: 'user', message: 'kept' } })).status).toBe(
      200,
    );

    await postgres!.stop();
    const down = [
      await at('/contexts/keys'),
      await at('/context', { method: 'POST', json: { key: 'during-outage' } }),
      await at('/contexts', { method: 'POST', json: { keys: ['during-outage'] } }),
      await at(`/context/${seg('before-outage')}/message`, { method: 'POST', json: { role: 'user', message: 'lost?' } }),
      await at(`/context/${seg('before-outage')}/messages`, { method: 'POST', json: { messages: [{ role: 'user', message: 'lost?' }] } }),
      await at(`/context/${seg('before-outage')}/messages`),
    ];
    for (const res of down) {
      expectError(res, 503, 'dependency_unavailable');
      expect(res.headers.get('retry-after')).toBe('5');
      expect(res.text).not.toContain('postgres:postgres');
    }

    postgres = await startPostgres({ dataDir, port });
    const list = await at('/contexts/keys');
    expect(list.status, list.text).toBe(200);
    expect(list.body).toEqual({ page: 1, elementsPerPage: 10, totalElements: 1, contextKeys: ['before-outage'], nextAfter: null });
    const messages = await at(`/context/${seg('before-outage')}/messages`);
    expect(messages.status).toBe(200);
    expect(messages.body.messages.map((m: { message: string }) => m.message)).toEqual(['kept']);
    expect((await at('/context', { method: 'POST', json: { key: 'after-outage' } })).status).toBe(200);
  }, 120_000);
});
