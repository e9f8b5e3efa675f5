import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freshAgent, seg, type TestAgent } from '../support/agent';
import { call, deployment, type JsonResponse, expectError } from '../support/http';
import { agentPath } from '../support/login';
import { agentSchema, closePg, expectedSchemaName, quoted, schemaCount, sql, storageRows } from '../support/pg';

const stack = inject('stack');
const testnet = deployment('testnet');
const KiB = 1024;

type Role = 'user' | 'system' | 'assistant';
interface Stored {
  id: number;
  role: Role;
  message: string;
  createdAt: string;
}
interface Page {
  messages: Stored[];
  nextCursor: string | null;
  hasMore: boolean;
}
interface Issues {
  error: { details?: { issues?: { path: string; message: string }[] } };
}

const create = (agent: TestAgent, key: string) => agent.call('/context', { method: 'POST', json: { key } });
const append = (agent: TestAgent, key: string, body: unknown, headers: Record<string, string> = {}): Promise<JsonResponse<Stored>> =>
  agent.call(`/context/${seg(key)}/message`, { method: 'POST', json: body, headers });
const appendMany = (
  agent: TestAgent,
  key: string,
  messages: unknown[],
  headers: Record<string, string> = {},
): Promise<JsonResponse<{ messages: Stored[] }>> =>
  agent.call(`/context/${seg(key)}/messages`, { method: 'POST', json: { messages }, headers });
const read = (agent: TestAgent, key: string, params: Record<string, string | number> = {}): Promise<JsonResponse<Page>> =>
  agent.call(
    `/context/${seg(key)}/messages?${new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]))}`,
  );
const listKeys = (agent: TestAgent) => agent.call<{ contextKeys: string[]; totalElements: number }>('/contexts/keys?elementsPerPage=100');

async function createKeys(agent: TestAgent, ...keys: string[]) {
  for (const key of keys) {
    const res = await create(agent, key);
    expect(res.status, res.text).toBe(200);
  }
}

/** Every message of a context, following the cursor; checks each page's shape. */
async function readAll(agent: TestAgent, key: string, limit = 100): Promise<Stored[]> {
  const out: Stored[] = [];
  let cursor: string | undefined;
  for (;;) {
    const res = await read(agent, key, cursor === undefined ? { limit } : { limit, cursor });
    expect(res.status, res.text).toBe(200);
    out.push(...res.body.messages);
    expect(res.body.messages.length).toBeLessThanOrEqual(limit);
    if (!res.body.hasMore) {
      expect(res.body.nextCursor).toBeNull();
      return out;
    }
    expect(res.body.messages).toHaveLength(limit);
    expect(res.body.nextCursor).toEqual(expect.any(String));
    cursor = res.body.nextCursor!;
  }
}

const msg = (i: number, role: Role = (['user', 'assistant', 'system'] as const)[i % 3]!) => ({ role, message: `message number ${i}` });

afterAll(closePg);

describe('isolation between agents', () => {
  it('keeps the same key of two agents of one owner apart, both ways', async () => {
    const a = await freshAgent(testnet);
    const b = await freshAgent(testnet, { owner: a.owner, token: a.token });
    await createKeys(a, 'shared', 'only-a');
    await createKeys(b, 'shared', 'only-b');
    expect((await append(a, 'shared', { role: 'user', message: 'from A' })).status).toBe(200);
    expect((await append(b, 'shared', { role: 'user', message: 'from B' })).status).toBe(200);
    expect((await readAll(a, 'shared')).map((m) => m.message)).toEqual(['from A']);
    expect((await readAll(b, 'shared')).map((m) => m.message)).toEqual(['from B']);
    expect((await listKeys(a)).body.contextKeys).toEqual(['only-a', 'shared']);
    expect((await listKeys(b)).body.contextKeys).toEqual(['only-b', 'shared']);
    expectError(await append(b, 'only-a', { role: 'user', message: 'sneak' }), 404, 'context_not_found');
    expectError(await read(b, 'only-a'), 404, 'context_not_found');
    expectError(await read(a, 'only-b'), 404, 'context_not_found');

    const schemaA = await agentSchema(stack.databaseUrl, a);
    const schemaB = await agentSchema(stack.databaseUrl, b);
    expect(schemaA).not.toBe(schemaB);
    expect([schemaA, schemaB]).toEqual([expectedSchemaName(a), expectedSchemaName(b)]);
    const columns = await sql<{ table_name: string; column_name: string }>(
      stack.databaseUrl,
      'select table_name, column_name from information_schema.columns where table_schema = $1',
      [schemaA],
    );
    expect(new Set(columns.map((c) => c.table_name))).toEqual(
      new Set(['contexts', 'messages', 'idempotency', 'key_count', 'summaries', 'usage', 'a2a_tasks']),
    );
    expect(columns.filter((c) => /token_?id|collection|agent|owner|chain|wallet/i.test(c.column_name))).toEqual([]);
  });

  it('serves the same storage when the collection address is spelled in lower case', async () => {
    const a = await freshAgent(testnet);
    await createKeys(a, 'spelled');
    const lower = {
      ...a,
      call: (rest: string, init = {}) =>
        call(testnet.baseUrl, agentPath(a.collection.toLowerCase(), a.tokenId, rest), { token: a.token, ...init }),
    } as TestAgent;
    expect((await append(lower, 'spelled', msg(1))).status).toBe(200);
    expect((await listKeys(lower)).body.contextKeys).toEqual(['spelled']);
    expect((await readAll(a, 'spelled')).map((m) => m.message)).toEqual([msg(1).message]);
    expect(await storageRows(stack.databaseUrl, a)).toHaveLength(1);
  });

  it('keeps Idempotency-Keys per agent: one key used by two agents stores in both', async () => {
    const a = await freshAgent(testnet);
    const b = await freshAgent(testnet, { owner: a.owner, token: a.token });
    await createKeys(a, 'notes');
    await createKeys(b, 'notes');
    const headers = { 'Idempotency-Key': 'shared-idem' };
    const first = await append(a, 'notes', msg(1), headers);
    const second = await append(b, 'notes', msg(1), headers);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(await readAll(a, 'notes')).toEqual([first.body]);
    expect(await readAll(b, 'notes')).toEqual([second.body]);
  });
});

describe('POST /agent/{c}/{t}/context/{contextKey}/message', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await freshAgent(testnet);
    await createKeys(agent, 'ordered', 'bump', 'limits', 'customer:42/notes');
  });

  it('returns the stored message and keeps the order of 20 sequential appends', async () => {
    const returned: Stored[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await append(agent, 'ordered', msg(i));
      expect(res.status, res.text).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['createdAt', 'id', 'message', 'role']);
      expect(res.body).toMatchObject(msg(i));
      expect(Number.isInteger(res.body.id)).toBe(true);
      expect(new Date(res.body.createdAt).toISOString()).toBe(res.body.createdAt);
      returned.push(res.body);
    }
    for (let i = 1; i < returned.length; i++) expect(returned[i]!.id).toBeGreaterThan(returned[i - 1]!.id);
    expect(await readAll(agent, 'ordered')).toEqual(returned);
  });

  it("bumps the context's updated_at", async () => {
    const schema = quoted(await agentSchema(stack.databaseUrl, agent));
    const stamp = async () =>
      (
        await sql<{ created_at: Date; updated_at: Date }>(
          stack.databaseUrl,
          `select created_at, updated_at from ${schema}.contexts where key = $1`,
          ['bump'],
        )
      )[0]!;
    const before = await stamp();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await append(agent, 'bump', msg(1))).status).toBe(200);
    const after = await stamp();
    expect(after.updated_at.getTime()).toBeGreaterThan(before.updated_at.getTime());
    expect(after.created_at.getTime()).toBe(before.created_at.getTime());
  });

  it('answers 404 context_not_found "Context not found" for a missing key', async () => {
    const res = await append(agent, 'no-such-key', msg(0));
    expectError(res, 404, 'context_not_found');
    expect((res.body as unknown as { error: { message: string } }).error.message).toBe('Context not found');
  });

  it('answers 404 context_not_found on an agent that never wrote, and provisions nothing', async () => {
    const never = await freshAgent(testnet);
    expectError(await append(never, 'no-such-key', msg(0)), 404, 'context_not_found');
    expect(await storageRows(stack.databaseUrl, never)).toEqual([]);
    expect(await schemaCount(stack.databaseUrl, expectedSchemaName(never))).toBe(0);
  });

  it.each([
    ['role admin', { role: 'admin', message: 'hello' }],
    ['no role', { message: 'hello' }],
    ['a 1-character message', { role: 'user', message: 'x' }],
    ['an empty message', { role: 'user', message: '' }],
    ['a message that is not a string', { role: 'user', message: 42 }],
    ['256 KiB + 1 byte of ASCII', { role: 'user', message: 'a'.repeat(256 * KiB + 1) }],
    ['256 KiB of ASCII plus one 2-byte character', { role: 'user', message: `${'a'.repeat(256 * KiB - 1)}\u00e9` }],
  ])('answers 400 validation_failed for %s', async (_, body) => {
    expectError(await append(agent, 'limits', body), 400, 'validation_failed');
  });

  it('answers 400 validation_failed for a contextKey of 1 or 256 characters in the path', async () => {
    for (const key of ['x', 'k'.repeat(256)]) {
      expectError(await append(agent, key, msg(0)), 400, 'validation_failed');
      expectError(await appendMany(agent, key, [msg(0)]), 400, 'validation_failed');
      expectError(await read(agent, key), 400, 'validation_failed');
    }
  });

  it('accepts 256 KiB of 2-byte characters (the limit is in UTF-8 bytes)', async () => {
    const message = '\u00e9'.repeat(128 * KiB);
    const res = await append(agent, 'limits', { role: 'user', message });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(res.body.message).toBe(message);
    expectError(await append(agent, 'limits', { role: 'user', message: `${message}\u00e9` }), 400, 'validation_failed');
  });

  it('accepts a message of exactly 256 KiB and reads it back whole', async () => {
    await createKeys(agent, 'big');
    const message = 'b'.repeat(256 * KiB);
    const res = await append(agent, 'big', { role: 'assistant', message });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(res.body.message).toBe(message);
    const back = await readAll(agent, 'big');
    expect(back.map((m) => m.message)).toEqual([message]);
  });

  it('serves a key with a slash (sent as %2F) for append and read', async () => {
    const res = await append(agent, 'customer:42/notes', { role: 'user', message: 'prefers email' });
    expect(res.status, res.text).toBe(200);
    expect((await readAll(agent, 'customer:42/notes')).map((m) => m.message)).toEqual(['prefers email']);
  });
});

describe('content round-trip', () => {
  let agent: TestAgent;
  let bystander: TestAgent;
  const key = 'a.b_c-d:e/f@g';
  const texts = [
    `it's "quoted"`,
    `'); DROP TABLE contexts; --`,
    `"; DELETE FROM messages WHERE '1'='1`,
    'back\\slash \\\\ double \\n not a newline',
    'emoji 😀🎉👩‍👩‍👧 done',
    '中文字符 日本語 한국어',
    'line one\nline two\r\nline three\ttabbed',
    '%_ wildcards \\% \\_',
    '{"json": ["inside", 1]}',
    '\u2028\u2029 separators \ufeff bom',
  ];

  beforeAll(async () => {
    [agent, bystander] = await Promise.all([freshAgent(testnet), freshAgent(testnet)]);
    await createKeys(agent, key);
    await createKeys(bystander, 'kept');
    expect((await appendMany(bystander, 'kept', [msg(1), msg(2)])).status).toBe(200);
  });

  it('stores a key with every allowed punctuation and messages with quotes, SQL, backslashes, emoji, CJK, newlines exactly', async () => {
    const single: Stored[] = [];
    for (const message of texts) {
      const res = await append(agent, key, { role: 'user', message });
      expect(res.status, res.text).toBe(200);
      expect(res.body.message).toBe(message);
      single.push(res.body);
    }
    const batch = await appendMany(
      agent,
      key,
      texts.map((message) => ({ role: 'system', message })),
    );
    expect(batch.status, batch.text).toBe(200);
    expect(batch.body.messages.map((m) => m.message)).toEqual(texts);
    const back = await readAll(agent, key, 7);
    expect(back).toEqual([...single, ...batch.body.messages]);
    expect((await listKeys(agent)).body.contextKeys).toEqual([key]);
  });

  it('answers 400 nul_character for a NUL in a message', async () => {
    expectError(await append(agent, key, { role: 'user', message: 'before\u0000after' }), 400, 'nul_character');
    expectError(await appendMany(agent, key, [msg(1), { role: 'user', message: 'nul\u0000' }]), 400, 'nul_character');
  });

  it('answers 400 invalid_encoding for a lone surrogate sent as raw JSON text', async () => {
    const res = await agent.call(`/context/${seg(key)}/message`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"role":"user","message":"lone \\ud800 surrogate"}',
    });
    expectError(res, 400, 'invalid_encoding');
  });

  it.each([`it's`, `say"hi"`, `x'); DROP TABLE contexts; --`, `a;b`, `a\\b`, `a%b`])(
    'refuses the key %j (400 validation_failed)',
    async (bad) => {
      expectError(await create(agent, bad), 400, 'validation_failed');
    },
  );

  it('treats SQL in a path key as a plain missing key (404)', async () => {
    expectError(await append(agent, `x'); DROP TABLE contexts; --`, msg(0)), 404, 'context_not_found');
    expectError(await read(agent, `' OR '1'='1`), 404, 'context_not_found');
  });

  it("leaves another agent's data intact after all that", async () => {
    const back = await readAll(bystander, 'kept');
    expect(back.map(({ role, message }) => ({ role, message }))).toEqual([msg(1), msg(2)]);
    expect((await listKeys(bystander)).body).toMatchObject({ totalElements: 1, contextKeys: ['kept'] });
  });
});

describe('concurrent appends', () => {
  it('stores all of 100 concurrent appends to one context, each id once, in increasing order', async () => {
    const agent = await freshAgent(testnet);
    await createKeys(agent, 'busy');
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => append(agent, 'busy', { role: 'user', message: `concurrent ${i}` })),
    );
    expect(results.map((r) => r.status)).toEqual(results.map(() => 200));
    const back = await readAll(agent, 'busy', 100);
    expect(back).toHaveLength(100);
    for (let i = 1; i < back.length; i++) expect(back[i]!.id).toBeGreaterThan(back[i - 1]!.id);
    const returnedIds = results.map((r) => r.body.id).sort((x, y) => x - y);
    expect(new Set(returnedIds).size).toBe(100);
    expect(back.map((m) => m.id)).toEqual(returnedIds);
    expect(back.map((m) => m.message).sort()).toEqual(results.map((r) => r.body.message).sort());
    const byId = new Map(back.map((m) => [m.id, m]));
    for (const r of results) expect(byId.get(r.body.id)).toEqual(r.body);
  }, 60_000);
});

describe('POST /agent/{c}/{t}/context/{contextKey}/messages (batch)', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await freshAgent(testnet);
    await createKeys(agent, 'batch');
  });

  it('stores 100 messages atomically in order and returns them', async () => {
    const messages = Array.from({ length: 100 }, (_, i) => msg(i));
    const res = await appendMany(agent, 'batch', messages);
    expect(res.status, res.text).toBe(200);
    expect(res.body.messages.map(({ role, message }) => ({ role, message }))).toEqual(messages);
    for (let i = 1; i < 100; i++) expect(res.body.messages[i]!.id).toBeGreaterThan(res.body.messages[i - 1]!.id);
    expect(await readAll(agent, 'batch')).toEqual(res.body.messages);
  });

  it.each([
    [57, 'role', { role: 'admin', message: 'bad role' }],
    [3, 'message', { role: 'user', message: 'x' }],
    [99, 'message', { role: 'user', message: 'c'.repeat(256 * KiB + 1) }],
  ])('refuses the whole batch when message %i has a bad %s, naming its index, and stores nothing', async (index, field, bad) => {
    const before = (await readAll(agent, 'batch')).length;
    const messages: unknown[] = Array.from({ length: 100 }, (_, i) => msg(i));
    messages[index] = bad;
    const res = await appendMany(agent, 'batch', messages);
    expectError(res, 400, 'validation_failed');
    expect((res.body as unknown as Issues).error.details?.issues?.map((i) => i.path)).toContain(`messages.${index}.${field}`);
    expect((await readAll(agent, 'batch')).length).toBe(before);
  });

  it.each([
    ['101 messages', Array.from({ length: 101 }, (_, i) => msg(i))],
    ['0 messages', []],
  ])('answers 400 validation_failed for %s', async (_, messages) => {
    const before = (await readAll(agent, 'batch')).length;
    expectError(await appendMany(agent, 'batch', messages), 400, 'validation_failed');
    expect((await readAll(agent, 'batch')).length).toBe(before);
  });

  it('answers 404 context_not_found for a missing context', async () => {
    expectError(await appendMany(agent, 'missing', [msg(0)]), 404, 'context_not_found');
  });

  it('answers 413 payload_too_large for a body over the 1 MiB limit, storing nothing', async () => {
    const before = (await readAll(agent, 'batch')).length;
    const messages = Array.from({ length: 5 }, () => ({ role: 'user', message: 'd'.repeat(256 * KiB) }));
    expectError(await appendMany(agent, 'batch', messages), 413, 'payload_too_large');
    expect((await readAll(agent, 'batch')).length).toBe(before);
  });
});

describe('Idempotency-Key', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await freshAgent(testnet);
    await createKeys(agent, 'idem', 'idem-batch', 'other', 'race');
  });

  it('replays the first result for the same key and body, storing one copy (single append)', async () => {
    const headers = { 'Idempotency-Key': 'single-1' };
    const first = await append(agent, 'idem', msg(1), headers);
    expect(first.status, first.text).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const second = await append(agent, 'idem', msg(1), headers);
    expect(second.status, second.text).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.text).toBe(first.text);
    expect(await readAll(agent, 'idem')).toEqual([first.body]);
  });

  it('replays the first result for the same key and body, storing one copy (batch append)', async () => {
    const headers = { 'Idempotency-Key': 'batch-1' };
    const body = [msg(1), msg(2), msg(3)];
    const first = await appendMany(agent, 'idem-batch', body, headers);
    expect(first.status, first.text).toBe(200);
    const second = await appendMany(agent, 'idem-batch', body, headers);
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.text).toBe(first.text);
    expect(await readAll(agent, 'idem-batch')).toEqual(first.body.messages);
  });

  it('replays a retry that spells the same request differently (lower-case address, %3A for :)', async () => {
    await createKeys(agent, 'k:1');
    const headers = { 'Idempotency-Key': 'spelling-1' };
    const first = await append(agent, 'k:1', msg(1), headers);
    expect(first.status, first.text).toBe(200);
    const retry = await call(agent.deployment.baseUrl, `/agent/${agent.collection.toLowerCase()}/${agent.tokenId}/context/k:1/message`, {
      method: 'POST',
      token: agent.token,
      json: msg(1),
      headers,
    });
    expect(retry.status, retry.text).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.text).toBe(first.text);
    expect(await readAll(agent, 'k:1')).toHaveLength(1);
  });

  it('answers 400 idempotency_key_reused for the same key with another body or another context', async () => {
    const headers = { 'Idempotency-Key': 'reuse-1' };
    expect((await append(agent, 'idem', msg(5), headers)).status).toBe(200);
    const count = (await readAll(agent, 'idem')).length;
    expectError(await append(agent, 'idem', msg(6), headers), 400, 'idempotency_key_reused');
    expectError(await append(agent, 'other', msg(5), headers), 400, 'idempotency_key_reused');
    expectError(await appendMany(agent, 'idem', [msg(5)], headers), 400, 'idempotency_key_reused');
    expect((await readAll(agent, 'idem')).length).toBe(count);
    expect(await readAll(agent, 'other')).toEqual([]);
  });

  it('gives 10 concurrent requests with one key and body the same result and stores one copy', async () => {
    const headers = { 'Idempotency-Key': 'race-1' };
    const results = await Promise.all(Array.from({ length: 10 }, () => append(agent, 'race', msg(7), headers)));
    expect(results.map((r) => r.status)).toEqual(results.map(() => 200));
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(new Set(results.map((r) => r.text)).size).toBe(1);
    expect(results.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(9);
    expect(await readAll(agent, 'race')).toEqual([results[0]!.body]);
  }, 60_000);

  it('lets one of 10 concurrent requests with one key and different bodies win; the others are 400 idempotency_key_reused', async () => {
    await createKeys(agent, 'race-2');
    const headers = { 'Idempotency-Key': 'race-2' };
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => append(agent, 'race-2', msg(i), headers)));
    const winners = results.filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    for (const res of results.filter((r) => r.status !== 200)) expectError(res, 400, 'idempotency_key_reused');
    expect(await readAll(agent, 'race-2')).toEqual([winners[0]!.body]);
  }, 60_000);

  it('does not remember an attempt on a missing context: after creating it, the same key succeeds', async () => {
    const headers = { 'Idempotency-Key': 'later-1' };
    expectError(await append(agent, 'later', msg(1), headers), 404, 'context_not_found');
    await createKeys(agent, 'later');
    const res = await append(agent, 'later', msg(1), headers);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    expect(await readAll(agent, 'later')).toEqual([res.body]);
  });

  it('answers 404 for a key on an agent that never wrote, and provisions nothing', async () => {
    const never = await freshAgent(testnet);
    expectError(await append(never, 'later', msg(1), { 'Idempotency-Key': 'never-1' }), 404, 'context_not_found');
    expectError(await appendMany(never, 'later', [msg(1)], { 'Idempotency-Key': 'never-2' }), 404, 'context_not_found');
    expect(await storageRows(stack.databaseUrl, never)).toEqual([]);
    expect(await schemaCount(stack.databaseUrl, expectedSchemaName(never))).toBe(0);
  });

  it.each([
    ['300 characters', 'k'.repeat(300)],
    ['a space inside', 'a b'],
    ['nothing in it', ''],
  ])('answers 400 validation_failed for a header value with %s', async (_, value) => {
    const count = (await readAll(agent, 'idem')).length;
    expectError(await append(agent, 'idem', msg(9), { 'Idempotency-Key': value }), 400, 'validation_failed');
    expect((await readAll(agent, 'idem')).length).toBe(count);
  });
});

describe('GET /agent/{c}/{t}/context/{contextKey}/messages', () => {
  let agent: TestAgent;
  let stored: Stored[];
  beforeAll(async () => {
    agent = await freshAgent(testnet);
    await createKeys(agent, 'paged', 'empty');
    const res = await appendMany(
      agent,
      'paged',
      Array.from({ length: 25 }, (_, i) => msg(i)),
    );
    expect(res.status).toBe(200);
    stored = res.body.messages;
  });

  it.each(['0', '101', 'abc', '-1', '1.5'])('answers 400 validation_failed for limit=%s', async (limit) => {
    expectError(await read(agent, 'paged', { limit }), 400, 'validation_failed');
  });

  it.each([
    ['garbage', 'not a cursor!'],
    ['base64 of something else', Buffer.from('m2:5').toString('base64url')],
    ['a negative id', Buffer.from('m1:-5').toString('base64url')],
  ])('answers 400 validation_failed for a cursor that is %s', async (_, cursor) => {
    expectError(await read(agent, 'paged', { cursor }), 400, 'validation_failed');
  });

  it('order=desc reads newest first, page by page, to the oldest', async () => {
    const seen: Stored[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const res = await read(agent, 'paged', cursor === undefined ? { order: 'desc', limit: 10 } : { order: 'desc', limit: 10, cursor });
      expect(res.status, res.text).toBe(200);
      seen.push(...res.body.messages);
      if (!res.body.hasMore) break;
      cursor = res.body.nextCursor!;
    }
    expect(seen).toEqual([...stored].reverse());
    expect((await read(agent, 'empty', { order: 'desc' })).body).toEqual({
      messages: [],
      nextCursor: null,
      hasMore: false,
      hasSummary: false,
    });
  });

  it('a cursor of one order is 400 validation_failed in the other; order must be asc or desc', async () => {
    const asc = await read(agent, 'paged', { limit: 5 });
    const desc = await read(agent, 'paged', { limit: 5, order: 'desc' });
    expectError(await read(agent, 'paged', { cursor: asc.body.nextCursor!, order: 'desc' }), 400, 'validation_failed');
    expectError(await read(agent, 'paged', { cursor: desc.body.nextCursor! }), 400, 'validation_failed');
    expectError(await read(agent, 'paged', { order: 'newest' }), 400, 'validation_failed');
  });

  it('defaults to 50 and reports the end', async () => {
    const res = await read(agent, 'paged');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ messages: stored, nextCursor: null, hasMore: false, hasSummary: false });
    expect((await read(agent, 'empty')).body).toEqual({ messages: [], nextCursor: null, hasMore: false, hasSummary: false });
  });

  it.each([1, 7, 24, 25, 100])('covers every message exactly once with limit=%i', async (limit) => {
    const all = await readAll(agent, 'paged', limit);
    expect(all).toEqual(stored);
  });

  it('answers 404 context_not_found for a missing context', async () => {
    expectError(await read(agent, 'nope'), 404, 'context_not_found');
  });
});
