/**
 * Memory search's bounds on the shared database, against the real worker and the agent's real
 * storage: the messages the indexer has not reached yet are read directly only up to
 * SEARCH_TAIL_MESSAGES and SEARCH_TAIL_BYTES (past either: 503 `search_busy` with Retry-After,
 * and the indexer started, after which the same search answers); each search statement runs in a
 * transaction of its own with Postgres' statement_timeout set, and a statement cut off by it is
 * 503 `search_busy` too.
 */
import pg from 'pg';
import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parseQuery } from '../../src/memory/query';
import {
  SEARCH_BUSY_RETRY_AFTER_SECONDS,
  SEARCH_STATEMENT_TIMEOUT_MS,
  SEARCH_TAIL_BYTES,
  SEARCH_TAIL_MESSAGES,
  searchMemory,
} from '../../src/memory/search.service';
import type { Agent } from '../../src/identity/agent';
import type { SqlClient, SqlPool } from '../../src/storage/sql-client';
import { freshAgent, seg, type TestAgent } from '../support/agent';
import { expectError, type JsonResponse } from '../support/http';
import { closePg, expectedSchemaName, sql } from '../support/pg';
import { type SlowSql, startSlowSql } from '../support/slow-sql';
import { workerWithToolServers } from '../support/tool-routing';

const stack = inject('stack');
let slowSql: SlowSql;
let worker: Awaited<ReturnType<typeof workerWithToolServers>>;

beforeAll(async () => {
  // The worker's SQL-over-HTTP through a recording proxy that passes everything on at once.
  slowSql = await startSlowSql(stack.bridgeProxy, { chunkBytes: 1 << 30, everyMs: 0, holdMs: () => 0 });
  worker = await workerWithToolServers(stack, {}, { DB_WS_PROXY: slowSql.proxy });
});

afterAll(async () => {
  await worker?.dispose();
  await slowSql?.close();
  await closePg();
});

const deployment = () => ({ ...stack.testnet, baseUrl: worker.url });

type Page = { hits: { message: string }[]; nextCursor: string | null };
const search = (agent: TestAgent, query: string): Promise<JsonResponse<Page>> =>
  agent.call('/memory/search', { method: 'POST', json: { query } });

/** A fresh agent with one indexed message in `notes`, and its schema. */
async function agentWithNotes(): Promise<{ agent: TestAgent; schema: string }> {
  const agent = await freshAgent(deployment());
  const created = await agent.call('/context', { method: 'POST', json: { key: 'notes' } });
  expect(created.status, created.text).toBe(200);
  const appended = await agent.call(`/context/${seg('notes')}/messages`, {
    method: 'POST',
    json: { messages: [{ role: 'user', message: 'The warranty covers the pump for two years.' }] },
  });
  expect(appended.status, appended.text).toBe(200);
  const schema = expectedSchemaName({ deployment: deployment(), collection: agent.collection, tokenId: agent.tokenId });
  await untilIndexed(schema);
  return { agent, schema };
}

async function unindexed(schema: string): Promise<number> {
  const rows = await sql<{ n: string }>(stack.databaseUrl, `select count(*) as n from "${schema}".messages where search_en is null`);
  return Number(rows[0]!.n);
}

async function untilIndexed(schema: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while ((await unindexed(schema)) > 0) {
    if (Date.now() > deadline) throw new Error(`messages of ${schema} still unindexed after 20 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Stores `count` messages of about `bytes` each of made-up words, `planted` in the last, unindexed (as appends leave them). */
async function unindexedTail(schema: string, count: number, bytes: number, planted: string): Promise<void> {
  await sql(
    stack.databaseUrl,
    `insert into "${schema}".messages (context_key, role, message)
     select 'notes', 'user', left(repeat('w' || i || 'x lorem' || (i % 97) || ' ipsum dolor ', $2 / 20 + 1), $2)
       || case when i = $1 then ' ' || $3 else '' end
     from generate_series(1, $1) as i`,
    [count, bytes, planted],
  );
}

/** Sixteen terms: the most a query holds. */
const sixteenTerms = (planted: string) => `${planted} ${Array.from({ length: 15 }, (_, i) => `term${i}zq`).join(' ')}`;

describe('memory search over a long unindexed tail', () => {
  it(`more than ${SEARCH_TAIL_BYTES / 1024} KiB unindexed: 503 search_busy with Retry-After, then the indexer catches up and the same search answers`, async () => {
    const { agent, schema } = await agentWithNotes();
    const planted = `needle${crypto.randomUUID().slice(0, 8)}`;
    // Eight messages of 200 KiB: 1.6 MiB of text whose tsvectors nobody has computed yet.
    await unindexedTail(schema, 8, 200 * 1024, planted);
    expect(8 * 200 * 1024).toBeGreaterThan(SEARCH_TAIL_BYTES);
    const busy = await search(agent, sixteenTerms(planted));
    expectError(busy, 503, 'search_busy');
    expect(busy.headers.get('retry-after')).toBe(String(SEARCH_BUSY_RETRY_AFTER_SECONDS));
    // That search started the indexer: once it is done, found (each term's own alternative: `or`).
    await untilIndexed(schema);
    const res = await search(agent, planted);
    expect(res.status, res.text).toBe(200);
    expect(res.body.hits).toHaveLength(1);
    expect(res.body.hits[0]!.message.endsWith(planted)).toBe(true);
  });

  it(`more than ${SEARCH_TAIL_MESSAGES} messages unindexed: 503 search_busy; a short tail is read directly`, async () => {
    const { agent, schema } = await agentWithNotes();
    const planted = `needle${crypto.randomUUID().slice(0, 8)}`;
    await unindexedTail(schema, SEARCH_TAIL_MESSAGES + 1, 40, planted);
    expectError(await search(agent, planted), 503, 'search_busy');
    await untilIndexed(schema);
    // A short tail, not indexed yet, is found at once.
    const recent = `recent${crypto.randomUUID().slice(0, 8)}`;
    await unindexedTail(schema, 3, 1000, recent);
    const res = await search(agent, sixteenTerms(recent).replaceAll(' ', ' or '));
    expect(res.status, res.text).toBe(200);
    expect(res.body.hits.map((h) => h.message.endsWith(recent))).toEqual([true]);
    expect((await search(agent, 'warranty')).body.hits.map((h) => h.message)).toEqual(['The warranty covers the pump for two years.']);
  });

  it("each statement runs in a read-only transaction with Postgres' statement_timeout", async () => {
    const { agent } = await agentWithNotes();
    const from = slowSql.exchanges.length;
    const res = await search(agent, 'warranty');
    expect(res.status, res.text).toBe(200);
    const bodies = slowSql.exchanges
      .slice(from)
      .map((e) => JSON.parse(e.query) as { query?: string; queries?: { query: string; params?: unknown[] }[] });
    const searches = bodies.filter((b) => JSON.stringify(b).includes('websearch_to_tsquery'));
    expect(searches).toHaveLength(2);
    for (const body of searches) {
      expect(body.queries?.[0]).toMatchObject({ params: [String(SEARCH_STATEMENT_TIMEOUT_MS)] });
      expect(body.queries?.[0]?.query).toContain("set_config('statement_timeout'");
      expect(body.queries).toHaveLength(2);
    }
  });

  it('a statement Postgres cuts off by its timeout is 503 search_busy (the real 57014)', async () => {
    const { agent, schema } = await agentWithNotes();
    const planted = `needle${crypto.randomUUID().slice(0, 8)}`;
    // Within the bounds, but more than a millisecond of work.
    await unindexedTail(schema, 1, 200 * 1024, planted);
    expect(200 * 1024).toBeLessThanOrEqual(SEARCH_TAIL_BYTES);
    const pool = new pg.Pool({ connectionString: stack.databaseUrl, max: 1 });
    const base = pool as unknown as SqlPool;
    try {
      // The same transaction the worker's client sends, with a timeout too short for any search.
      const client: SqlClient = {
        query: (text, values) => base.query(text, values),
        async queryBounded<R>(_timeoutMs: number, text: string, values?: unknown[]) {
          const conn = await base.connect();
          try {
            await conn.query('BEGIN READ ONLY');
            await conn.query(`SELECT set_config('statement_timeout', '1', true)`);
            const result = await conn.query<R>(text, values);
            await conn.query('COMMIT');
            return result;
          } catch (err) {
            await conn.query('ROLLBACK');
            throw err;
          } finally {
            conn.release();
          }
        },
      };
      const identity: Agent = {
        chainId: stack.testnet.chainId,
        collection: getAddress(agent.collection),
        tokenId: agent.tokenId,
        kind: 'internal',
        owner: agent.owner.address,
      };
      const deps = { sql: client, pool: base, ownerCheck: Promise.resolve() };
      const query = sixteenTerms(planted);
      const failed = await searchMemory(deps, identity, { query, parsed: parseQuery(query)!, limit: 20 }).then(
        () => null,
        (err: unknown) => err as { code?: string; status?: number; headers?: Record<string, string> },
      );
      expect(failed).toMatchObject({
        code: 'search_busy',
        status: 503,
        headers: { 'Retry-After': String(SEARCH_BUSY_RETRY_AFTER_SECONDS) },
      });
    } finally {
      await pool.end();
    }
  });
});
