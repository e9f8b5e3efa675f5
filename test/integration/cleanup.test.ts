/**
 * The Cron Trigger's clean-up, run through the worker's real `scheduled` handler in
 * Miniflare against the harness' Postgres: old consumed nonces, old idempotency records and audit
 * entries older than 90 days go, fresh ones stay.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { readWranglerConfig, startMiniflare } from '../../scripts/lib/worker-bundle';
import { freshAgent, seg } from '../support/agent';
import { deployment } from '../support/http';
import { agentSchema, closePg, quoted, sql } from '../support/pg';
import { workerBindingsFor } from '../support/worker';

const stack = inject('stack');
const testnet = deployment('testnet');
const cron = readWranglerConfig('testnet').triggers?.crons?.[0] ?? '';

afterAll(closePg);

async function idempotencyKeys(schema: string): Promise<string[]> {
  const rows = await sql<{ key: string }>(stack.databaseUrl, `select key from ${quoted(schema)}.idempotency order by key`);
  return rows.map((r) => r.key);
}

async function nonceKeys(keys: string[]): Promise<string[]> {
  const rows = await sql<{ key: string }>(stack.databaseUrl, 'select key from gateway.consumed_nonces where key = any($1) order by key', [
    keys,
  ]);
  return rows.map((r) => r.key);
}

describe('the scheduled clean-up', () => {
  it('deletes consumed nonces older than 2 h, idempotency records older than 48 h and reply leases that ran out, and keeps fresher ones', async () => {
    expect(cron).toBeTruthy();
    // An agent with storage and one fresh idempotency record, made through the API.
    const agent = await freshAgent(testnet);
    expect((await agent.call('/context', { method: 'POST', json: { key: 'notes' } })).status).toBe(200);
    const append = await agent.call(`/context/${seg('notes')}/messages`, {
      method: 'POST',
      json: { messages: [{ role: 'user', message: 'hello' }] },
      headers: { 'Idempotency-Key': 'fresh-key' },
    });
    expect(append.status).toBe(200);
    const schema = await agentSchema(stack.databaseUrl, agent);
    // Older records, as if written earlier.
    for (const [key, hours] of [
      ['old-key', 49],
      ['aging-key', 47],
    ] as const) {
      await sql(
        stack.databaseUrl,
        `insert into ${quoted(schema)}.idempotency (key, request_hash, response, created_at)
         values ($1, 'h', 'null'::jsonb, now() - make_interval(hours => $2))`,
        [key, hours],
      );
    }
    const tag = randomUUID();
    const oldNonce = `login:80002:old-${tag}`;
    const freshNonce = `verify:80002:fresh-${tag}`;
    await sql(
      stack.databaseUrl,
      `insert into gateway.consumed_nonces (key, consumed_at) values ($1, now() - interval '3 hours'), ($2, now() - interval '90 minutes')`,
      [oldNonce, freshNonce],
    );
    expect(await idempotencyKeys(schema)).toEqual(['aging-key', 'fresh-key', 'old-key']);
    // A crashed reply's lease (ran out a minute ago) and a live one.
    const [expiredLease, liveLease] = [`${tag.replaceAll('-', '')}${'0'.repeat(32)}`, `${tag.replaceAll('-', '')}${'1'.repeat(32)}`];
    await sql(
      stack.databaseUrl,
      `insert into gateway.reply_leases (context_ref, lease_id, expires_at)
       values ($1, gen_random_uuid(), now() - interval '1 minute'), ($2, gen_random_uuid(), now() + interval '10 minutes')`,
      [expiredLease, liveLease],
    );

    const worker = await startMiniflare({ scriptPath: stack.scriptPath, deployment: 'testnet', bindings: workerBindingsFor(stack) });
    try {
      const handler = await worker.miniflare.getWorker();
      const kv = await worker.miniflare.getKVNamespace('NONCES');
      // Each run visits a bounded batch of agent schemas: run until the walk has come round
      // (the cursor is gone), which covers every schema of the chain, ours included.
      let runs = 0;
      do {
        const result = await handler.scheduled({ cron, scheduledTime: new Date() });
        expect(result.outcome).toBe('ok');
        runs += 1;
      } while ((await kv.get('cleanup:idempotency-cursor:80002')) !== null && runs < 50);
      expect(await kv.get('cleanup:idempotency-cursor:80002')).toBeNull();

      expect(await idempotencyKeys(schema)).toEqual(['aging-key', 'fresh-key']);
      expect(await nonceKeys([oldNonce, freshNonce])).toEqual([freshNonce]);
      const leases = await sql<{ context_ref: string }>(
        stack.databaseUrl,
        'select context_ref from gateway.reply_leases where context_ref = any($1)',
        [[expiredLease, liveLease]],
      );
      expect(leases.map((r) => r.context_ref)).toEqual([liveLease]);

      // The record kept still answers a retry as a replay.
      const retry = await agent.call(`/context/${seg('notes')}/messages`, {
        method: 'POST',
        json: { messages: [{ role: 'user', message: 'hello' }] },
        headers: { 'Idempotency-Key': 'fresh-key' },
      });
      expect(retry.status).toBe(200);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
    } finally {
      await worker.dispose();
    }
  });

  it('deletes audit entries older than 90 days and keeps younger ones', async () => {
    // Rows of an agent no test uses (a token id of its own), as if written 91 and 89 days ago.
    const tokenId = `${Date.now()}${Math.floor(Math.random() * 1e6)}`;
    const ids = await sql<{ id: string; days: number }>(
      stack.databaseUrl,
      `insert into gateway.audit_log (chain_id, collection, token_id, at, actor_wallet, action, target, outcome)
       select 80002, $1, $2, now() - make_interval(days => d), $1, 'prompt_template.put', '{"templateKey":"t"}'::jsonb, 'ok'
         from unnest(array[91, 89]) as d
       returning id::text as id, extract(day from now() - at)::int as days`,
      [testnet.collection.toLowerCase(), tokenId],
    );
    expect(ids.map((r) => r.days).sort()).toEqual([89, 91]);
    const worker = await startMiniflare({ scriptPath: stack.scriptPath, deployment: 'testnet', bindings: workerBindingsFor(stack) });
    try {
      const handler = await worker.miniflare.getWorker();
      expect((await handler.scheduled({ cron, scheduledTime: new Date() })).outcome).toBe('ok');
    } finally {
      await worker.dispose();
    }
    const kept = await sql<{ id: string }>(stack.databaseUrl, 'select id::text as id from gateway.audit_log where token_id = $1', [
      tokenId,
    ]);
    expect(kept.map((r) => r.id)).toEqual(ids.filter((r) => r.days === 89).map((r) => r.id));
  });

  it('indexes for search the messages no indexer after a response reached (a catch-up), and search finds them before and after', async () => {
    const agent = await freshAgent(testnet);
    expect((await agent.call('/context', { method: 'POST', json: { key: 'notes' } })).status).toBe(200);
    const texts = ['The warranty ends in March.', 'Invoice INV-7731 is overdue.', 'Nothing else to report.'];
    const append = await agent.call(`/context/${seg('notes')}/messages`, {
      method: 'POST',
      json: { messages: texts.map((message) => ({ role: 'user', message })) },
    });
    expect(append.status).toBe(200);
    const schema = await agentSchema(stack.databaseUrl, agent);
    const unindexed = async () =>
      Number(
        (await sql<{ n: string }>(stack.databaseUrl, `select count(*) as n from ${quoted(schema)}.messages where search_en is null`))[0]!.n,
      );
    // Let the indexer the append started finish, then undo its work: as if it had been cut short.
    const deadline = Date.now() + 15_000;
    while ((await unindexed()) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    await sql(stack.databaseUrl, `update ${quoted(schema)}.messages set search_en = null, search_simple = null`);
    expect(await unindexed()).toBe(3);

    const worker = await startMiniflare({ scriptPath: stack.scriptPath, deployment: 'testnet', bindings: workerBindingsFor(stack) });
    try {
      const handler = await worker.miniflare.getWorker();
      const kv = await worker.miniflare.getKVNamespace('NONCES');
      let runs = 0;
      do {
        const result = await handler.scheduled({ cron, scheduledTime: new Date() });
        expect(result.outcome).toBe('ok');
        runs += 1;
      } while ((await kv.get('cleanup:idempotency-cursor:80002')) !== null && runs < 50);
    } finally {
      await worker.dispose();
    }
    expect(await unindexed()).toBe(0);
    const filled = await sql<{ wrong: string }>(
      stack.databaseUrl,
      `select count(*) as wrong from ${quoted(schema)}.messages where search_en is distinct from to_tsvector('english', message)`,
    );
    expect(Number(filled[0]!.wrong)).toBe(0);
    const res = await agent.call('/memory/search', { method: 'POST', json: { query: 'warranties' } });
    expect(res.status).toBe(200);
    expect((res.body as { hits: { message: string }[] }).hits.map((h) => h.message)).toEqual(['The warranty ends in March.']);
  });

  it('fails the invocation on a deployment whose configuration is invalid', async () => {
    const worker = await startMiniflare({
      scriptPath: stack.scriptPath,
      deployment: 'testnet',
      bindings: workerBindingsFor(stack),
      omit: ['DATABASE_URL'],
    });
    try {
      const handler = await worker.miniflare.getWorker();
      const result = await handler.scheduled({ cron, scheduledTime: new Date() });
      expect(result.outcome).not.toBe('ok');
    } finally {
      await worker.dispose();
    }
  });
});
