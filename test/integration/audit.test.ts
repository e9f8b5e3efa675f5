/**
 * The audit trail (issue 24): one entry per administrative change and per tool call
 * that ran (direct, or in a reply by the owner or by an agent key), with the right actor, action,
 * target and outcome; a tool call's arguments only as their SHA-256; no secret in any stored entry;
 * none for refused requests or reads; `GET …/audit` newest first, paged by an opaque cursor, for the
 * owner's wallet only. The worker accepts loopback targets (as `npm run dev` does): the stand-in
 * model, the tool servers and a second database in the embedded Postgres, all on loopback.
 */
import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type StandinLlm, startStandinLlm } from '../../scripts/lib/standin-llm';
import { freshAgent, seg, type TestAgent } from '../support/agent';
import { createKey, withKey } from '../support/agent-keys';
import { call, errorCode, expectError, type JsonResponse } from '../support/http';
import { agentPath } from '../support/login';
import { startPlainServer, type TestServer } from '../support/mcp-servers';
import { closePg, sql } from '../support/pg';
import { loopbackWorker } from '../support/loopback-worker';
import { replyAgent, startSwitchableTools } from '../support/replies';

const stack = inject('stack');
const API_KEY = `sk-standin-${crypto.randomUUID()}`;
const HEADER_VALUE = `plain-key-${crypto.randomUUID()}`;
const BEARER = `switch-bearer-${crypto.randomUUID()}`;
const PRIVATE_ARG = `private-argument-${crypto.randomUUID()}`;
const database = `audit_${randomBytes(4).toString('hex')}`;
const dbUser = `audit_reader_${randomBytes(4).toString('hex')}`;
const dbPassword = `pw-${randomBytes(8).toString('hex')}`;

let llm: StandinLlm;
let plain: TestServer;
let switchable: Awaited<ReturnType<typeof startSwitchableTools>>;
let worker: Awaited<ReturnType<typeof loopbackWorker>>;

interface Entry {
  id: string;
  at: string;
  actor: { wallet: string } | { keyId: string };
  action: string;
  target: Record<string, string>;
  outcome: string;
  durationMs?: number;
  argumentsSha256?: string;
}

async function admin(db: string, statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: stack.postgresAdminUrl.replace(/\/postgres$/, `/${db}`) });
  await client.connect();
  try {
    for (const s of statements) await client.query(s);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  [llm, plain, switchable] = await Promise.all([
    startStandinLlm({ apiKey: API_KEY }),
    startPlainServer({ apiKey: HEADER_VALUE }),
    startSwitchableTools(),
  ]);
  worker = await loopbackWorker(stack, { MCP_TIMEOUT_MS: '1500', LLM_TIMEOUT_MS: '1500' });
  await admin('postgres', [`create role "${dbUser}" login password '${dbPassword}'`, `create database "${database}"`]);
  await admin(database, ['create table public.orders (id int primary key)', `grant select on public.orders to "${dbUser}"`]);
});

afterAll(async () => {
  await worker?.dispose();
  await Promise.all([llm?.close(), plain?.close(), switchable?.close(), closePg()]);
  await admin('postgres', [`drop database if exists "${database}" with (force)`, `drop role if exists "${dbUser}"`]);
});

/** Every entry of the agent, newest first, walking the pages. */
async function allEntries(agent: TestAgent, limit = 100): Promise<Entry[]> {
  const entries: Entry[] = [];
  let cursor: string | null = null;
  do {
    const res: JsonResponse<{ entries: Entry[]; nextCursor: string | null }> = await agent.call(
      `/audit?limit=${limit}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
    );
    expect(res.status, res.text).toBe(200);
    entries.push(...res.body.entries);
    cursor = res.body.nextCursor;
  } while (cursor !== null);
  return entries;
}

/** The agent's stored rows, each as the JSON text Postgres makes of the whole row. */
async function storedRows(agent: TestAgent): Promise<string[]> {
  const rows = await sql<{ row: string }>(
    stack.databaseUrl,
    `select row_to_json(a)::text as row from gateway.audit_log a where chain_id = $1 and collection = $2 and token_id = $3`,
    [agent.deployment.chainId, agent.collection.toLowerCase(), agent.tokenId.toString()],
  );
  return rows.map((r) => r.row);
}

const sha256 = (args: unknown) => createHash('sha256').update(JSON.stringify(args)).digest('hex');
const wallet = (agent: TestAgent) => ({ wallet: agent.owner.address.toLowerCase() });

describe('the audit trail', () => {
  it('each administrative change is one entry (actor, action, target, ok), newest first; reads write none', async () => {
    const agent = await replyAgent(worker.deployment, API_KEY, { baseUrl: `${llm.origin}/v1` });
    const put = await agent.call('/prompt-template/persona', { method: 'POST', json: { template: 'You are {{name}}.' } });
    expect(put.status, put.text).toBe(200);
    const first = await agent.call('/database/settings/first-step', {
      method: 'POST',
      json: {
        host: '127.0.0.1',
        port: Number(new URL(stack.postgresAdminUrl).port),
        database,
        user: dbUser,
        password: dbPassword,
        ssl: 'disable',
      },
    });
    expect(first.status, first.text).toBe(200);
    const setupId = first.body.setupId as string;
    const second = await agent.call('/database/settings/second-step', { method: 'POST', json: { setupId, tables: ['public.orders'] } });
    expect(second.status, second.text).toBe(200);
    const added = await agent.call('/mcp/connection', {
      method: 'POST',
      json: { url: plain.url, auth: { type: 'header', headerName: 'x-api-key', value: HEADER_VALUE } },
    });
    expect(added.status, added.text).toBe(200);
    const connectionId = added.body.id as string;
    const rotated = await agent.call(`/mcp/connection/${connectionId}/auth`, {
      method: 'PUT',
      json: { auth: { type: 'header', headerName: 'x-api-key', value: HEADER_VALUE } },
    });
    expect(rotated.status, rotated.text).toBe(200);
    const key = await createKey(agent, ['reply']);
    expect((await agent.call(`/keys/${key.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await agent.call(`/mcp/connection/${connectionId}`, { method: 'DELETE' })).status).toBe(200);
    // Reads: none of these is an entry.
    for (const read of ['/llm/settings', '/prompt-template/persona', '/database/settings', '/mcp/connections', '/keys', '/audit']) {
      expect((await agent.call(read)).status, read).toBe(200);
    }

    const entries = await allEntries(agent);
    expect(entries.map((e) => [e.action, e.target, e.outcome])).toEqual([
      ['mcp_connection.remove', { connectionId }, 'ok'],
      ['agent_key.revoke', { keyId: key.id }, 'ok'],
      ['agent_key.create', { keyId: key.id }, 'ok'],
      ['mcp_credentials.set', { connectionId }, 'ok'],
      ['mcp_connection.add', { connectionId }, 'ok'],
      ['database.activate', { setupId }, 'ok'],
      ['database.setup', { setupId }, 'ok'],
      ['prompt_template.put', { templateKey: 'persona' }, 'ok'],
      ['llm_settings.set', { provider: 'openai-compatible', model: 'stand-in' }, 'ok'],
    ]);
    for (const e of entries) {
      expect(e.actor).toEqual(wallet(agent));
      expect(e.durationMs).toBeUndefined();
      expect(e.argumentsSha256).toBeUndefined();
      expect(Number.isNaN(Date.parse(e.at))).toBe(false);
    }
    expect(entries.map((e) => BigInt(e.id))).toEqual(entries.map((e) => BigInt(e.id)).sort((a, b) => (a > b ? -1 : a < b ? 1 : 0)));
    // Adding a tool server with its credential is one entry, and no stored entry holds a secret.
    const rows = await storedRows(agent);
    expect(rows).toHaveLength(entries.length);
    for (const secret of [API_KEY, HEADER_VALUE, dbPassword, key.key, agent.token]) {
      for (const row of rows) expect(row).not.toContain(secret);
    }
  });

  it('a direct tool call that ran is one entry with the SHA-256 of its arguments, never the arguments; one refused is none', async () => {
    const agent = await freshAgent(worker.deployment);
    const good = await agent.call('/mcp/connection', {
      method: 'POST',
      json: { url: plain.url, auth: { type: 'header', headerName: 'x-api-key', value: HEADER_VALUE } },
    });
    const failing = await agent.call('/mcp/connection', {
      method: 'POST',
      json: { url: switchable.url, name: 'switch', auth: { type: 'bearer', value: BEARER } },
    });
    expect([good.status, failing.status], `${good.text} ${failing.text}`).toEqual([200, 200]);
    const args = { text: PRIVATE_ARG };
    const ok = await agent.call(`/mcp/connection/${good.body.id}/tools/call`, { method: 'POST', json: { name: 'echo', arguments: args } });
    expect(ok.status, ok.text).toBe(200);
    // Refused before any tool server hears of it: arguments off the schema, an unknown tool.
    expectError(
      await agent.call(`/mcp/connection/${good.body.id}/tools/call`, { method: 'POST', json: { name: 'echo', arguments: { text: 1 } } }),
      400,
      'invalid_tool_arguments',
    );
    expect((await agent.call(`/mcp/connection/${good.body.id}/tools/call`, { method: 'POST', json: { name: 'nope' } })).status).toBe(404);
    // Ran and failed: the server answers 500.
    switchable.state.mode = '500';
    const failed = await agent.call(`/mcp/connection/${failing.body.id}/tools/call`, {
      method: 'POST',
      json: { name: 'echo', arguments: { text: 'x' } },
    });
    switchable.state.mode = 'good';
    expect(failed.status).toBeGreaterThanOrEqual(400);

    const calls = (await allEntries(agent)).filter((e) => e.action === 'tool.call');
    expect(calls.map((e) => [e.target, e.outcome, e.argumentsSha256])).toEqual([
      [{ tool: 'echo', connectionId: failing.body.id }, errorCode(failed), sha256({ text: 'x' })],
      [{ tool: 'echo', connectionId: good.body.id }, 'ok', sha256(args)],
    ]);
    for (const e of calls) {
      expect(e.actor).toEqual(wallet(agent));
      expect(e.durationMs).toBeGreaterThanOrEqual(0);
    }
    for (const row of await storedRows(agent)) {
      for (const secret of [PRIVATE_ARG, HEADER_VALUE, BEARER, agent.token]) expect(row).not.toContain(secret);
    }
  });

  it("a reply's tool calls are entries of whoever asked: the owner's wallet, or the agent key's id", async () => {
    const agent = await replyAgent(worker.deployment, API_KEY, { baseUrl: `${llm.origin}/v1` });
    const reg = await agent.call('/mcp/connection', {
      method: 'POST',
      json: { url: plain.url, auth: { type: 'header', headerName: 'x-api-key', value: HEADER_VALUE } },
    });
    expect(reg.status, reg.text).toBe(200);
    const byOwner = await agent.reply({ message: `please use tool echo ${PRIVATE_ARG}`, memoryTools: false });
    expect(byOwner.status, byOwner.text).toBe(200);
    expect(byOwner.body.steps).toHaveLength(1);
    const bridge = await createKey(agent, ['reply']);
    const byKey = await withKey(agent, bridge.key, `/context/${seg('chat')}/reply`, {
      method: 'POST',
      json: { message: 'please use tool echo from the bridge', memoryTools: false },
    });
    expect(byKey.status, byKey.text).toBe(200);
    expect(byKey.body.steps).toHaveLength(1);

    const calls = (await allEntries(agent)).filter((e) => e.action === 'tool.call');
    expect(calls.map((e) => [e.actor, e.target, e.outcome, e.argumentsSha256])).toEqual([
      [{ keyId: bridge.id }, { tool: 'echo', connectionId: reg.body.id }, 'ok', sha256(byKey.body.steps[0].arguments)],
      [wallet(agent), { tool: 'echo', connectionId: reg.body.id }, 'ok', sha256(byOwner.body.steps[0].arguments)],
    ]);
    expect(JSON.stringify(byOwner.body.steps[0].arguments)).toContain(PRIVATE_ARG);
    for (const row of await storedRows(agent)) {
      for (const secret of [PRIVATE_ARG, HEADER_VALUE, API_KEY, bridge.key, agent.token]) expect(row).not.toContain(secret);
    }

    // A memory read in a reply is no entry (reads never are): the trail does not grow per read.
    const before = await allEntries(agent);
    const memory = await agent.reply({ message: 'please use tool memory_search echo' });
    expect(memory.status, memory.text).toBe(200);
    expect(memory.body.steps.map((step: { tool: string }) => step.tool)).toEqual(['memory_search']);
    expect(await allEntries(agent)).toEqual(before);
  });

  it('pages newest first by an opaque cursor; a malformed cursor or limit is 400 validation_failed', async () => {
    const agent = await freshAgent(worker.deployment);
    for (let i = 0; i < 5; i++) {
      expect((await agent.call(`/prompt-template/t${i}`, { method: 'POST', json: { template: `template ${i}` } })).status).toBe(200);
    }
    const whole = await allEntries(agent);
    expect(whole.map((e) => e.target.templateKey)).toEqual(['t4', 't3', 't2', 't1', 't0']);
    const first = await agent.call('/audit?limit=2');
    expect(first.body.entries.map((e: Entry) => e.target.templateKey)).toEqual(['t4', 't3']);
    expect(typeof first.body.nextCursor).toBe('string');
    expect(await allEntries(agent, 2)).toEqual(whole);
    const last = await agent.call(`/audit?limit=5`);
    expect(last.body.nextCursor).toBeNull();
    expect((await agent.call('/audit')).body.entries).toHaveLength(5);
    for (const bad of ['cursor=not-a-cursor', `cursor=${btoa('a1.0')}`, `cursor=${btoa('s1:1:2:3')}`, 'limit=0', 'limit=101', 'limit=x']) {
      expectError(await agent.call(`/audit?${bad}`), 400, 'validation_failed');
    }
  });

  it('a stranger is 403 not_owner and an agent key 403 key_not_allowed; refused requests write nothing', async () => {
    const agent = await freshAgent(worker.deployment);
    const stranger = await freshAgent(worker.deployment);
    const key = await createKey(agent, ['contexts:read', 'contexts:write', 'reply']);
    const before = await storedRows(agent);
    expect(before).toHaveLength(1); // the key's creation
    const asStranger = (rest: string, init: Parameters<typeof call>[2] = {}) =>
      call(worker.deployment.baseUrl, agentPath(agent.collection, agent.tokenId, rest), { ...init, token: stranger.token });

    expectError(await asStranger('/audit'), 403, 'not_owner');
    expectError(await withKey(agent, key.key, '/audit'), 403, 'key_not_allowed');
    expectError(await asStranger('/prompt-template/x', { method: 'POST', json: { template: 't' } }), 403, 'not_owner');
    expectError(await withKey(agent, key.key, '/prompt-template/x', { method: 'POST', json: { template: 't' } }), 403, 'key_not_allowed');
    expectError(await withKey(agent, key.key, '/keys', { method: 'POST', json: { name: 'n', scopes: ['reply'] } }), 403, 'key_not_allowed');
    expectError(await asStranger(`/keys/${key.id}`, { method: 'DELETE' }), 403, 'not_owner');
    expectError(await agent.call('/prompt-template/x', { method: 'POST', json: { template: '' } }), 400, 'validation_failed');
    expectError(await agent.call('/llm/settings', { method: 'POST', json: { provider: 'openai' } }), 400, 'validation_failed');
    expectError(await agent.call(`/keys/${crypto.randomUUID()}`, { method: 'DELETE' }), 404, 'agent_key_not_found');
    expectError(await agent.call(`/mcp/connection/${crypto.randomUUID()}`, { method: 'DELETE' }), 404, 'mcp_connection_not_found');
    const noAuth = await call(worker.deployment.baseUrl, agentPath(agent.collection, agent.tokenId, '/prompt-template/x'), {
      method: 'POST',
      json: { template: 't' },
    });
    expect(noAuth.status).toBe(401);
    expect(await storedRows(agent)).toEqual(before);
  });
});
