/**
 * The LLM API key and the external database password are bound to the wallet that entered them,
 * against the real stack with the agent NFT transferred on anvil: the buyer sees
 * `credential: reenter_required` (never the seller's secret), cannot activate a database setup
 * whose password the seller entered (409 `credential_reentry_required`), and enters their own:
 * a POST of the LLM settings with `apiKey`, the database's first step again.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freshAgent, type TestAgent } from '../support/agent';
import { newWallet, transferFreshAgent } from '../support/chain';
import { call, expectError, type JsonResponse } from '../support/http';
import { agentPath, login } from '../support/login';
import { loopbackWorker } from '../support/loopback-worker';
import { adminStatements, closePg, sql } from '../support/pg';
import { secretValue } from '../support/secrets';

const stack = inject('stack');
// The database step reaches the embedded Postgres on loopback: a worker as `npm run dev` runs it
// (DEV_LOOPBACK_TARGETS=1); production's policy refuses loopback targets.
let worker: Awaited<ReturnType<typeof loopbackWorker>>;
let testnet: Awaited<ReturnType<typeof loopbackWorker>>['deployment'];

// A second database in the embedded Postgres, with a reader role per wallet, stands in for an external one.
const database = `transfer_${randomBytes(4).toString('hex')}`;
const roles = {
  seller: { user: `seller_${randomBytes(4).toString('hex')}`, password: secretValue('db-seller') },
  buyer: { user: `buyer_${randomBytes(4).toString('hex')}`, password: secretValue('db-buyer') },
};
const port = Number(new URL(stack.postgresAdminUrl).port);
const target = (who: keyof typeof roles) => ({
  host: '127.0.0.1',
  port,
  database,
  user: roles[who].user,
  password: roles[who].password,
  ssl: 'disable',
});

const admin = (database: string, statements: string[]) => adminStatements(stack.postgresAdminUrl, database, statements);

beforeAll(async () => {
  worker = await loopbackWorker(stack);
  testnet = worker.deployment;
  await admin('postgres', [
    ...Object.values(roles).map((r) => `create role "${r.user}" login password '${r.password}'`),
    `create database "${database}"`,
  ]);
  await admin(database, [
    'create table public.orders (id int primary key)',
    ...Object.values(roles).map((r) => `grant select on public.orders to "${r.user}"`),
  ]);
});

afterAll(async () => {
  await worker?.dispose();
  await closePg();
  await admin('postgres', [
    `drop database if exists "${database}" with (force)`,
    ...Object.values(roles).map((r) => `drop role if exists "${r.user}"`),
  ]);
});

/** Sells the agent to a fresh buyer; returns a caller of the agent's routes with the buyer's token. */
async function sell(agent: TestAgent) {
  const buyer = newWallet();
  await transferFreshAgent(testnet, agent.owner, buyer.address, agent.tokenId);
  const token = await login(testnet, buyer);
  const asBuyer = <T = any>(rest: string, init: Parameters<typeof call>[2] = {}): Promise<JsonResponse<T>> =>
    call<T>(testnet.baseUrl, agentPath(agent.collection, agent.tokenId, rest), { token, ...init });
  return { buyer, asBuyer };
}

const entriesOf = (agent: TestAgent) =>
  sql<{ owner: string; owner_wallet: string }>(
    stack.databaseUrl,
    'select owner, owner_wallet from gateway.vault_entries where chain_id = $1 and collection = $2 and token_id = $3 order by created_at',
    [testnet.chainId, agent.collection.toLowerCase(), agent.tokenId.toString()],
  );

describe('the LLM API key after the agent is sold', () => {
  it("shows reenter_required to the buyer, keeps it so without a new key, and takes the buyer's own", async () => {
    const sellerKey = secretValue('llm-seller');
    const buyerKey = secretValue('llm-buyer');
    const settings = { provider: 'openai', model: 'gpt-4.1-mini', temperature: 0.3, maxTokens: 1000 };
    const agent = await freshAgent(testnet);
    const saved = await agent.call('/llm/settings', { method: 'POST', json: { ...settings, apiKey: sellerKey } });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body).toMatchObject({ apiKeySet: true, credential: 'set' });

    const { buyer, asBuyer } = await sell(agent);
    expectError(await agent.call('/llm/settings'), 403, 'not_owner');
    const read = await asBuyer('/llm/settings');
    expect(read.status, read.text).toBe(200);
    expect(read.body).toMatchObject({ ...settings, apiKeySet: false, credential: 'reenter_required' });
    expect(read.text).not.toContain(sellerKey);

    const kept = await asBuyer('/llm/settings', { method: 'POST', json: { ...settings, model: 'other' } });
    expect(kept.status, kept.text).toBe(200);
    expect(kept.body).toMatchObject({ model: 'other', apiKeySet: false, credential: 'reenter_required' });

    const own = await asBuyer('/llm/settings', { method: 'POST', json: { ...settings, apiKey: buyerKey } });
    expect(own.status, own.text).toBe(200);
    expect(own.body).toMatchObject({ apiKeySet: true, credential: 'set' });
    expect((await asBuyer('/llm/settings')).body).toMatchObject({ apiKeySet: true, credential: 'set' });
    // the seller's key is destroyed; the one stored is the buyer's
    expect(await entriesOf(agent)).toEqual([{ owner: 'llm_settings', owner_wallet: buyer.address.toLowerCase() }]);
  });

  it("shows none when no key is stored; after a transfer the seller's choice of none is not the buyer's until they make it", async () => {
    const agent = await freshAgent(testnet);
    const settings = { provider: 'openai', model: 'm', temperature: 0, maxTokens: 10 };
    const saved = await agent.call('/llm/settings', { method: 'POST', json: settings });
    expect(saved.body).toMatchObject({ apiKeySet: false, credential: 'none' });
    const { asBuyer } = await sell(agent);
    expect((await asBuyer('/llm/settings')).body).toMatchObject({ apiKeySet: false, credential: 'reenter_required' });
    const own = await asBuyer('/llm/settings', { method: 'POST', json: { ...settings, apiKey: null } });
    expect(own.body).toMatchObject({ apiKeySet: false, credential: 'none' });
  });
});

describe('the database password after the agent is sold', () => {
  it("the buyer cannot activate the seller's setup (409) and runs the first step again with their own", async () => {
    const agent = await freshAgent(testnet);
    const first = await agent.call('/database/settings/first-step', { method: 'POST', json: target('seller') });
    expect(first.status, first.text).toBe(200);
    const active = await agent.call('/database/settings/second-step', {
      method: 'POST',
      json: { setupId: first.body.setupId, tables: ['public.orders'] },
    });
    expect(active.status, active.text).toBe(200);
    expect(active.body).toMatchObject({ status: 'active', credential: 'set' });
    const pending = await agent.call('/database/settings/first-step', { method: 'POST', json: target('seller') });
    expect(pending.status, pending.text).toBe(200);

    const { buyer, asBuyer } = await sell(agent);
    const read = await asBuyer('/database/settings');
    expect(read.status, read.text).toBe(200);
    expect(read.body.active).toMatchObject({ setupId: first.body.setupId, credential: 'reenter_required' });
    expect(read.body.pending).toMatchObject([{ setupId: pending.body.setupId, credential: 'reenter_required' }]);
    expect(read.text).not.toContain(roles.seller.password);

    expectError(
      await asBuyer('/database/settings/second-step', {
        method: 'POST',
        json: { setupId: pending.body.setupId, tables: ['public.orders'] },
      }),
      409,
      'credential_reentry_required',
    );
    expect((await asBuyer('/database/settings')).body.active.setupId).toBe(first.body.setupId); // nothing changed

    const own = await asBuyer('/database/settings/first-step', { method: 'POST', json: target('buyer') });
    expect(own.status, own.text).toBe(200);
    expect(own.body.tables).toEqual(['public.orders']);
    const activated = await asBuyer('/database/settings/second-step', {
      method: 'POST',
      json: { setupId: own.body.setupId, tables: ['public.orders'] },
    });
    expect(activated.status, activated.text).toBe(200);
    expect(activated.body).toMatchObject({ setupId: own.body.setupId, status: 'active', credential: 'set', user: roles.buyer.user });
    const after = await asBuyer('/database/settings');
    expect(after.body.active).toMatchObject({ setupId: own.body.setupId, credential: 'set' });
    expect(after.text).not.toContain(roles.buyer.password);
    // the seller's active setup (and its password) is gone; their pending one stays unusable
    const wallets = (await entriesOf(agent)).map((e) => e.owner_wallet);
    expect(wallets.sort()).toEqual([agent.owner.address.toLowerCase(), buyer.address.toLowerCase()].sort());
  });
});
