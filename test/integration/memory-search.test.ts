import pg from 'pg';
import { getAddress } from 'viem';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { indexMessages } from '../../src/storage/search-index';
import { SEARCH_CANDIDATES } from '../../src/memory/search.service';
import { agentSchemaName, provision } from '../../src/storage/agent-storage';
import { AGENT_TEMPLATE, TEMPLATE_VERSION } from '../../src/storage/agent-template';
import type { SqlPool } from '../../src/storage/sql-client';
import { createKey, withKey } from '../support/agent-keys';
import { freshAgent, seg, type TestAgent } from '../support/agent';
import { newWallet } from '../support/chain';
import { call, deployment, expectError, type JsonResponse } from '../support/http';
import { agentPath, login } from '../support/login';
import { closePg, expectedSchemaName, schemaCount, sql, storageRows } from '../support/pg';

const stack = inject('stack');
const testnet = deployment('testnet');

interface Hit {
  contextKey: string;
  id: number;
  role: 'user' | 'system' | 'assistant';
  message: string;
  createdAt: string;
  score: number;
}
interface Page {
  hits: Hit[];
  nextCursor: string | null;
}

afterAll(closePg);

const search = (agent: TestAgent, body: Record<string, unknown>): Promise<JsonResponse<Page>> =>
  agent.call('/memory/search', { method: 'POST', json: body });

/** Creates each context and appends its messages (as the user unless `role:` prefixes the text). */
async function hydrate(agent: TestAgent, contexts: Record<string, string[]>): Promise<void> {
  for (const [key, texts] of Object.entries(contexts)) {
    const created = await agent.call('/contexts', { method: 'POST', json: { keys: [key] } });
    expect(created.status, created.text).toBe(200);
    const messages = texts.map((text) => {
      const role = /^(user|assistant|system): /.exec(text)?.[1] ?? 'user';
      return { role, message: text.replace(/^(user|assistant|system): /, '') };
    });
    const res = await agent.call(`/context/${seg(key)}/messages`, { method: 'POST', json: { messages } });
    expect(res.status, res.text).toBe(200);
  }
}

/** The messages of a search's hits, in order. */
async function found(agent: TestAgent, body: Record<string, unknown>): Promise<string[]> {
  const res = await search(agent, body);
  expect(res.status, res.text).toBe(200);
  return res.body.hits.map((h) => h.message);
}

describe('memory search: ranking and the query language', () => {
  it('finds across contexts, best first, with stemming, phrases, or, -word, identifiers and misspellings', async () => {
    const agent = await freshAgent(testnet);
    await hydrate(agent, {
      'customer:1/notes': [
        'The customer refunded the order after the delivery was late.',
        'Invoice INV-2024-0042 is overdue; a late fee applies.',
        'We run Postgres 16 for the billing database.',
      ],
      'customer:2/notes': [
        'Refund requested twice; refunds are processed on Fridays. Refund policy attached.',
        'Invoice INV-2024-0041 was paid on time.',
        'The late delivery of the shipment annoyed the customer.',
      ],
      'chat:main': ['assistant: Shipping is free above 50 euros.', 'A delivery that was late gets a voucher.'],
    });

    // Stemming: "refunds" finds "refunded", "refund", "refunds"; the message with the word three times ranks first.
    const refunds = await search(agent, { query: 'refunds' });
    expect(refunds.status, refunds.text).toBe(200);
    expect(refunds.body.hits.map((h) => h.message)).toEqual([
      'Refund requested twice; refunds are processed on Fridays. Refund policy attached.',
      'The customer refunded the order after the delivery was late.',
    ]);
    const [best, next] = refunds.body.hits;
    expect(best!.score).toBeGreaterThan(next!.score);
    expect(best).toMatchObject({ contextKey: 'customer:2/notes', role: 'user' });
    expect(best!.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(refunds.body.nextCursor).toBeNull();

    // A quoted phrase needs its words in order; without quotes any order does.
    expect(await found(agent, { query: '"late delivery"' })).toEqual(['The late delivery of the shipment annoyed the customer.']);
    expect(await found(agent, { query: 'late delivery' })).toHaveLength(3);
    // -word excludes, from every alternative.
    expect(await found(agent, { query: 'late delivery -shipment' })).toEqual(
      expect.not.arrayContaining(['The late delivery of the shipment annoyed the customer.']),
    );
    expect(await found(agent, { query: 'shipping or voucher' })).toEqual(
      expect.arrayContaining(['Shipping is free above 50 euros.', 'A delivery that was late gets a voucher.']),
    );
    expect(await found(agent, { query: 'voucher or shipment -late' })).toEqual([]);

    // An identifier: the exact one first; a near miss may follow but ranks below it.
    const invoice = await found(agent, { query: 'INV-2024-0042' });
    expect(invoice[0]).toBe('Invoice INV-2024-0042 is overdue; a late fee applies.');
    // A part of an identifier full text cannot match, and a misspelling, still find their message.
    // (as written, so not its neighbour INV-2024-0041; `_` is no wildcard there)
    expect(await found(agent, { query: '2024-0042' })).toEqual(['Invoice INV-2024-0042 is overdue; a late fee applies.']);
    expect(await found(agent, { query: '2024_0042' })).toEqual([]);
    expect(await found(agent, { query: 'Postgress' })).toEqual(['We run Postgres 16 for the billing database.']);
    // ...never one a -word excludes.
    expect(await found(agent, { query: 'Postgress -billing' })).toEqual([]);
    // Stop words still count as exact words ("the" is dropped by English stemming only).
    expect((await found(agent, { query: 'the' })).length).toBeGreaterThan(0);
    expect(await found(agent, { query: 'nothing-like-this-anywhere zebra' })).toEqual([]);
  });

  it('orders equal scores newest first', async () => {
    const agent = await freshAgent(testnet);
    await hydrate(agent, { 'a:1': ['same text about apples'], 'a:2': ['same text about apples'], 'a:3': ['same text about apples'] });
    const res = await search(agent, { query: 'apples' });
    const ids = res.body.hits.map((h) => h.id);
    expect(ids).toEqual([...ids].sort((x, y) => y - x));
    expect(new Set(res.body.hits.map((h) => h.score)).size).toBe(1);
    expect(res.body.hits.map((h) => h.contextKey)).toEqual(['a:3', 'a:2', 'a:1']);
  });
});

describe('memory search: filters', () => {
  it('filters by context keys, literal prefix, roles and exclusive time bounds; internal contexts only when named', async () => {
    const agent = await freshAgent(testnet);
    await hydrate(agent, {
      'crm:alpha': ['The parcel left the depot.', 'assistant: The parcel arrives Monday.'],
      crmXalpha: ['The parcel was lost.'],
      crm_beta: ['system: Parcel rules apply.'],
      other: ['A parcel for someone else.'],
    });
    // The internal scratch prefix cannot be created over the API: write one row directly.
    const schema = `"${expectedSchemaName({ deployment: testnet, collection: agent.collection, tokenId: agent.tokenId })}"`;
    await sql(stack.databaseUrl, `insert into ${schema}.contexts (key) values ('conversation-context-discovery/x')`);
    await sql(
      stack.databaseUrl,
      `insert into ${schema}.messages (context_key, role, message) values ('conversation-context-discovery/x', 'user', 'Scratch parcel note.')`,
    );

    const all = await found(agent, { query: 'parcel' });
    expect(all).toHaveLength(5);
    expect(all).not.toContain('Scratch parcel note.');
    expect(await found(agent, { query: 'parcel', contextKeys: ['conversation-context-discovery/x'] })).toEqual(['Scratch parcel note.']);
    expect((await found(agent, { query: 'parcel', contextKeys: ['crm:alpha', 'no-such-context'] })).sort()).toEqual([
      'The parcel arrives Monday.',
      'The parcel left the depot.',
    ]);
    expect(await found(agent, { query: 'parcel', contextKeys: ['no-such-context'] })).toEqual([]);
    // `_` in a prefix is a plain character, not a wildcard.
    expect(await found(agent, { query: 'parcel', contextPrefix: 'crm_' })).toEqual(['Parcel rules apply.']);
    expect((await found(agent, { query: 'parcel', contextPrefix: 'crm' })).length).toBe(4);
    expect(await found(agent, { query: 'parcel', roles: ['assistant', 'system'] })).toEqual(
      expect.arrayContaining(['The parcel arrives Monday.', 'Parcel rules apply.']),
    );
    expect((await found(agent, { query: 'parcel', roles: ['assistant', 'system'] })).length).toBe(2);

    const hits = (await search(agent, { query: 'parcel', contextKeys: ['crm:alpha'] })).body.hits;
    const [newer, older] = [...hits].sort((a, b) => b.id - a.id);
    // Both messages were stored in one request: same createdAt. A bound equal to it excludes both.
    expect(await found(agent, { query: 'parcel', contextKeys: ['crm:alpha'], after: newer!.createdAt })).toEqual([]);
    expect(await found(agent, { query: 'parcel', contextKeys: ['crm:alpha'], before: older!.createdAt })).toEqual([]);
    const justBefore = new Date(Date.parse(older!.createdAt) - 1).toISOString();
    const justAfter = new Date(Date.parse(newer!.createdAt) + 1).toISOString();
    expect(await found(agent, { query: 'parcel', contextKeys: ['crm:alpha'], after: justBefore, before: justAfter })).toHaveLength(2);
    const otherHits = (await search(agent, { query: 'parcel', contextKeys: ['other'] })).body.hits;
    expect(await found(agent, { query: 'parcel', after: otherHits[0]!.createdAt })).toEqual([]);
  });
});

describe('memory search: paging', () => {
  it('pages through every hit once with the cursor, and refuses a malformed or foreign cursor', async () => {
    const agent = await freshAgent(testnet);
    const texts = Array.from({ length: 37 }, (_, i) => `Meeting note ${i}: ${'budget '.repeat(1 + (i % 5))}review.`);
    await hydrate(agent, { 'meetings:a': texts.slice(0, 20), 'meetings:b': texts.slice(20) });
    const seen: Hit[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const res = await search(agent, { query: 'budget', limit: 10, ...(cursor ? { cursor } : {}) });
      expect(res.status, res.text).toBe(200);
      seen.push(...res.body.hits);
      if (!res.body.nextCursor) break;
      expect(res.body.hits).toHaveLength(10);
      cursor = res.body.nextCursor;
    }
    expect(seen).toHaveLength(37);
    expect(new Set(seen.map((h) => h.id)).size).toBe(37);
    const oneGo = (await search(agent, { query: 'budget', limit: 100 })).body.hits;
    expect(seen.map((h) => h.id)).toEqual(oneGo.map((h) => h.id));
    for (let i = 1; i < oneGo.length; i++) {
      const [a, b] = [oneGo[i - 1]!, oneGo[i]!];
      expect(a.score > b.score || (a.score === b.score && a.id > b.id)).toBe(true);
    }

    const first = await search(agent, { query: 'budget', limit: 5 });
    const valid = first.body.nextCursor!;
    for (const bad of ['nope', 'czE6MTox', `${valid}x`, btoa('s1:1.5:12:0123456789abcdef:extra')]) {
      const res = await search(agent, { query: 'budget', cursor: bad });
      expectError(res, 400, 'validation_failed');
      expect(JSON.stringify(res.body)).toContain('cursor');
    }
    // A cursor reads on only with the query and filters that issued it (a page size may change).
    expectError(await search(agent, { query: 'review', cursor: valid }), 400, 'validation_failed');
    expectError(await search(agent, { query: 'budget', roles: ['user'], cursor: valid }), 400, 'validation_failed');
    expect((await search(agent, { query: 'budget', limit: 7, cursor: valid })).status).toBe(200);
  });
});

describe('memory search: validation', () => {
  it('refuses an empty query, only exclusions, and bad filters with 400 validation_failed', async () => {
    const agent = await freshAgent(testnet);
    for (const body of [
      {},
      { query: '' },
      { query: '   ' },
      { query: '-foo' },
      { query: '!!! ---' },
      { query: 'x'.repeat(501) },
      { query: Array.from({ length: 17 }, (_, i) => `w${i}`).join(' ') },
      { query: 'a', contextKeys: [] },
      { query: 'ab', contextKeys: Array.from({ length: 101 }, (_, i) => `k${i}x`) },
      { query: 'ab', roles: ['robot'] },
      { query: 'ab', after: 'yesterday' },
      { query: 'ab', limit: 0 },
      { query: 'ab', limit: 101 },
    ]) {
      expectError(await search(agent, body), 400, 'validation_failed');
    }
  });
});

describe('memory search: isolation and credentials', () => {
  it("never finds another agent's messages; an agent that never wrote has no hits and gets no storage", async () => {
    const [a, b] = await Promise.all([freshAgent(testnet), freshAgent(testnet)]);
    await hydrate(a, { notes: ['The secret launch code is marmalade.'] });
    expect(await found(a, { query: 'marmalade' })).toHaveLength(1);
    expect(await found(b, { query: 'marmalade' })).toEqual([]);
    const never = await freshAgent(testnet);
    expect(await search(never, { query: 'marmalade' })).toMatchObject({ status: 200, body: { hits: [], nextCursor: null } });
    expect(
      await schemaCount(
        stack.databaseUrl,
        expectedSchemaName({ deployment: testnet, collection: never.collection, tokenId: never.tokenId }),
      ),
    ).toBe(0);
  });

  it('needs a credential: no token 401, a stranger 403, a key with contexts:read 200, without it 403', async () => {
    const agent = await freshAgent(testnet);
    await hydrate(agent, { notes: ['Quarterly forecast is ready.'] });
    const path = agentPath(agent.collection, agent.tokenId, '/memory/search');
    const body = { query: 'forecast' };
    expectError(await call(testnet.baseUrl, path, { method: 'POST', json: body }), 401, 'unauthorized');
    const stranger = await login(testnet, newWallet());
    expectError(await call(testnet.baseUrl, path, { method: 'POST', json: body, token: stranger }), 403, 'not_owner');
    const reader = await createKey(agent, ['contexts:read']);
    const writer = await createKey(agent, ['contexts:write', 'reply']);
    const res = await withKey<Page>(agent, reader.key, '/memory/search', { method: 'POST', json: body });
    expect(res.status, res.text).toBe(200);
    expect(res.body.hits.map((h) => h.message)).toEqual(['Quarterly forecast is ready.']);
    expectError(await withKey(agent, writer.key, '/memory/search', { method: 'POST', json: body }), 403, 'key_scope_missing');
  });
});

/** How many of the agent's messages the indexer has not filled yet. */
async function unindexed(schema: string): Promise<number> {
  const rows = await sql<{ n: string }>(stack.databaseUrl, `select count(*) as n from "${schema}".messages where search_en is null`);
  return Number(rows[0]!.n);
}

/** Waits (polling, bounded) until the indexer after a response has filled every message. */
async function untilIndexed(schema: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while ((await unindexed(schema)) > 0) {
    if (Date.now() > deadline) throw new Error(`messages of ${schema} still unindexed after 15 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('memory search: indexing after the append', () => {
  const QUERIES = ['refunds', '"late fee"', 'INV-2024-0042', '2024-0042', 'Postgress', 'late -fee', 'the'];

  /** Every query's hits as [message, score]. */
  async function results(agent: TestAgent): Promise<[string, number][][]> {
    return Promise.all(
      QUERIES.map(async (query) => {
        const res = await search(agent, { query });
        expect(res.status, res.text).toBe(200);
        return res.body.hits.map((h): [string, number] => [h.message, h.score]);
      }),
    );
  }

  it('finds a message its indexer has not reached yet, with the score it has once indexed; the indexer fills in batches, idempotently', async () => {
    const agent = await freshAgent(testnet);
    await hydrate(agent, {
      'customer:1/notes': [
        'The customer refunded the order after the delivery was late.',
        'Invoice INV-2024-0042 is overdue; a late fee applies.',
        'We run Postgres 16 for the billing database.',
      ],
      'customer:2/notes': ['Refund requested twice; refunds are processed on Fridays.', 'Invoice INV-2024-0041 was paid on time.'],
    });
    const schema = expectedSchemaName({ deployment: testnet, collection: agent.collection, tokenId: agent.tokenId });
    // The append stored the text alone; the indexer after its response filled the search columns.
    await untilIndexed(schema);
    const filled = await sql<{ wrong: string }>(
      stack.databaseUrl,
      `select count(*) as wrong from "${schema}".messages
       where search_en is distinct from to_tsvector('english', message) or search_simple is distinct from to_tsvector('simple', message)`,
    );
    expect(Number(filled[0]!.wrong)).toBe(0);
    const indexed = await results(agent);
    expect(indexed[0]!.map(([m]) => m)).toEqual([
      'Refund requested twice; refunds are processed on Fridays.',
      'The customer refunded the order after the delivery was late.',
    ]);
    expect(indexed[3]!.map(([m]) => m)).toEqual(['Invoice INV-2024-0042 is overdue; a late fee applies.']);

    // As if no indexer had run yet: every query finds the same hits with the same scores.
    await sql(stack.databaseUrl, `update "${schema}".messages set search_en = null, search_simple = null`);
    expect(await unindexed(schema)).toBe(5);
    expect(await results(agent)).toEqual(indexed);

    // The search started the indexer after its response; once it is done, the same again.
    await untilIndexed(schema);
    expect(await results(agent)).toEqual(indexed);

    // In batches, oldest first, each row once: a rerun finds nothing left to do.
    await sql(stack.databaseUrl, `update "${schema}".messages set search_en = null, search_simple = null`);
    const pool = new pg.Pool({ connectionString: stack.databaseUrl, max: 1 });
    try {
      const store = { name: schema, quoted: `"${schema}"` };
      expect(await indexMessages(pool, store, 2)).toBe(2);
      const left = await sql<{ id: string }>(stack.databaseUrl, `select id from "${schema}".messages where search_en is null order by id`);
      const all = await sql<{ id: string }>(stack.databaseUrl, `select id from "${schema}".messages order by id`);
      expect(left.map((r) => r.id)).toEqual(all.slice(2).map((r) => r.id));
      expect(await results(agent)).toEqual(indexed); // half indexed: still the same
      await untilIndexed(schema); // (that search started the indexer too)
      expect(await indexMessages(pool, store, 2)).toBe(0);
    } finally {
      await pool.end();
    }
    expect(await results(agent)).toEqual(indexed);
  });

  it('a message appended just now is found by the next search, whether or not its indexer has run', async () => {
    const agent = await freshAgent(testnet);
    await hydrate(agent, { notes: ['The first note mentions nothing in particular.'] });
    for (let i = 0; i < 5; i++) {
      const res = await agent.call(`/context/${seg('notes')}/messages`, {
        method: 'POST',
        json: { messages: [{ role: 'user', message: `Ticket ZX-${i}77 escalated to the quartermaster.` }] },
      });
      expect(res.status, res.text).toBe(200);
      expect(await found(agent, { query: `ZX-${i}77` })).toEqual([`Ticket ZX-${i}77 escalated to the quartermaster.`]);
      expect(await found(agent, { query: 'quartermasters' })).toHaveLength(i + 1);
    }
  });
});

describe('memory search: a very common word', () => {
  it(`ranks its newest ${SEARCH_CANDIDATES} matches: pages reach those, every one once, and no older match`, async () => {
    const agent = await freshAgent(testnet);
    expect((await agent.call('/contexts', { method: 'POST', json: { keys: ['log'] } })).status).toBe(200);
    const total = SEARCH_CANDIDATES + 150;
    for (let from = 0; from < total; from += 100) {
      const messages = Array.from({ length: Math.min(100, total - from) }, (_, i) => ({
        role: 'user',
        message: `Lantern check ${from + i}${(from + i) % 7 === 0 ? ': lantern lantern' : ''}.`,
      }));
      const res = await agent.call(`/context/${seg('log')}/messages`, { method: 'POST', json: { messages } });
      expect(res.status, res.text).toBe(200);
    }
    // Paging is the point here, not the unindexed tail: a burst of appends can leave more than one
    // search reads directly (503 search_busy until the indexer catches up: search-busy.test.ts).
    await untilIndexed(expectedSchemaName({ deployment: testnet, collection: agent.collection, tokenId: agent.tokenId }));
    const seen: number[] = [];
    let cursor: string | undefined;
    do {
      const res = await search(agent, { query: 'lantern', limit: 100, ...(cursor ? { cursor } : {}) });
      expect(res.status, res.text).toBe(200);
      seen.push(...res.body.hits.map((h) => Number(/check (\d+)/.exec(h.message)![1])));
      cursor = res.body.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toHaveLength(SEARCH_CANDIDATES);
    expect(new Set(seen).size).toBe(SEARCH_CANDIDATES);
    expect(Math.min(...seen)).toBe(total - SEARCH_CANDIDATES);
    // Ranked within them: the messages with the word three times come first.
    expect(seen.slice(0, 10).every((n) => n % 7 === 0)).toBe(true);
    // A rarer word among the same messages is ranked whole, the oldest included.
    const rare = await found(agent, { query: '"check 3"' });
    expect(rare).toContain('Lantern check 3.');
  });
});

/** The template before memory search's step (v3): later steps come and go, this test's point stays. */
const BEFORE_SEARCH = AGENT_TEMPLATE.filter((step) => step.version < 3);
describe('memory search: a word common long ago, rare lately', () => {
  it(`pages reach its newest ${SEARCH_CANDIDATES} matches: the last 500 and those before 40,000 others`, async () => {
    const agent = await freshAgent(testnet);
    await hydrate(agent, { log: ['Opened the log.'] });
    const schema = expectedSchemaName({ deployment: testnet, collection: agent.collection, tokenId: agent.tokenId });
    // 3,000 beacons, 40,000 other entries, then 500 beacons (indexed as the indexer fills them):
    // the newest 2,000 are the last 500 and the 1,500 before the 40,000 others.
    await sql(
      stack.databaseUrl,
      `insert into "${schema}".messages (context_key, role, message, search_en, search_simple)
       select 'log', 'user', t, to_tsvector('english', t), to_tsvector('simple', t) from (
         select n, case when n <= 3000 or n > 43000 then 'Beacon entry ' || n else 'Filler entry ' || n end as t
         from generate_series(1, 43500) n) s order by n`,
    );
    await sql(stack.databaseUrl, `analyze "${schema}".messages`);
    const seen: number[] = [];
    let cursor: string | undefined;
    do {
      const res = await search(agent, { query: 'beacon', limit: 100, ...(cursor ? { cursor } : {}) });
      expect(res.status, res.text).toBe(200);
      seen.push(...res.body.hits.map((h) => Number(/entry (\d+)/.exec(h.message)![1])));
      cursor = res.body.nextCursor ?? undefined;
    } while (cursor);
    expect(new Set(seen).size).toBe(SEARCH_CANDIDATES);
    expect(seen).toHaveLength(SEARCH_CANDIDATES);
    expect(Math.min(...seen)).toBe(1501);
    expect(seen.filter((n) => n > 43000)).toHaveLength(500);
  }, 120_000);
});

describe('memory search: template upgrade', () => {
  it('an agent provisioned on the previous template is upgraded on its next request and then searchable', async () => {
    const agent = await freshAgent(testnet);
    const identity = { chainId: testnet.chainId, collection: getAddress(agent.collection), tokenId: agent.tokenId };
    const schema = await agentSchemaName(identity);
    const pool = new pg.Pool({ connectionString: stack.databaseUrl, max: 2 });
    try {
      await provision(pool as unknown as SqlPool, identity, schema, BEFORE_SEARCH);
      await pool.query(`insert into ${schema.quoted}.contexts (key) values ('legacy')`);
      await pool.query(
        `insert into ${schema.quoted}.messages (context_key, role, message) values ('legacy', 'user', 'Written before search existed: the warranty ends in March.')`,
      );
    } finally {
      await pool.end();
    }
    const ref = { deployment: testnet, collection: agent.collection, tokenId: agent.tokenId };
    expect((await storageRows(stack.databaseUrl, ref))[0]?.template_version).toBe(BEFORE_SEARCH.at(-1)?.version);
    expect(await found(agent, { query: 'warranties' })).toEqual(['Written before search existed: the warranty ends in March.']);
    expect((await storageRows(stack.databaseUrl, ref))[0]?.template_version).toBe(TEMPLATE_VERSION);
    const indexes = await sql(stack.databaseUrl, 'select indexdef from pg_indexes where schemaname = $1 and indexname = $2', [
      schema.name,
      'messages_search',
    ]);
    expect(indexes[0]?.indexdef).toMatch(
      /gin \(search_en, search_simple, message (public\.)?gin_trgm_ops\) WHERE \(search_en IS NOT NULL\)/,
    );
    // The upgrade added the columns empty (no rewrite under lock); the search that found the
    // message from the unindexed tail started the indexer, which fills them after the response.
    await untilIndexed(schema.name);
    expect(await found(agent, { query: 'warranties' })).toEqual(['Written before search existed: the warranty ends in March.']);
  });
});
