import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../scripts/lib/processes';
import { freshAgent } from '../support/agent';
import { errorCode, expectError, type JsonResponse } from '../support/http';
import { loopbackWorker } from '../support/loopback-worker';

/**
 * The two steps against a second database in the embedded Postgres, on loopback: so these run on
 * a worker with the local stack's DEV_LOOPBACK_TARGETS=1 (production's policy refuses loopback
 * hosts: test/integration/outbound-policy.test.ts).
 */
const stack = inject('stack');
let worker: Awaited<ReturnType<typeof loopbackWorker>>;
let testnet: Awaited<ReturnType<typeof loopbackWorker>>['deployment'];
// A second database in the embedded Postgres, with its own reader role, stands in for an external one.
const database = `external_${randomBytes(4).toString('hex')}`;
const user = `reader_${randomBytes(4).toString('hex')}`;
const password = `pw-${randomBytes(8).toString('hex')}`;
const port = Number(new URL(stack.postgresAdminUrl).port);
const target = { host: '127.0.0.1', port, database, user, password, ssl: 'disable' };

async function admin<T>(db: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: stack.postgresAdminUrl.replace(/\/postgres$/, `/${db}`) });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  worker = await loopbackWorker(stack);
  testnet = worker.deployment;
  await admin('postgres', async (c) => {
    await c.query(`create role "${user}" login password '${password}'`);
    await c.query(`create database "${database}"`);
  });
  await admin(database, async (c) => {
    await c.query('create table public.orders (id int primary key, total numeric)');
    await c.query('create table public.customers (id int primary key, name text)');
    await c.query('create schema hidden');
    await c.query('create table hidden.salaries (id int)');
    await c.query(`grant select on public.orders, public.customers to "${user}"`);
  });
});

afterAll(async () => {
  await worker?.dispose();
  await admin('postgres', async (c) => {
    await c.query(`drop database if exists "${database}" with (force)`);
    await c.query(`drop role if exists "${user}"`);
  });
});

describe('database settings, two steps', () => {
  it('step 1 lists the tables the user can read; step 2 activates a subset; GET shows it without the password', async () => {
    const agent = await freshAgent(testnet);
    const first = await agent.call('/database/settings/first-step', { method: 'POST', json: target });
    expect(first.status, first.text).toBe(200);
    expect(first.body.tables).toEqual(['public.customers', 'public.orders']);
    expect(first.text).not.toContain(password);
    const second = await agent.call('/database/settings/second-step', {
      method: 'POST',
      json: { setupId: first.body.setupId, tables: ['public.orders'] },
    });
    expect(second.status, second.text).toBe(200);
    expect(second.body).toMatchObject({ status: 'active', activeTables: ['public.orders'], database, user });
    const read = await agent.call('/database/settings');
    expect(read.status).toBe(200);
    expect(read.body.active).toMatchObject({ setupId: first.body.setupId, activeTables: ['public.orders'] });
    expect(read.text).not.toContain(password);
  });

  it('answers 400 database_not_found for a database that does not exist (reported after the login)', async () => {
    const agent = await freshAgent(testnet);
    const res = await agent.call('/database/settings/first-step', { method: 'POST', json: { ...target, database: 'nope_nope' } });
    expectError(res, 400, 'database_not_found');
  });

  it('answers every failure before the login the same way: 424 database_unreachable, one message, no sooner than 5 s', async () => {
    const agent = await freshAgent(testnet);
    const closed = await freePort();
    const started = Date.now();
    const attempts: [string, Record<string, unknown>][] = [
      ['wrong password', { ...target, password: 'wrong' }],
      ['wrong password and a missing database', { ...target, password: 'wrong', database: 'nope_nope' }],
      ['unknown user', { ...target, user: 'nobody_here' }],
      ['closed port', { ...target, port: closed }],
      ['TLS required by us, not offered by the server', { ...target, ssl: 'require' }],
      ['not a Postgres: an HTTP server', { ...target, port: Number(new URL(stack.testnet.rpcUrl).port) }],
      ['a name that does not resolve', { ...target, host: 'no-such-host.invalid', port: 5432 }],
    ];
    const results = await Promise.all(
      attempts.map(async ([what, json]) => {
        const t0 = Date.now();
        const res = await agent.call('/database/settings/first-step', { method: 'POST', json });
        return { what, res, ms: Date.now() - t0 };
      }),
    );
    const shape = (res: JsonResponse) => ({
      status: res.status,
      code: errorCode(res),
      body: { ...((res.body as { error: unknown }).error as object) },
    });
    for (const { what, res, ms } of results) {
      expectError(res, 424, 'database_unreachable');
      expect(shape(res), what).toEqual(shape(results[0]!.res));
      expect(ms, what).toBeGreaterThanOrEqual(4_900);
      expect(res.text).not.toMatch(/ECONNREFUSED|ENOTFOUND|SSL|28P01|authentication/);
    }
    expect(Date.now() - started).toBeLessThan(25_000);
  });

  it('answers 404 for an unknown setup id and 400 for a table step 1 did not offer', async () => {
    const agent = await freshAgent(testnet);
    const unknown = await agent.call('/database/settings/second-step', {
      method: 'POST',
      json: { setupId: crypto.randomUUID(), tables: ['public.orders'] },
    });
    expectError(unknown, 404, 'database_setup_not_found');
    const malformed = await agent.call('/database/settings/second-step', {
      method: 'POST',
      json: { setupId: 'not-a-uuid', tables: ['public.orders'] },
    });
    expect(malformed.status).toBe(404);
    const first = await agent.call('/database/settings/first-step', { method: 'POST', json: target });
    const bad = await agent.call('/database/settings/second-step', {
      method: 'POST',
      json: { setupId: first.body.setupId, tables: ['hidden.salaries'] },
    });
    expect(bad.status).toBe(400);
    expect(errorCode(bad)).toBe('database_table_not_offered');
  });

  it("keeps setups per agent: another agent's setup id is unknown", async () => {
    const a = await freshAgent(testnet);
    const b = await freshAgent(testnet, { owner: a.owner, token: a.token });
    const first = await a.call('/database/settings/first-step', { method: 'POST', json: target });
    const res = await b.call('/database/settings/second-step', {
      method: 'POST',
      json: { setupId: first.body.setupId, tables: ['public.orders'] },
    });
    expect(res.status).toBe(404);
  });
});
