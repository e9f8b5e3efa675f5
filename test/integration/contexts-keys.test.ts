import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { registerCollection } from '../../scripts/lib/collections';
import { deployDemoAgents } from '../../scripts/lib/contracts';
import { freshAgent, listKeys, seg, type TestAgent } from '../support/agent';
import { mcpRpc, mcpUrl } from '../support/agent-mcp';
import { fundedWallet } from '../support/chain';
import { deployment, errorCode, type JsonResponse, expectError } from '../support/http';
import { agentSchema, closePg, expectedSchemaName, quoted, schemaCount, sql, storageRows } from '../support/pg';

const stack = inject('stack');
const testnet = deployment('testnet');
const RESERVED = 'conversation-context-discovery/';

interface BatchResult {
  results: { key: string; status: 'created' | 'exists' | 'invalid'; reason?: string; message?: string }[];
}

const list = listKeys;
const create = (agent: TestAgent, key: string) => agent.call('/context', { method: 'POST', json: { key } });
const createMany = (agent: TestAgent, keys: string[]): Promise<JsonResponse<BatchResult>> =>
  agent.call('/contexts', { method: 'POST', json: { keys } });

async function createAll(agent: TestAgent, keys: string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 100) {
    const res = await createMany(agent, keys.slice(i, i + 100));
    expect(res.status, res.text).toBe(200);
    expect(
      res.body.results.every((r) => r.status === 'created'),
      res.text,
    ).toBe(true);
  }
}

/** Every key the listing returns for these parameters, walking all pages. */
async function walk(agent: TestAgent, params: Record<string, string | number>, elementsPerPage: number) {
  const keys: string[] = [];
  const totals = new Set<number>();
  for (let page = 1; ; page++) {
    const res = await list(agent, { ...params, elementsPerPage, page });
    expect(res.status, res.text).toBe(200);
    expect(res.body.page).toBe(page);
    expect(res.body.elementsPerPage).toBe(elementsPerPage);
    totals.add(res.body.totalElements);
    keys.push(...res.body.contextKeys);
    // Page numbers also answer the cursor: the last key when more follow, else null.
    const more = page * elementsPerPage < res.body.totalElements;
    expect(res.body.nextAfter).toBe(more ? res.body.contextKeys.at(-1) : null);
    if (res.body.contextKeys.length < elementsPerPage) break;
  }
  return { keys, totals: [...totals] };
}

afterAll(closePg);

describe('GET /agent/{c}/{t}/contexts/keys', () => {
  it('gives a fresh agent an empty first page, and reads create no storage', async () => {
    const agent = await freshAgent(testnet);
    const res = await list(agent);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ page: 1, elementsPerPage: 10, totalElements: 0, contextKeys: [], nextAfter: null });
    expect((await list(agent, { search: 'x', page: 3, elementsPerPage: 5, sortDirection: 'desc' })).body).toEqual({
      page: 3,
      elementsPerPage: 5,
      totalElements: 0,
      contextKeys: [],
      nextAfter: null,
    });
    expectError(await agent.call(`/context/${seg('some-key')}/messages`), 404, 'context_not_found');
    expectError(
      await agent.call(`/context/${seg('some-key')}/message`, { method: 'POST', json: { message: 'hi', role: 'user' } }),
      404,
      'context_not_found',
    );
    expect(await storageRows(stack.databaseUrl, agent)).toEqual([]);
    expect(await schemaCount(stack.databaseUrl, expectedSchemaName(agent))).toBe(0);
  });

  describe('paging parameters', () => {
    let agent: TestAgent;
    const keys = Array.from({ length: 120 }, (_, i) => `key-${String(i).padStart(3, '0')}`);

    beforeAll(async () => {
      agent = await freshAgent(testnet);
      await createAll(agent, keys);
    });

    it('defaults to page 1, 10 per page, ascending', async () => {
      const res = await list(agent);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ page: 1, elementsPerPage: 10, totalElements: 120, contextKeys: keys.slice(0, 10), nextAfter: keys[9] });
      expect((await list(agent, { sortBy: 'key', sortDirection: 'asc' })).body).toEqual(res.body);
    });

    it.each([
      ['0', 1],
      ['-5', 1],
      ['1', 1],
      ['100', 100],
      ['500', 100],
    ])('clamps elementsPerPage=%s to %i', async (value, expected) => {
      const res = await list(agent, { elementsPerPage: value });
      expect(res.status).toBe(200);
      expect(res.body.elementsPerPage).toBe(expected);
      expect(res.body.contextKeys).toEqual(keys.slice(0, expected));
      expect(res.body.totalElements).toBe(120);
    });

    it.each([
      ['elementsPerPage', 'abc'],
      ['elementsPerPage', '1.5'],
      ['page', '0'],
      ['page', '-1'],
      ['page', '1.5'],
      ['page', 'abc'],
      ['sortBy', 'created'],
      ['sortDirection', 'up'],
      ['sortDirection', 'ASC'],
      ['search', 's'.repeat(256)],
    ])('answers 400 validation_failed for %s=%s', async (name, value) => {
      expectError(await list(agent, { [name]: value }), 400, 'validation_failed');
    });

    it('sorts descending', async () => {
      const res = await list(agent, { sortDirection: 'desc', elementsPerPage: 100 });
      expect(res.body.contextKeys).toEqual([...keys].reverse().slice(0, 100));
      const second = await list(agent, { sortDirection: 'desc', elementsPerPage: 100, page: 2 });
      expect(second.body.contextKeys).toEqual([...keys].reverse().slice(100));
    });

    it('answers the largest page number with an empty page, not an overflow', async () => {
      const res = await list(agent, { page: 1_000_000_000, elementsPerPage: 100 });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ page: 1_000_000_000, elementsPerPage: 100, totalElements: 120, contextKeys: [], nextAfter: null });
    });

    it('answers a page past the end with no keys and the true total', async () => {
      const res = await list(agent, { page: 13 });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ page: 13, elementsPerPage: 10, totalElements: 120, contextKeys: [], nextAfter: null });
      const last = await list(agent, { page: 12 });
      expect(last.body.contextKeys).toEqual(keys.slice(110));
      expect(last.body.nextAfter).toBeNull();
      expect((await list(agent, { page: 11 })).body.nextAfter).toBe(keys[109]);
    });
  });

  it('sorts in byte order (UTF-16 code units for ASCII), not by a locale', async () => {
    const agent = await freshAgent(testnet);
    const keys = [
      'aa',
      'Ba',
      'ba',
      '_a',
      'Za',
      'zz',
      '0a',
      '9z',
      '@a',
      '.a',
      '-a',
      ':a',
      '/a',
      'AA',
      'a_',
      'a.',
      'a-',
      'a:',
      'a/',
      'a@',
      'aZ',
      'a0',
    ];
    await createAll(agent, keys);
    const asc = [...keys].sort();
    expect(asc.indexOf('Ba')).toBeLessThan(asc.indexOf('aa')); // upper case first: 'B' (0x42) < 'a' (0x61)
    expect((await list(agent, { elementsPerPage: 100 })).body.contextKeys).toEqual(asc);
    expect((await list(agent, { elementsPerPage: 100, sortDirection: 'desc' })).body.contextKeys).toEqual([...asc].reverse());
  });

  describe('search', () => {
    let agent: TestAgent;
    const keys = [
      'Notes_one',
      'notes-two',
      'NOTESx',
      'other',
      'a_b',
      'ab',
      'a.b',
      'axb',
      'conversation-context-discovery0',
      'conversation-context-discovery.x',
    ];
    const hidden = [`${RESERVED}secret`, `${RESERVED}notes`, `${RESERVED}a_b`];

    beforeAll(async () => {
      agent = await freshAgent(testnet);
      await createAll(agent, keys);
      const schema = await agentSchema(stack.databaseUrl, agent);
      for (const key of hidden) await sql(stack.databaseUrl, `insert into ${quoted(schema)}.contexts (key) values ($1)`, [key]);
    });

    it.each([
      ['notes', ['NOTESx', 'Notes_one', 'notes-two']],
      ['NoTeS', ['NOTESx', 'Notes_one', 'notes-two']],
      ['_', ['Notes_one', 'a_b']],
      ['a_b', ['a_b']],
      ['%', []],
      ['a%b', []],
      ['\\', []],
      ['\\_', []],
      ['.', ['a.b', 'conversation-context-discovery.x']],
      ['discovery', ['conversation-context-discovery.x', 'conversation-context-discovery0']],
      ['secret', []],
      ['zzz', []],
    ])('search=%j finds exactly %j, with an honest total', async (search, expected) => {
      const res = await list(agent, { search, elementsPerPage: 100 });
      expect(res.status, res.text).toBe(200);
      expect(res.body.contextKeys).toEqual(expected);
      expect(res.body.totalElements).toBe(expected.length);
    });

    it('never lists or counts keys under the reserved prefix', async () => {
      const res = await list(agent, { elementsPerPage: 100 });
      expect(res.body.contextKeys).toEqual([...keys].sort());
      expect(res.body.totalElements).toBe(keys.length);
      const desc = await list(agent, { elementsPerPage: 100, sortDirection: 'desc' });
      expect(desc.body.contextKeys).toEqual([...keys].sort().reverse());
      const rows = await sql(
        stack.databaseUrl,
        `select count(*)::int as n from ${quoted(await agentSchema(stack.databaseUrl, agent))}.contexts`,
      );
      expect(rows[0]!.n).toBe(keys.length + hidden.length); // they are there, just not shown
    });

    it('keeps the total honest on a page past the end of a search', async () => {
      const res = await list(agent, { search: 'notes', page: 2, elementsPerPage: 2 });
      expect(res.body).toEqual({ page: 2, elementsPerPage: 2, totalElements: 3, contextKeys: ['notes-two'], nextAfter: null });
      const past = await list(agent, { search: 'notes', page: 5, elementsPerPage: 2 });
      expect(past.body).toEqual({ page: 5, elementsPerPage: 2, totalElements: 3, contextKeys: [], nextAfter: null });
      expect((await list(agent, { search: 'notes', elementsPerPage: 2 })).body.nextAfter).toBe('Notes_one');
    });
  });

  it('walks all pages of a random key set: the filtered, sorted set exactly once, totals honest (property)', async () => {
    const allowed = [...'abcXYZ019._-:/@'];
    const keyArb = fc.string({ unit: fc.constantFrom(...allowed), minLength: 2, maxLength: 12 });
    const searchArb = fc.option(
      fc.oneof(
        fc.record({ from: fc.nat(), start: fc.nat(), len: fc.integer({ min: 1, max: 4 }), upper: fc.boolean() }),
        fc.string({ unit: fc.constantFrom(...allowed, '%', '\\', 'A', 'B'), minLength: 1, maxLength: 3 }),
      ),
      { nil: undefined },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(keyArb, { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 20 }),
        fc.constantFrom('asc' as const, 'desc' as const),
        searchArb,
        async (keys, elementsPerPage, sortDirection, searchSpec) => {
          let search: string | undefined;
          if (typeof searchSpec === 'string') search = searchSpec;
          else if (searchSpec) {
            const key = keys[searchSpec.from % keys.length]!;
            const start = searchSpec.start % key.length;
            search = key.slice(start, start + searchSpec.len);
            if (searchSpec.upper) search = search.toUpperCase();
          }
          const agent = await freshAgent(testnet);
          await createAll(agent, keys);
          const expected = keys.filter((k) => search === undefined || k.toLowerCase().includes(search.toLowerCase())).sort();
          if (sortDirection === 'desc') expected.reverse();
          const params: Record<string, string> = { sortDirection };
          if (search !== undefined) params.search = search;
          const { keys: seen, totals } = await walk(agent, params, elementsPerPage);
          expect(seen).toEqual(expected);
          expect(new Set(seen).size).toBe(seen.length);
          expect(totals).toEqual([expected.length]);
        },
      ),
      { numRuns: 8 },
    );
  }, 120_000);
});

describe('POST /agent/{c}/{t}/context', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await freshAgent(testnet);
  });

  it('creates a key: 200 with an empty body, and the key is listed', async () => {
    const res = await create(agent, 'customer:42/notes');
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    expect((await list(agent, { search: 'customer:42' })).body.contextKeys).toEqual(['customer:42/notes']);
    expect(await agentSchema(stack.databaseUrl, agent)).toBe(expectedSchemaName(agent));
  });

  it.each([
    ['1 character', 'a'],
    ['256 characters', 'k'.repeat(256)],
    ['a space', 'has space'],
    ['é', 'caf\u00e9'],
    ['#', 'a#b'],
    ['empty', ''],
    ['the reserved prefix', `${RESERVED}mine`],
    ['the reserved prefix alone', RESERVED],
    ['a newline at the end', 'ab\n'],
  ])('answers 400 validation_failed for a key with %s', async (_, key) => {
    expectError(await create(agent, key), 400, 'validation_failed');
  });

  it('refuses `..` as a key (a URL path drops it, so it could never be read): 400 validation_failed, batch dot_segment, memory_append refused', async () => {
    const res = await create(agent, '..');
    expectError(res, 400, 'validation_failed');
    expect(res.text).toContain('must not be . or ..');
    const batch = await createMany(agent, ['..', '.', '...', 'a/..']);
    expect(batch.status, batch.text).toBe(200);
    expect(batch.body.results.map((r) => [r.key, r.status, r.reason])).toEqual([
      ['..', 'invalid', 'dot_segment'],
      ['.', 'invalid', 'too_short'],
      ['...', 'created', undefined],
      ['a/..', 'created', undefined],
    ]);
    // The keys that hold dots but are no dot segment are read over REST as any other.
    for (const key of ['...', 'a/..']) {
      const read = await agent.call(`/context/${seg(key)}/messages`);
      expect(read.status, `${key}: ${read.text}`).toBe(200);
    }
    const append = await mcpRpc(mcpUrl(testnet.baseUrl, agent), agent.token, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'memory_append', arguments: { contextKey: '..', message: 'hello' } },
    });
    expect(append.status, append.text).toBe(200);
    expect(append.text).toContain('must not be . or ..');
    expect(append.text).toContain('"isError":true');
    expect((await list(agent, { search: '..' })).body.contextKeys).not.toContain('..');
  });

  it('answers 400 validation_failed when key is missing or not a string', async () => {
    expectError(await agent.call('/context', { method: 'POST', json: {} }), 400, 'validation_failed');
    expectError(await agent.call('/context', { method: 'POST', json: { key: 42 } }), 400, 'validation_failed');
  });

  it('accepts 2 and 255 characters', async () => {
    for (const key of ['ok', 'L'.repeat(255)]) {
      const res = await create(agent, key);
      expect(res.status, res.text).toBe(200);
    }
    expect((await list(agent, { search: 'L'.repeat(255) })).body.contextKeys).toEqual(['L'.repeat(255)]);
  });

  it('answers 400 context_exists with the exact message for a duplicate', async () => {
    expect((await create(agent, 'dup-key')).status).toBe(200);
    const res = await create(agent, 'dup-key');
    expectError(res, 400, 'context_exists');
    expect((res.body as unknown as { error: { message: string } }).error.message).toBe('agent context with key dup-key already exists');
  });

  it('lets exactly one of 10 concurrent creates of one key win', async () => {
    const agent = await freshAgent(testnet);
    expect((await create(agent, 'first-key')).status).toBe(200);
    const results = await Promise.all(Array.from({ length: 10 }, () => create(agent, 'race-key')));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    const losers = results.filter((r) => r.status !== 200);
    expect(losers).toHaveLength(9);
    for (const res of losers) expectError(res, 400, 'context_exists');
    expect((await list(agent, { search: 'race-key' })).body).toMatchObject({ totalElements: 1, contextKeys: ['race-key'] });
    expect((await list(agent)).body).toMatchObject({ totalElements: 2, contextKeys: ['first-key', 'race-key'] });
  });

  describe('collection kinds', () => {
    async function collectionOfKind(kind: string): Promise<string> {
      const deployer = await fundedWallet(testnet.rpcUrl);
      const collection = await deployDemoAgents(testnet.rpcUrl, deployer.privateKey);
      await registerCollection(stack.databaseUrl, { chainId: 80002, address: collection, kind });
      return collection;
    }

    it('answers 400 agent_kind_not_supported for an agent of a partner collection, and stores nothing', async () => {
      const partner = await freshAgent(testnet, { collection: await collectionOfKind('partner') });
      expectError(await create(partner, 'some-key'), 400, 'agent_kind_not_supported');
      expectError(await createMany(partner, ['some-key', 'other-key']), 400, 'agent_kind_not_supported');
      expect(await storageRows(stack.databaseUrl, partner)).toEqual([]);
    });

    it('provisions no storage for a partner agent when an append carries an Idempotency-Key', async () => {
      const partner = await freshAgent(testnet, { collection: await collectionOfKind('partner') });
      const res = await partner.call(`/context/${seg('some-key')}/message`, {
        method: 'POST',
        json: { role: 'user', message: 'hello' },
        headers: { 'Idempotency-Key': 'partner-1' },
      });
      expect(res.status, res.text).toBeGreaterThanOrEqual(400);
      expect(['context_not_found', 'agent_kind_not_supported']).toContain(errorCode(res));
      expect(await storageRows(stack.databaseUrl, partner)).toEqual([]);
      expect(await schemaCount(stack.databaseUrl, expectedSchemaName(partner))).toBe(0);
    });

    it('lets an agent of an expert collection hold contexts', async () => {
      const expert = await freshAgent(testnet, { collection: await collectionOfKind('expert') });
      expect((await create(expert, 'expert-key')).status).toBe(200);
      expect((await list(expert)).body).toMatchObject({ totalElements: 1, contextKeys: ['expert-key'] });
    });
  });
});

describe('first writes', () => {
  it('gives 50 concurrent first writes of a fresh agent one schema and no error', async () => {
    const agent = await freshAgent(testnet);
    const keys = Array.from({ length: 50 }, (_, i) => `first-${String(i).padStart(2, '0')}`);
    const results = await Promise.all(keys.map((key) => create(agent, key)));
    expect(results.map((r) => r.status)).toEqual(keys.map(() => 200));
    const rows = await storageRows(stack.databaseUrl, agent);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.schema_name).toBe(expectedSchemaName(agent));
    expect(await schemaCount(stack.databaseUrl, rows[0]!.schema_name)).toBe(1);
    const page = await list(agent, { elementsPerPage: 100 });
    expect(page.body.totalElements).toBe(50);
    expect(page.body.contextKeys).toEqual(keys);
  }, 60_000);
});

describe('POST /agent/{c}/{t}/contexts (batch)', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await freshAgent(testnet);
  });

  it('answers a result per key, in request order', async () => {
    expect((await create(agent, 'existing')).status).toBe(200);
    const keys = ['good-1', 'a', 'good-1', 'existing', 'bad key', `${RESERVED}x`, 'k'.repeat(256), 'good-2', 'caf\u00e9'];
    const res = await createMany(agent, keys);
    expect(res.status, res.text).toBe(200);
    expect(res.body.results.map((r) => r.key)).toEqual(keys);
    expect(res.body.results.map((r) => [r.status, r.reason])).toEqual([
      ['created', undefined],
      ['invalid', 'too_short'],
      ['exists', undefined],
      ['exists', undefined],
      ['invalid', 'bad_characters'],
      ['invalid', 'reserved'],
      ['invalid', 'too_long'],
      ['created', undefined],
      ['invalid', 'bad_characters'],
    ]);
    for (const r of res.body.results.filter((x) => x.status === 'invalid')) expect(r.message).toEqual(expect.any(String));
    const page = await list(agent, { elementsPerPage: 100 });
    expect(page.body).toMatchObject({ totalElements: 3, contextKeys: ['existing', 'good-1', 'good-2'] });
    const again = await createMany(agent, ['good-2', 'good-3']);
    expect(again.body.results).toEqual([
      { key: 'good-2', status: 'exists' },
      { key: 'good-3', status: 'created' },
    ]);
  });

  it.each([
    ['101 keys', Array.from({ length: 101 }, (_, i) => `many-${i}`)],
    ['0 keys', []],
  ])('answers 400 validation_failed for %s and creates nothing', async (_, keys) => {
    const before = (await list(agent)).body.totalElements;
    expectError(await createMany(agent, keys), 400, 'validation_failed');
    expect((await list(agent)).body.totalElements).toBe(before);
  });

  it('creates no storage when every key of a batch is invalid', async () => {
    const fresh = await freshAgent(testnet);
    const res = await createMany(fresh, ['a', 'bad key', `${RESERVED}x`]);
    expect(res.status, res.text).toBe(200);
    expect(res.body.results.map((r) => r.status)).toEqual(['invalid', 'invalid', 'invalid']);
    expect(await storageRows(stack.databaseUrl, fresh)).toEqual([]);
  });

  it('reports a key over 1024 characters as invalid (too_long) without stopping the valid ones', async () => {
    const res = await createMany(agent, ['valid-next-to-huge', 'h'.repeat(1_025)]);
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(res.body.results.map((r) => [r.status, r.reason])).toEqual([
      ['created', undefined],
      ['invalid', 'too_long'],
    ]);
  });

  it('answers 400 validation_failed when keys is not an array of strings', async () => {
    expectError(await agent.call('/contexts', { method: 'POST', json: { keys: 'abc' } }), 400, 'validation_failed');
    expectError(await agent.call('/contexts', { method: 'POST', json: { keys: [1, 2] } }), 400, 'validation_failed');
  });
});
