/**
 * The key list's keyset cursor (`after=<key>` in, `nextAfter` out) against the real worker, KV,
 * Postgres and anvil: walks in both orders with and without search, hidden keys, validation, and
 * stability when keys are created behind the cursor.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createGatewayClient } from '../../src/client';
import { listKeysSql, type ListQuery } from '../../src/contexts/contexts.service';
import { freshAgent, listKeys, type KeyPage, type TestAgent } from '../support/agent';
import { deployment, expectError, type JsonResponse } from '../support/http';
import { agentSchema, closePg, quoted, schemaCount, expectedSchemaName, sql, storageRows } from '../support/pg';

const stack = inject('stack');
const testnet = deployment('testnet');
const RESERVED = 'conversation-context-discovery/';

type Params = Record<string, string | number>;
const list = listKeys;

/** Sorts like the gateway: byte order (all keys here are ASCII, so UTF-16 code units agree). */
const byteOrder = (keys: string[], direction: 'asc' | 'desc') => {
  const sorted = [...keys].sort();
  return direction === 'desc' ? sorted.reverse() : sorted;
};

/** Walks the list by cursor from `params.after` (or the start); checks every answer's shape on the way. */
async function walkByCursor(agent: TestAgent, params: Params, elementsPerPage: number): Promise<{ keys: string[]; requests: number }> {
  const keys: string[] = [];
  const totals = new Set<number>();
  let after = params.after === undefined ? undefined : String(params.after);
  for (let requests = 1; ; requests++) {
    const res = await list(agent, { ...params, elementsPerPage, ...(after === undefined ? {} : { after }) });
    expect(res.status, res.text).toBe(200);
    expect(res.body.page).toBe(1);
    expect(res.body.elementsPerPage).toBe(elementsPerPage);
    expect(res.body.contextKeys.length).toBeLessThanOrEqual(elementsPerPage);
    totals.add(res.body.totalElements);
    keys.push(...res.body.contextKeys);
    if (res.body.nextAfter === null) {
      expect(totals.size).toBe(1);
      return { keys, requests };
    }
    expect(res.body.nextAfter).toBe(res.body.contextKeys.at(-1));
    expect(res.body.contextKeys).toHaveLength(elementsPerPage);
    after = res.body.nextAfter;
    expect(requests, 'the walk must end').toBeLessThan(500);
  }
}

async function createAll(agent: TestAgent, keys: string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 100) {
    const res = await agent.call<{ results: { status: string }[] }>('/contexts', {
      method: 'POST',
      json: { keys: keys.slice(i, i + 100) },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.results.every((r) => r.status === 'created')).toBe(true);
  }
}

afterAll(closePg);

describe('GET …/contexts/keys?after=<key> (keyset cursor)', () => {
  const words = ['Alpha', 'alphabet', 'beta', 'Gamma', 'delta', '_x', '0num', 'conversation-context-discovery'];
  const separators = ['-', '.', ':', '@', '_'];
  // 250 visible keys in mixed case and punctuation; some sort right next to the reserved range.
  const visible = Array.from({ length: 250 }, (_, i) => `${words[i % words.length]}${separators[i % separators.length]}${i.toString(36)}`);
  const hidden = Array.from({ length: 30 }, (_, i) => `${RESERVED}${i % 2 === 0 ? 'alpha' : 'zeta'}-${i}`);
  let agent: TestAgent;

  beforeAll(async () => {
    expect(new Set(visible).size).toBe(250);
    agent = await freshAgent(testnet);
    await createAll(agent, visible);
    const schema = quoted(await agentSchema(stack.databaseUrl, agent));
    await sql(stack.databaseUrl, `insert into ${schema}.contexts (key) select unnest($1::text[])`, [hidden]);
  }, 60_000);

  it.each([
    ['asc', 7],
    ['asc', 100],
    ['desc', 7],
    ['desc', 100],
  ] as const)('walks 250 keys %s, %i per page: each visible key exactly once, in order, no hidden key', async (sortDirection, per) => {
    const { keys, requests } = await walkByCursor(agent, { sortDirection }, per);
    expect(keys).toEqual(byteOrder(visible, sortDirection));
    expect(requests).toBe(Math.ceil(250 / per));
    expect(keys.some((k) => k.startsWith(RESERVED))).toBe(false);
  });

  it.each(['asc', 'desc'] as const)(
    'walks with search (%s): the matching keys exactly once, totalElements the matches',
    async (sortDirection) => {
      const expected = byteOrder(
        visible.filter((k) => k.toLowerCase().includes('alpha')),
        sortDirection,
      );
      expect(expected.length).toBeGreaterThan(40);
      const { keys } = await walkByCursor(agent, { sortDirection, search: 'ALPHA' }, 9);
      expect(keys).toEqual(expected);
      const first = await list(agent, { sortDirection, search: 'ALPHA', elementsPerPage: 9 });
      expect(first.body.totalElements).toBe(expected.length);
    },
  );

  it('gives the same keys and totals as page numbers, page for page', async () => {
    for (const sortDirection of ['asc', 'desc'] as const) {
      let after: string | null = null;
      for (let page = 1; page <= 4; page++) {
        const byNumber = await list(agent, { sortDirection, elementsPerPage: 60, page });
        const byCursor: JsonResponse<KeyPage> = await list(agent, { sortDirection, elementsPerPage: 60, ...(after ? { after } : {}) });
        expect(byCursor.body.contextKeys).toEqual(byNumber.body.contextKeys);
        expect(byCursor.body.nextAfter).toBe(byNumber.body.nextAfter);
        expect(byCursor.body.totalElements).toBe(250);
        expect(byNumber.body.page).toBe(page);
        after = byCursor.body.nextAfter;
      }
      expect(after).toBe(byteOrder(visible, sortDirection)[239]);
    }
  });

  it('starts after a key that does not exist, in either order, and skips the hidden range', async () => {
    const asc = byteOrder(visible, 'asc');
    const desc = byteOrder(visible, 'desc');
    const probe = 'beta-zzz'; // between existing keys, not one of them
    expect(visible).not.toContain(probe);
    const up = await list(agent, { after: probe, elementsPerPage: 5 });
    expect(up.body.contextKeys).toEqual(asc.filter((k) => k > probe).slice(0, 5));
    const down = await list(agent, { after: probe, elementsPerPage: 5, sortDirection: 'desc' });
    expect(down.body.contextKeys).toEqual(desc.filter((k) => k < probe).slice(0, 5));
    // Right before the reserved range: the next visible keys come from beyond it.
    const edge = await list(agent, { after: 'conversation-context-discovery.', elementsPerPage: 100 });
    expect(edge.body.contextKeys).toEqual(asc.filter((k) => k > 'conversation-context-discovery.').slice(0, 100));
    expect(edge.body.contextKeys.some((k) => k.startsWith(RESERVED))).toBe(false);
    // Past the last key: an empty page, no cursor.
    const end = await list(agent, { after: asc.at(-1)!, elementsPerPage: 5 });
    expect(end.body).toEqual({ page: 1, elementsPerPage: 5, totalElements: 250, contextKeys: [], nextAfter: null });
    const start = await list(agent, { after: asc[0]!, sortDirection: 'desc' });
    expect(start.body.contextKeys).toEqual([]);
    expect(start.body.nextAfter).toBeNull();
  });

  it('accepts after with page=1 (the same answer as without page)', async () => {
    const without = await list(agent, { after: 'beta', elementsPerPage: 10 });
    const withPage = await list(agent, { after: 'beta', elementsPerPage: 10, page: 1 });
    expect(withPage.status, withPage.text).toBe(200);
    expect(withPage.body).toEqual(without.body);
  });

  it.each([
    ['too short', 'a'],
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['a space', 'has space'],
    ['é', 'caf\u00e9'],
    ['#', 'a#b'],
    ['the reserved prefix', `${RESERVED}alpha-0`],
  ])('answers 400 validation_failed for after %s', async (_, after) => {
    const res = await list(agent, { after });
    expectError(res, 400, 'validation_failed');
    const issues = (res.body as unknown as { error: { details: { issues: { path: string; message: string }[] } } }).error.details.issues;
    expect(issues.map((i) => i.path)).toEqual(['after']);
  });

  it.each([
    ['2', 'asc'],
    ['1000', 'desc'],
  ])('answers 400 validation_failed for after with page=%s, saying why', async (page, sortDirection) => {
    const res = await list(agent, { after: 'beta', page, sortDirection });
    expectError(res, 400, 'validation_failed');
    const issues = (res.body as unknown as { error: { details: { issues: { path: string; message: string }[] } } }).error.details.issues;
    expect(issues).toEqual([{ path: 'page', message: expect.stringContaining('page cannot be combined with after') }]);
  });

  it('keeps later pages where they were when keys are created behind the cursor (page numbers shift)', async () => {
    const own = await freshAgent(testnet);
    const keys = Array.from({ length: 40 }, (_, i) => `m-${String(i).padStart(2, '0')}`);
    await createAll(own, keys);
    const first = await list(own, { elementsPerPage: 10 });
    expect(first.body.nextAfter).toBe('m-09');
    // Three keys land behind the cursor (before m-09 in byte order) between two requests.
    await createAll(own, ['a-new', 'm-00a', 'm-05a']);
    const next = await list(own, { elementsPerPage: 10, after: first.body.nextAfter! });
    expect(next.body.contextKeys).toEqual(keys.slice(10, 20));
    expect(next.body.totalElements).toBe(43);
    // The same step by page number repeats keys the reader has already seen.
    const page2 = await list(own, { elementsPerPage: 10, page: 2 });
    expect(page2.body.contextKeys.slice(0, 3)).toEqual(['m-07', 'm-08', 'm-09']);
    // A key created ahead of the cursor is found when the walk gets there.
    await createAll(own, ['m-25a']);
    const third = await list(own, { elementsPerPage: 10, after: next.body.nextAfter! });
    expect(third.body.contextKeys).toEqual(['m-20', 'm-21', 'm-22', 'm-23', 'm-24', 'm-25', 'm-25a', 'm-26', 'm-27', 'm-28']);
  });

  it('answers an agent without storage with an empty page and no cursor, creating nothing', async () => {
    const fresh = await freshAgent(testnet);
    const res = await list(fresh, { after: 'anything', sortDirection: 'desc' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ page: 1, elementsPerPage: 10, totalElements: 0, contextKeys: [], nextAfter: null });
    expect(await storageRows(stack.databaseUrl, fresh)).toEqual([]);
    expect(await schemaCount(stack.databaseUrl, expectedSchemaName(fresh))).toBe(0);
  });

  it('runs one statement that reads the table once: a keyset page is an index range scan (listKeysSql)', async () => {
    const name = await agentSchema(stack.databaseUrl, agent);
    const plan = async (query: ListQuery): Promise<string> => {
      const { text, values } = listKeysSql({ name, quoted: quoted(name) }, query);
      const client = new pg.Client({ connectionString: stack.databaseUrl });
      await client.connect();
      try {
        // A 280-row table may be cheaper to sort than to walk; the plan shape is what matters here.
        await client.query('BEGIN');
        await client.query('SET LOCAL enable_seqscan = off');
        const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (COSTS OFF) ${text}`, values);
        await client.query('ROLLBACK');
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      } finally {
        await client.end();
      }
    };
    const scans = (text: string) => text.split('\n').filter((line) => / on contexts\b/.test(line)).length;
    const asc = await plan({ page: 1, elementsPerPage: 100, sortDirection: 'asc', after: 'beta' });
    expect(asc).toMatch(/Index Only Scan using contexts_pkey on contexts/);
    expect(asc).toContain("Index Cond: (key > 'beta'::text)");
    expect(asc).not.toMatch(/Sort|OFFSET|Offset/);
    expect(scans(asc)).toBe(1);
    const desc = await plan({ page: 1, elementsPerPage: 100, sortDirection: 'desc', after: 'beta' });
    expect(desc).toMatch(/Index Only Scan Backward using contexts_pkey on contexts/);
    expect(desc).toContain("Index Cond: (key < 'beta'::text)");
    expect(scans(desc)).toBe(1);
    expect(scans(await plan({ page: 3, elementsPerPage: 100, sortDirection: 'asc' }))).toBe(1);
  });

  it('the typed client walks every key by cursor (contextKeys, contextKeyPages)', async () => {
    const client = createGatewayClient({ baseUrl: testnet.baseUrl, token: agent.token }).agent(agent.collection, agent.tokenId);
    const all: string[] = [];
    for await (const key of client.contextKeys({ sortDirection: 'desc', elementsPerPage: 30 })) all.push(key);
    expect(all).toEqual(byteOrder(visible, 'desc'));
    const page = await client.listContextKeys({ after: all[29], sortDirection: 'desc', elementsPerPage: 30 });
    expect(page.contextKeys).toEqual(all.slice(30, 60));
    let pages = 0;
    for await (const p of client.contextKeyPages({ after: all[199], sortDirection: 'desc', elementsPerPage: 25 })) {
      pages += 1;
      expect(p.totalElements).toBe(250);
    }
    expect(pages).toBe(2);
  });
});
