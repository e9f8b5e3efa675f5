/**
 * Agent keys (issue 19) against the real stack: created, listed and revoked by the
 * owner's wallet token; shown once and stored as a SHA-256 only; each scope rule; every
 * administrative route refusing a key with 403 `key_not_allowed`; another agent and the other
 * chain's deployment; expiry; a revoke holding from the very next request; use recorded.
 */
import { createHash } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { freshAgent, seg } from '../support/agent';
import { createKey, eventually, withKey } from '../support/agent-keys';
import { call, deployment, expectError } from '../support/http';
import { closePg, sql } from '../support/pg';

const stack = inject('stack');
const testnet = deployment('testnet');
const mainnet = deployment('mainnet');
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const keyRow = async (id: string) =>
  (await sql(stack.databaseUrl, 'select * from "gateway"."agent_keys" where id = $1', [id]))[0] as Record<string, unknown>;

afterAll(closePg);

describe('managing keys with the owner token', () => {
  it('creates a key shown once, lists it without the key, stores only its SHA-256, and revokes it', async () => {
    const agent = await freshAgent(testnet);
    const created = await createKey(agent, ['contexts:read', 'contexts:write', 'contexts:read'], {
      name: 'nightly hydrate',
      expiresInSeconds: 3_600,
    });
    expect(created.key).toMatch(/^agk_[a-z2-7]{32}$/);
    expect(created.scopes).toEqual(['contexts:read', 'contexts:write']);
    expect(Date.parse(created.expiresAt ?? '') - Date.parse(created.createdAt)).toBe(3_600_000);

    const listed = await agent.call<{ keys: Record<string, unknown>[] }>('/keys');
    expect(listed.status).toBe(200);
    expect(listed.body.keys).toEqual([
      {
        id: created.id,
        name: 'nightly hydrate',
        scopes: ['contexts:read', 'contexts:write'],
        tools: null,
        createdAt: created.createdAt,
        expiresAt: created.expiresAt,
        lastUsedAt: null,
        useCount: 0,
        limits: { tokensPerDay: null },
      },
    ]);
    expect(listed.text).not.toContain(created.key);

    const row = await keyRow(created.id);
    expect(row.key_hash).toBe(sha256(created.key));
    expect(row.created_by_wallet).toBe(agent.owner.address.toLowerCase());
    const everything = await sql(stack.databaseUrl, `select id from "gateway"."agent_keys" k where strpos(row_to_json(k)::text, $1) > 0`, [
      created.key.slice(4),
    ]);
    expect(everything).toEqual([]);

    const revoked = await agent.call(`/keys/${created.id}`, { method: 'DELETE' });
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.body).toEqual({ id: created.id, revokedAt: expect.any(String) });
    expect((await agent.call('/keys')).body).toEqual({ keys: [] });
    expectError(await agent.call(`/keys/${created.id}`, { method: 'DELETE' }), 404, 'agent_key_not_found');
    expectError(await agent.call('/keys/not-a-uuid', { method: 'DELETE' }), 404, 'agent_key_not_found');
  });

  it('validates the body: scopes from the list (at least one), a name, a lifetime of 60 s .. 1 year', async () => {
    const agent = await freshAgent(testnet);
    for (const body of [
      { name: 'x', scopes: [] },
      { name: 'x', scopes: ['admin'] },
      { name: '', scopes: ['reply'] },
      { name: 'a\u0007b', scopes: ['reply'] },
      { name: 'x', scopes: ['reply'], expiresInSeconds: 59 },
      { name: 'x', scopes: ['reply'], expiresInSeconds: 31_536_001 },
      { name: 'x', scopes: ['reply'], key: 'agk_mine' },
    ]) {
      expectError(await agent.call('/keys', { method: 'POST', json: body }), 400, 'validation_failed');
    }
  });

  it('an agent has at most 100 live keys: 400 agent_key_limit until one is revoked', async () => {
    const agent = await freshAgent(testnet);
    const first = await createKey(agent, ['contexts:read']);
    // 99 more rows as the API would write them (the hash of a key nobody holds).
    await sql(
      stack.databaseUrl,
      `insert into "gateway"."agent_keys" (id, chain_id, collection, token_id, key_hash, name, scopes, created_by_wallet)
       select gen_random_uuid(), $1, $2, $3, encode(sha256(convert_to(gen_random_uuid()::text, 'UTF8')), 'hex'), 'filler', '{contexts:read}', $4
         from generate_series(1, 99)`,
      [testnet.chainId, agent.collection.toLowerCase(), agent.tokenId.toString(), agent.owner.address.toLowerCase()],
    );
    expectError(await agent.call('/keys', { method: 'POST', json: { name: 'one too many', scopes: ['reply'] } }), 400, 'agent_key_limit');
    expect((await agent.call(`/keys/${first.id}`, { method: 'DELETE' })).status).toBe(200);
    await createKey(agent, ['reply']);
  });

  it('a key never manages keys, nor touches any other administrative route: 403 key_not_allowed, never 401', async () => {
    const agent = await freshAgent(testnet);
    const { key } = await createKey(agent, ['contexts:read', 'contexts:write', 'reply']);
    const doc = (await call(testnet.baseUrl, '/openapi.json')).body as {
      paths: Record<string, Record<string, { operationId: string; 'x-agent-key-scope'?: string; security?: unknown }>>;
    };
    const admin: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      if (!path.startsWith('/agent/')) continue;
      for (const [method, operation] of Object.entries(operations)) {
        if (Array.isArray(operation.security) && operation.security.length === 0) continue; // public (registration.json)
        if (operation['x-agent-key-scope']) {
          expect(operation.security, operation.operationId).toEqual([{ bearer: [] }, { agentKey: [] }]);
          continue;
        }
        expect(operation.security, operation.operationId).toEqual([{ bearer: [] }]);
        admin.push(operation.operationId);
        const rest = path
          .replace('/agent/{agentCollectionAddress}/{agentTokenId}', '')
          .replace('{id}', '0b7f1f5e-5c0e-4a57-9a43-2f8d3b1c6e21')
          .replace('{key}', 'default');
        const init = { method: method.toUpperCase(), ...(method === 'get' || method === 'delete' ? {} : { json: {} }) };
        expectError(await withKey(agent, key, rest, init), 403, 'key_not_allowed');
        // Whatever the key: a revoked or made-up one is refused the same way, without a lookup.
        expectError(await withKey(agent, `agk_${'a'.repeat(32)}`, rest, init), 403, 'key_not_allowed');
      }
    }
    expect(admin).not.toContain('getAgent');
    expect(admin).toEqual(
      expect.arrayContaining([
        'createAgentKey',
        'listAgentKeys',
        'revokeAgentKey',
        'listAuditEntries',
        'getLlmSettings',
        'saveLlmSettings',
        'getPromptTemplate',
        'savePromptTemplate',
        'databaseFirstStep',
        'databaseSecondStep',
        'getDatabaseSettings',
        'listMcpConnections',
        'addMcpConnection',
        'removeMcpConnection',
        'listMcpTools',
        'callMcpTool',
        'replaceMcpAuth',
        'getProfile',
        'setProfile',
      ]),
    );
  });
});

describe('what a key may do', () => {
  it('contexts:write creates and appends but does not read; contexts:read reads but does not write', async () => {
    const agent = await freshAgent(testnet);
    const writer = await createKey(agent, ['contexts:write']);
    const reader = await createKey(agent, ['contexts:read']);
    const context = `notes/${Date.now()}`;
    expect((await withKey(agent, writer.key, '/context', { method: 'POST', json: { key: context } })).status).toBe(200);
    const batch = await withKey(agent, writer.key, '/contexts', { method: 'POST', json: { keys: [`${context}-2`] } });
    expect(batch.status, batch.text).toBe(200);
    const appended = await withKey(agent, writer.key, `/context/${seg(context)}/message`, {
      method: 'POST',
      json: { role: 'user', message: 'hello' },
    });
    expect(appended.status, appended.text).toBe(200);
    const many = await withKey(agent, writer.key, `/context/${seg(context)}/messages`, {
      method: 'POST',
      json: { messages: [{ role: 'assistant', message: 'hi there' }] },
    });
    expect(many.status, many.text).toBe(200);
    expectError(await withKey(agent, writer.key, '/contexts/keys'), 403, 'key_scope_missing');
    // The agent summary takes a key of any scope: a pipeline checks its agent first.
    const summary = await withKey<{ owner: string }>(agent, writer.key, '');
    expect([summary.status, summary.body.owner]).toEqual([200, agent.owner.address]);
    expectError(await withKey(agent, writer.key, `/context/${seg(context)}/messages`), 403, 'key_scope_missing');

    const keys = await withKey<{ contextKeys: string[] }>(agent, reader.key, '/contexts/keys');
    expect(keys.status, keys.text).toBe(200);
    expect(keys.body.contextKeys).toEqual([context, `${context}-2`]);
    const read = await withKey<{ messages: { message: string }[] }>(agent, reader.key, `/context/${seg(context)}/messages`);
    expect(read.body.messages.map((m) => m.message)).toEqual(['hello', 'hi there']);
    expectError(await withKey(agent, reader.key, '/context', { method: 'POST', json: { key: 'x-y' } }), 403, 'key_scope_missing');
    expectError(
      await withKey(agent, reader.key, `/context/${seg(context)}/message`, { method: 'POST', json: { role: 'user', message: 'no' } }),
      403,
      'key_scope_missing',
    );
    // Nothing was written by the refused calls.
    expect((await withKey<{ contextKeys: string[] }>(agent, reader.key, '/contexts/keys')).body.contextKeys).toHaveLength(2);
  });

  it('unknown and malformed keys are 401 key_invalid; an expired key 401 key_expired; a revoked one 401 key_revoked on the very next request', async () => {
    const agent = await freshAgent(testnet);
    expectError(await withKey(agent, `agk_${'b'.repeat(32)}`, '/contexts/keys'), 401, 'key_invalid');
    expectError(await withKey(agent, 'agk_short', '/contexts/keys'), 401, 'key_invalid');
    expectError(await withKey(agent, `agk_${'B'.repeat(32)}`, '/contexts/keys'), 401, 'key_invalid');

    const expiring = await createKey(agent, ['contexts:read'], { expiresInSeconds: 60 });
    expect((await withKey(agent, expiring.key, '/contexts/keys')).status).toBe(200);
    await sql(stack.databaseUrl, `update "gateway"."agent_keys" set expires_at = now() - interval '1 second' where id = $1`, [expiring.id]);
    expectError(await withKey(agent, expiring.key, '/contexts/keys'), 401, 'key_expired');

    const revoked = await createKey(agent, ['contexts:read']);
    expect((await withKey(agent, revoked.key, '/contexts/keys')).status).toBe(200);
    expect((await agent.call(`/keys/${revoked.id}`, { method: 'DELETE' })).status).toBe(200);
    expectError(await withKey(agent, revoked.key, '/contexts/keys'), 401, 'key_revoked');
    // A bad key is refused before anything is said about the agent.
    expectError(
      await call(testnet.baseUrl, `/agent/${testnet.collection}/999999999999999/contexts/keys`, { token: revoked.key }),
      401,
      'key_revoked',
    );
  });

  it('works on its own agent only: another agent of the same owner, and the other chain, are 403 key_wrong_agent', async () => {
    const agent = await freshAgent(testnet);
    const [sibling, onMainnet] = await Promise.all([
      freshAgent(testnet, { owner: agent.owner, token: agent.token }),
      freshAgent(mainnet, { owner: agent.owner }),
    ]);
    const { key } = await createKey(agent, ['contexts:read']);
    expect((await withKey(agent, key, '/contexts/keys')).status).toBe(200);
    expectError(await withKey(sibling, key, '/contexts/keys'), 403, 'key_wrong_agent');
    expectError(await withKey(onMainnet, key, '/contexts/keys'), 403, 'key_wrong_agent');
    // The same collection address and token id on the other deployment is still another agent.
    const sameIds = await call(mainnet.baseUrl, `/agent/${agent.collection}/${agent.tokenId}/contexts/keys`, { token: key });
    expectError(sameIds, 403, 'key_wrong_agent');
  });

  it('records use off the request path: last used and a count', async () => {
    const agent = await freshAgent(testnet);
    const created = await createKey(agent, ['contexts:read']);
    const before = Date.now();
    expect((await withKey(agent, created.key, '/contexts/keys')).status).toBe(200);
    await eventually(async () => (await keyRow(created.id)).use_count !== '0');
    const [listed] = (await agent.call<{ keys: { lastUsedAt: string | null; useCount: number }[] }>('/keys')).body.keys;
    expect(listed?.useCount).toBe(1);
    expect(Date.parse(listed?.lastUsedAt ?? '')).toBeGreaterThanOrEqual(before - 1_000);
    // Refused requests are not uses.
    expectError(await withKey(agent, created.key, '/context', { method: 'POST', json: { key: 'k-1' } }), 403, 'key_scope_missing');
  });
});
