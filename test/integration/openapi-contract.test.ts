/**
 * The OpenAPI document against the running gateway: a realistic request set (every operation's
 * success and its 400/401/403/404/405/409/413/415/424/429 paths where they can be reached) is replayed
 * on a real worker (Miniflare, Postgres, anvil, a loopback tool server and database), and every
 * answer is checked against the document the same worker serves (test/support/openapi-contract).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type StandinLlm, startStandinLlm } from '../../scripts/lib/standin-llm';
import { agentSchemaName } from '../../src/storage/agent-storage';
import type { SqlClient } from '../../src/storage/sql-client';
import { storeSummary } from '../../src/summaries/summaries.service';
import { freshAgent, seg, type TestAgent } from '../support/agent';
import { newWallet, transferFreshAgent } from '../support/chain';
import { call, type JsonResponse } from '../support/http';
import { agentPath, initLogin, login } from '../support/login';
import { loopbackWorker } from '../support/loopback-worker';
import { startPlainServer, type TestServer } from '../support/mcp-servers';
import { approve } from '../support/oauth-flow';
import { startOAuthToolServer } from '../support/oauth-tool-server';
import { contractChecker, type Exchange, type OpenApiDocument } from '../support/openapi-contract';
import { earlyInWindow } from '../support/rate-limits';
import { fundUsdc, signPayment } from '../support/x402';

const stack = inject('stack');
const API_KEY = `key-${randomBytes(6).toString('hex')}`;
// A second database in the embedded Postgres, with its own reader role, stands in for an external one.
const database = `contract_${randomBytes(4).toString('hex')}`;
const user = `reader_${randomBytes(4).toString('hex')}`;
const password = `pw-${randomBytes(8).toString('hex')}`;
const target = { host: '127.0.0.1', port: Number(new URL(stack.postgresAdminUrl).port), database, user, password, ssl: 'disable' };

let worker: Awaited<ReturnType<typeof loopbackWorker>>;
let tools: TestServer;
let llmServer: StandinLlm;
const exchanges: Exchange[] = [];

async function admin(db: string, statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: stack.postgresAdminUrl.replace(/\/postgres$/, `/${db}`) });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Sends a request to the worker and records it with its answer. */
async function send(method: string, path: string, init: Parameters<typeof call>[2] = {}): Promise<JsonResponse> {
  const res = await call(worker.url, path, { method, ...init });
  exchanges.push({ method, path, res });
  return res;
}

/** The same for an agent path of `agent`, with its owner's token unless given. */
const onAgent = (agent: TestAgent, method: string, rest: string, init: Parameters<typeof call>[2] = {}) =>
  send(method, agentPath(agent.collection, agent.tokenId, rest), { token: agent.token, ...init });

beforeAll(async () => {
  worker = await loopbackWorker(stack);
  tools = await startPlainServer({ apiKey: API_KEY });
  llmServer = await startStandinLlm();
  await admin('postgres', [`create role "${user}" login password '${password}'`, `create database "${database}"`]);
  await admin(database, ['create table public.orders (id int primary key)', `grant select on public.orders to "${user}"`]);
});

afterAll(async () => {
  await tools?.close();
  await llmServer?.close();
  await worker?.dispose();
  await admin('postgres', [`drop database if exists "${database}" with (force)`, `drop role if exists "${user}"`]);
});

describe('the gateway answers as its OpenAPI document says', () => {
  it('replays the request set; every answer conforms, and every operation succeeded at least once', async () => {
    const deployment = worker.deployment;
    const chainId = deployment.chainId;

    // Operations and login.
    expect((await send('GET', '/health')).status).toBe(200);
    expect((await send('HEAD', '/health')).status).toBe(200);
    expect((await send('DELETE', '/health')).status).toBe(405);
    const wallet = newWallet();
    expect((await send('POST', '/auth/jwt/init', { json: { walletAddress: wallet.address, chainId } })).status).toBe(200);
    expect((await send('POST', '/auth/jwt/init', { json: { walletAddress: '0x123', chainId } })).status).toBe(400);
    expect(
      (await send('POST', '/auth/jwt/init', { body: '{"walletAddress":', headers: { 'content-type': 'application/json' } })).status,
    ).toBe(400);
    expect((await send('POST', '/auth/jwt/init', { body: 'hello', headers: { 'content-type': 'text/plain' } })).status).toBe(415);
    expect(
      (await send('POST', '/auth/jwt/init', { json: { walletAddress: wallet.address, chainId, pad: 'x'.repeat(1_100_000) } })).status,
    ).toBe(413);
    expect((await send('GET', '/auth/jwt/init')).status).toBe(405);
    const { message, nonce } = await initLogin(deployment, wallet.address);
    const signature = await wallet.signMessage({ message });
    expect(
      (await send('POST', '/auth/jwt/finish', { json: { walletAddress: wallet.address, chainId, signature: `0x${'ab'.repeat(65)}` } }))
        .status,
    ).toBe(401);
    expect((await send('POST', '/auth/jwt/finish', { json: { walletAddress: wallet.address, chainId, signature, nonce } })).status).toBe(
      200,
    );
    const pairing = await initLogin(deployment, wallet.address, deployment.baseUrl, 'pairing');
    const verify = {
      walletAddress: wallet.address,
      chainId,
      message: pairing.message,
      signature: await wallet.signMessage({ message: pairing.message }),
    };
    expect((await send('POST', '/wallet/verify', { json: verify })).status).toBe(200);
    expect((await send('POST', '/wallet/verify', { json: verify })).status).toBe(401);

    // The three gates.
    const agent = await freshAgent(deployment);
    const stranger = await freshAgent(deployment);
    expect((await onAgent(agent, 'GET', '')).status).toBe(200);
    expect((await onAgent(agent, 'GET', '', { token: '' })).status).toBe(401);
    expect((await onAgent(agent, 'GET', '', { token: stranger.token })).status).toBe(403);
    expect((await send('GET', agentPath(agent.collection, 'abc'), { token: agent.token })).status).toBe(400);
    expect((await send('GET', agentPath(newWallet().address, 1n), { token: agent.token })).status).toBe(404);
    expect((await onAgent(agent, 'GET', '/prompt-template/a%00b')).status).toBe(400);

    // The wallet's own tokens of a collection (the dashboard's picker).
    const ownedTokens = (collection: string, token = agent.token) => send('GET', `/wallet/collections/${collection}/tokens`, { token });
    expect((await ownedTokens(agent.collection)).status).toBe(200);
    expect((await ownedTokens('0x1234')).status).toBe(400);
    expect((await ownedTokens(agent.collection, '')).status).toBe(401);
    expect((await ownedTokens(newWallet().address)).status).toBe(404);
    // The collections registered on the deployment (the picker's start).
    expect((await send('GET', '/collections', { token: agent.token })).status).toBe(200);
    expect((await send('GET', '/collections', { token: '' })).status).toBe(401);

    // Contexts and messages.
    expect((await onAgent(agent, 'GET', '/contexts/keys')).status).toBe(200);
    expect((await onAgent(agent, 'POST', '/context', { json: { key: 'notes' } })).status).toBe(200);
    expect((await onAgent(agent, 'POST', '/context', { json: { key: 'notes' } })).status).toBe(400);
    expect(
      (await onAgent(agent, 'POST', '/contexts', { json: { keys: ['notes', 'people/ann', 'x', 'conversation-context-discovery/a'] } }))
        .status,
    ).toBe(200);
    expect((await onAgent(agent, 'GET', '/contexts/keys?page=1&elementsPerPage=500&sortDirection=desc')).status).toBe(200);
    expect((await onAgent(agent, 'GET', '/contexts/keys?page=0')).status).toBe(400);
    expect((await onAgent(agent, 'GET', '/contexts/keys?after=notes&elementsPerPage=1')).status).toBe(200);
    expect((await onAgent(agent, 'GET', '/contexts/keys?after=x')).status).toBe(400);
    expect((await onAgent(agent, 'GET', '/contexts/keys?after=notes&page=2')).status).toBe(400);
    expect((await onAgent(agent, 'PUT', '/contexts/keys')).status).toBe(405);
    const once = { 'idempotency-key': `contract-${randomBytes(4).toString('hex')}` };
    expect(
      (await onAgent(agent, 'POST', `/context/${seg('notes')}/message`, { json: { role: 'user', message: 'hello' }, headers: once }))
        .status,
    ).toBe(200);
    const replay = await onAgent(agent, 'POST', `/context/${seg('notes')}/message`, {
      json: { role: 'user', message: 'hello' },
      headers: once,
    });
    expect([replay.status, replay.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
    expect(
      (await onAgent(agent, 'POST', `/context/${seg('notes')}/message`, { json: { role: 'user', message: 'other' }, headers: once }))
        .status,
    ).toBe(400);
    expect((await onAgent(agent, 'POST', `/context/${seg('missing')}/message`, { json: { role: 'user', message: 'hello' } })).status).toBe(
      404,
    );
    const batch = {
      messages: [
        { role: 'user', message: 'one' },
        { role: 'assistant', message: 'two' },
      ],
    };
    expect((await onAgent(agent, 'POST', `/context/${seg('notes')}/messages`, { json: batch })).status).toBe(200);
    expect((await onAgent(agent, 'POST', `/context/${seg('notes')}/messages`, { json: { messages: [] } })).status).toBe(400);
    expect((await onAgent(agent, 'GET', `/context/${seg('notes')}/messages?limit=2`)).status).toBe(200);
    expect((await onAgent(agent, 'GET', `/context/${seg('notes')}/messages`)).status).toBe(200);
    expect((await onAgent(agent, 'GET', `/context/${seg('missing')}/messages`)).status).toBe(404);
    // A context's summary (written by replies that trimmed; stored here through the store's own function).
    expect((await onAgent(agent, 'GET', `/context/${seg('notes')}/summary`)).status).toBe(404);
    expect((await onAgent(agent, 'GET', `/context/${seg('missing')}/summary`)).status).toBe(404);
    const read = (await onAgent(agent, 'GET', `/context/${seg('notes')}/messages`)).body as { messages: { id: number }[] };
    const ids = read.messages.map((m) => m.id);
    const schema = await agentSchemaName({ chainId, collection: getAddress(agent.collection), tokenId: agent.tokenId });
    const pool = new pg.Pool({ connectionString: stack.databaseUrl, max: 1 });
    try {
      await storeSummary(pool as unknown as SqlClient, schema, {
        contextKey: 'notes',
        summary: 'one, two',
        fromId: ids[0]!,
        toId: ids[1]!,
      });
    } finally {
      await pool.end();
    }
    expect((await onAgent(agent, 'GET', `/context/${seg('notes')}/summary`)).status).toBe(200);
    // Memory search: hits with their scores and a cursor; an empty query and a foreign cursor are 400.
    const searched = await onAgent(agent, 'POST', '/memory/search', { json: { query: 'two', limit: 1 } });
    expect(searched.status).toBe(200);
    expect(
      (await onAgent(agent, 'POST', '/memory/search', { json: { query: 'one or two', contextPrefix: 'no', roles: ['user'] } })).status,
    ).toBe(200);
    expect((await onAgent(agent, 'POST', '/memory/search', { json: { query: '' } })).status).toBe(400);
    expect((await onAgent(agent, 'POST', '/memory/search', { json: { query: 'two', cursor: 'nope' } })).status).toBe(400);

    // Agent keys: managed with the owner's token; a key on its scoped routes only.
    const madeKey = await onAgent(agent, 'POST', '/keys', {
      json: { name: 'contract', scopes: ['contexts:read'], expiresInSeconds: 3600 },
    });
    expect(madeKey.status, madeKey.text).toBe(200);
    const agentKey = madeKey.body as { id: string; key: string };
    expect((await onAgent(agent, 'POST', '/keys', { json: { name: 'x', scopes: ['admin'] } })).status).toBe(400);
    expect((await onAgent(agent, 'GET', '/keys')).status).toBe(200);
    expect((await onAgent(agent, 'GET', '/contexts/keys', { token: agentKey.key })).status).toBe(200);
    expect((await onAgent(agent, 'POST', '/context', { json: { key: 'by-key' }, token: agentKey.key })).status).toBe(403);
    expect((await onAgent(agent, 'GET', '/keys', { token: agentKey.key })).status).toBe(403);
    expect((await ownedTokens(agent.collection, agentKey.key)).status).toBe(403);
    expect((await onAgent(agent, 'DELETE', `/keys/${agentKey.id}`)).status).toBe(200);
    expect((await onAgent(agent, 'DELETE', `/keys/${agentKey.id}`)).status).toBe(404);
    expect((await onAgent(agent, 'GET', '/contexts/keys', { token: agentKey.key })).status).toBe(401);

    // Settings.
    expect((await onAgent(agent, 'GET', '/llm/settings')).status).toBe(404);
    const reply = (json: unknown) => onAgent(agent, 'POST', `/context/${seg('notes')}/reply`, { json });
    expect((await reply({ message: 'hello there' })).status).toBe(409);
    const llm = { provider: 'openai', model: 'gpt-4.1-mini', temperature: 0.3, maxTokens: 1000, apiKey: 'sk-contract' };
    expect((await onAgent(agent, 'POST', '/llm/settings', { json: llm })).status).toBe(200);
    expect((await onAgent(agent, 'POST', '/llm/settings', { json: { ...llm, temperature: 9 } })).status).toBe(400);
    expect((await onAgent(agent, 'GET', '/llm/settings')).status).toBe(200);
    expect((await onAgent(agent, 'GET', '/prompt-template/system')).status).toBe(404);
    expect((await onAgent(agent, 'POST', '/prompt-template/system', { json: { template: 'You are {{name}}.' } })).status).toBe(200);
    expect((await onAgent(agent, 'GET', '/prompt-template/system')).status).toBe(200);
    expect((await onAgent(agent, 'GET', '/prompt-templates?limit=1')).status).toBe(200);
    expect((await onAgent(agent, 'GET', '/prompt-templates?cursor=not-ours')).status).toBe(400);
    // A reply on the stand-in model, on loopback as the dev stack accepts it.
    const standin = { ...llm, provider: 'openai-compatible', model: 'stand-in', baseUrl: llmServer.baseUrl };
    expect((await onAgent(agent, 'POST', '/llm/settings', { json: { ...standin, baseUrl: 'http://10.0.0.1/v1' } })).status).toBe(400);
    expect((await onAgent(agent, 'POST', '/llm/settings', { json: standin })).status).toBe(200);
    expect((await reply({ message: 'hello there', promptTemplateKey: 'system', variables: { name: 'Ada' } })).status).toBe(200);
    expect((await reply({ promptTemplateKey: 'system' })).status).toBe(400);
    expect((await reply({ promptTemplateKey: 'absent' })).status).toBe(404);
    // The same reply in OpenAI's shape (its context created on first use); no user message is 400.
    const chat = (json: unknown) => onAgent(agent, 'POST', '/v1/chat/completions', { json });
    expect((await chat({ model: 'x', user: 'openai-chat', messages: [{ role: 'user', content: 'hello there' }] })).status).toBe(200);
    expect((await chat({ model: 'x', messages: [{ role: 'system', content: 'no question' }] })).status).toBe(400);
    // Usage: the reply's tokens, grouped; a bad range is 400; a limit reached is 429 with Retry-After.
    expect((await onAgent(agent, 'GET', '/usage?groupBy=context')).status).toBe(200);
    // The agent's MCP server: a JSON-RPC answer, a notification (202), no credential (401 and its challenge), a wrong Accept.
    const mcp = (json: unknown, init: Parameters<typeof call>[2] = {}) =>
      onAgent(agent, 'POST', '/mcp', { json, headers: { accept: 'application/json, text/event-stream' }, ...init });
    expect((await mcp({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).status).toBe(200);
    expect((await mcp({ jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
    expect((await mcp({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { token: undefined })).status).toBe(401);
    expect((await mcp({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, { headers: { accept: 'application/json' } })).status).toBe(406);
    // The agent to other agents (A2A JSON-RPC): a task, a JSON-RPC error (HTTP 200), no credential (401).
    const a2a = (json: unknown, init: Parameters<typeof call>[2] = {}) => onAgent(agent, 'POST', '/a2a', { json, ...init });
    const a2aSend = {
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hello there' }] } },
    };
    expect((await a2a(a2aSend)).status).toBe(200);
    expect((await a2a({ jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id: 'none' } })).status).toBe(200);
    expect((await a2a(a2aSend, { token: undefined })).status).toBe(401);
    // Paid replies (x402): the terms (402), a paid reply (200 with PAYMENT-RESPONSE), a bad body (400), no price (404).
    expect((await onAgent(agent, 'POST', '/llm/settings', { json: { ...standin, pricing: { askUsd: '0.01' } } })).status).toBe(200);
    const paidAsk = (json: unknown, headers: Record<string, string> = {}) =>
      onAgent(agent, 'POST', '/paid/ask', { json, headers, token: undefined });
    const unpaid = await paidAsk({ message: 'paid hello' });
    expect(unpaid.status).toBe(402);
    const payer = newWallet();
    await fundUsdc(stack.testnet.rpcUrl, stack.testnet.chainId, [payer.address], 1_000_000n);
    const paid = await paidAsk({ message: 'paid hello' }, await signPayment(payer.privateKey, unpaid.headers));
    expect(paid.status, paid.text).toBe(200);
    expect((await paidAsk({})).status).toBe(400);
    expect((await onAgent(agent, 'POST', '/llm/settings', { json: { ...standin, pricing: null } })).status).toBe(200);
    expect((await paidAsk({ message: 'no price now' })).status).toBe(404);
    expect((await onAgent(agent, 'GET', '/usage?from=2026-01-02&to=2026-01-01')).status).toBe(400);
    expect((await onAgent(agent, 'POST', '/llm/settings', { json: { ...standin, limits: { tokensPerDay: 1 } } })).status).toBe(200);
    expect((await reply({ message: 'over the limit' })).status).toBe(429);
    expect((await chat({ messages: [{ role: 'user', content: 'over the limit' }] })).status).toBe(429);
    expect((await a2a(a2aSend)).status).toBe(429);
    expect((await onAgent(agent, 'POST', '/llm/settings', { json: { ...standin, limits: {} } })).status).toBe(200);
    expect((await onAgent(agent, 'GET', '/database/settings')).status).toBe(200); // none active: null
    expect((await onAgent(agent, 'POST', '/database/settings/first-step', { json: { ...target, host: 'db.internal' } })).status).toBe(400);
    const first = await onAgent(agent, 'POST', '/database/settings/first-step', { json: target });
    expect(first.status, first.text).toBe(200);
    const setupId = (first.body as { setupId: string }).setupId;
    expect((await onAgent(agent, 'POST', '/database/settings/second-step', { json: { setupId, tables: ['public.orders'] } })).status).toBe(
      200,
    );
    expect(
      (await onAgent(agent, 'POST', '/database/settings/second-step', { json: { setupId: randomUUID(), tables: ['public.orders'] } }))
        .status,
    ).toBe(404);
    expect((await onAgent(agent, 'GET', '/database/settings')).status).toBe(200);

    // Tool servers.
    const auth = { type: 'header', headerName: 'x-api-key', value: API_KEY };
    expect((await onAgent(agent, 'POST', '/mcp/connection', { json: { url: 'https://10.0.0.1/mcp', auth } })).status).toBe(400);
    const added = await onAgent(agent, 'POST', '/mcp/connection', { json: { url: tools.url, name: 'plain', auth } });
    expect(added.status, added.text).toBe(200);
    const id = (added.body as { id: string }).id;
    expect((await onAgent(agent, 'GET', '/mcp/connections')).status).toBe(200);
    expect((await onAgent(agent, 'GET', `/mcp/connection/${id}/tools`)).status).toBe(200);
    expect(
      (await onAgent(agent, 'POST', `/mcp/connection/${id}/tools/call`, { json: { name: 'echo', arguments: { text: 'hi' } } })).status,
    ).toBe(200);
    expect(
      (await onAgent(agent, 'POST', `/mcp/connection/${id}/tools/call`, { json: { name: 'echo', arguments: { text: 5 } } })).status,
    ).toBe(400);
    expect((await onAgent(agent, 'POST', `/mcp/connection/${id}/tools/call`, { json: { name: 'nope', arguments: {} } })).status).toBe(404);
    expect((await onAgent(agent, 'PUT', `/mcp/connection/${id}/auth`, { json: { auth } })).status).toBe(200);
    expect((await onAgent(agent, 'PUT', `/mcp/connection/${id}/auth`, { json: { auth: { ...auth, value: 'wrong' } } })).status).toBe(400);
    expect((await onAgent(agent, 'DELETE', `/mcp/connection/${id}`)).status).toBe(200);
    expect((await onAgent(agent, 'DELETE', `/mcp/connection/${id}`)).status).toBe(404);
    expect((await onAgent(agent, 'GET', `/mcp/connection/${id}`)).status).toBe(405);
    const gone = await startPlainServer({ apiKey: API_KEY });
    const goneId = ((await onAgent(agent, 'POST', '/mcp/connection', { json: { url: gone.url, auth } })).body as { id: string }).id;
    await gone.close();
    expect((await onAgent(agent, 'GET', `/mcp/connection/${goneId}/tools`)).status).toBe(424);
    // A tool server that needs OAuth: register, authorize in the "browser", the callback's pages, the client document.
    const oauthTools = await startOAuthToolServer('contract', {}, { loopback: true });
    try {
      const pending = await onAgent(agent, 'POST', '/mcp/connection', { json: { url: `${oauthTools.base}/mcp`, auth: { type: 'oauth' } } });
      expect(pending.status, pending.text).toBe(200);
      const oauthId = (pending.body as { id: string }).id;
      expect(
        (await onAgent(agent, 'POST', `/mcp/connection/${oauthId}/tools/call`, { json: { name: 'echo', arguments: {} } })).status,
      ).toBe(424);
      expect((await onAgent(agent, 'POST', `/mcp/connection/${id}/authorize`, { json: {} })).status).toBe(404);
      const fresh = await onAgent(agent, 'POST', `/mcp/connection/${oauthId}/authorize`, { json: {} });
      expect(fresh.status).toBe(200);
      const back = new URL(await approve(oauthTools, (fresh.body as { authorizeUrl: string }).authorizeUrl));
      expect((await send('GET', `/oauth/callback?code=x&state=${'y'.repeat(43)}`)).status).toBe(400);
      expect((await send('GET', back.pathname + back.search)).status).toBe(200);
      expect((await send('GET', '/oauth/client.json')).status).toBe(200);
    } finally {
      await oauthTools.close();
    }

    // The profile and the public registration file (no token).
    expect((await onAgent(agent, 'GET', '/profile')).status).toBe(404);
    expect((await onAgent(agent, 'GET', '/registration.json', { token: '' })).status).toBe(404);
    expect((await onAgent(agent, 'PUT', '/profile', { json: { name: '', description: 'd' } })).status).toBe(400);
    expect((await onAgent(agent, 'PUT', '/profile', { json: { name: 'Desk', description: 'Orders.' } })).status).toBe(200);
    expect((await onAgent(agent, 'GET', '/profile')).status).toBe(200);
    expect((await onAgent(agent, 'GET', '/registration.json', { token: '' })).status).toBe(200);
    expect((await send('GET', agentPath(newWallet().address, 1n, '/registration.json'))).status).toBe(404);
    // The A2A Agent Card made from the same profile (no token).
    expect((await onAgent(agent, 'GET', '/.well-known/agent-card.json', { token: '' })).status).toBe(200);
    expect((await send('GET', agentPath(newWallet().address, 1n, '/.well-known/agent-card.json'))).status).toBe(404);

    // The audit trail of the changes above, newest first; a cursor it did not issue is 400.
    expect((await onAgent(agent, 'GET', '/audit?limit=2')).status).toBe(200);
    expect((await onAgent(agent, 'GET', '/audit?cursor=nope')).status).toBe(400);

    // After a transfer: the earlier owner's secrets are never used (409), and the old owner is refused (403).
    const sold = await freshAgent(deployment);
    const pending = await onAgent(sold, 'POST', '/database/settings/first-step', { json: target });
    expect(pending.status, pending.text).toBe(200);
    const buyer = newWallet();
    await transferFreshAgent(deployment, sold.owner, buyer.address, sold.tokenId);
    const bought = { ...sold, owner: buyer, token: await login(deployment, buyer) };
    const reentry = await onAgent(bought, 'POST', '/database/settings/second-step', {
      json: { setupId: (pending.body as { setupId: string }).setupId, tables: ['public.orders'] },
    });
    expect(reentry.status, reentry.text).toBe(409);
    expect((await onAgent(bought, 'GET', '/database/settings')).status).toBe(200); // a pending setup to re-enter
    expect((await onAgent(sold, 'GET', '')).status).toBe(403);

    // OAuth for MCP clients: metadata, registration, the page, the approval, the exchange.
    const oauthAgent = await freshAgent(deployment);
    const oauthCollection = getAddress(oauthAgent.collection);
    const resource = `${new URL(worker.url).origin}/agent/${oauthCollection}/${oauthAgent.tokenId}/mcp`;
    const prm = `/.well-known/oauth-protected-resource/agent/${oauthCollection}/${oauthAgent.tokenId}/mcp`;
    expect((await send('GET', prm)).status).toBe(200);
    expect((await send('GET', prm.replace(/mcp$/, 'a2a'))).status).toBe(200);
    expect((await send('GET', `/.well-known/oauth-protected-resource/agent/${newWallet().address}/1/mcp`)).status).toBe(404);
    expect((await send('GET', '/.well-known/oauth-authorization-server')).status).toBe(200);
    const redirectUri = 'http://127.0.0.1:9/callback';
    const registered = await send('POST', '/oauth/register', {
      json: { redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' },
    });
    expect(registered.status).toBe(201);
    expect((await send('POST', '/oauth/register', { json: { redirect_uris: ['http://example.com/cb'] } })).status).toBe(400);
    const clientId = (registered.body as { client_id: string }).client_id;
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const authorize = (extra: Record<string, string> = {}) =>
      `/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: 'S256', resource, ...extra })}`;
    const page = await send('GET', authorize());
    expect(page.status).toBe(200);
    expect((await send('GET', authorize({ code_challenge_method: 'plain' }))).status).toBe(400);
    expect((await send('GET', authorize({ client_id: 'no-such-client' }))).status).toBe(400);
    const approvalAsked = await send('POST', '/oauth/authorize/message', {
      json: { clientId, resource, walletAddress: oauthAgent.owner.address, chainId },
    });
    expect(approvalAsked.status, approvalAsked.text).toBe(200);
    const oauthApproval = approvalAsked.body as { nonce: string; message: string };
    const approval = {
      handle: /data-handle="([^"]+)"/.exec(page.text)?.[1],
      walletAddress: oauthAgent.owner.address,
      chainId,
      nonce: oauthApproval.nonce,
      signature: await oauthAgent.owner.signMessage({ message: oauthApproval.message }),
    };
    expect((await send('POST', '/oauth/authorize', { json: approval })).status).toBe(400);
    const consentCookie = (page.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
    const approved = await send('POST', '/oauth/authorize', { json: approval, headers: { cookie: consentCookie } });
    expect(approved.status, approved.text).toBe(200);
    const code = new URL((approved.body as { redirectTo: string }).redirectTo).searchParams.get('code') ?? '';
    const form = (fields: Record<string, string>) => ({
      body: new URLSearchParams(fields).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    const exchange = { grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: clientId, resource };
    expect((await send('POST', '/oauth/token', form({ ...exchange, code_verifier: 'x'.repeat(43) }))).status).toBe(400);
    const issued = await send('POST', '/oauth/token', form({ ...exchange, code_verifier: verifier }));
    expect(issued.status).toBe(200);
    // Deny: a forged handle is 400, a real one answers the client's redirect URI with access_denied.
    expect((await send('POST', '/oauth/authorize/deny', { json: { handle: 'forged' } })).status).toBe(400);
    const toDeny = await send('GET', authorize());
    const denied = await send('POST', '/oauth/authorize/deny', {
      json: { handle: /data-handle="([^"]+)"/.exec(toDeny.text)?.[1] },
      headers: { cookie: (toDeny.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '' },
    });
    expect(denied.status, denied.text).toBe(200);
    // The owner's view of the grant, and its revocation (404 once gone).
    const listedGrants = await onAgent(oauthAgent, 'GET', '/oauth/grants');
    expect(listedGrants.status, listedGrants.text).toBe(200);
    const grantId = ((issued.body as { access_token: string }).access_token.split(':')[1] ?? '') as string;
    expect((await onAgent(oauthAgent, 'DELETE', `/oauth/grants/${grantId}`)).status).toBe(200);
    expect((await onAgent(oauthAgent, 'DELETE', `/oauth/grants/${grantId}`)).status).toBe(404);

    // Rate limits: a burst of inits for one wallet (the login limit is 30 a minute).
    await earlyInWindow(5_000);
    const flooded = newWallet().address;
    const burst = await Promise.all(
      Array.from({ length: 40 }, () => send('POST', '/auth/jwt/init', { json: { walletAddress: flooded, chainId } })),
    );
    expect(burst.some((r) => r.status === 429)).toBe(true);

    const doc = (await call(worker.url, '/openapi.json')).body as OpenApiDocument;
    const checker = contractChecker(doc);
    expect(exchanges.flatMap((e) => checker.problems(e))).toEqual([]);

    const statuses = new Set(exchanges.map((e) => e.res.status));
    for (const status of [200, 400, 401, 403, 404, 405, 409, 413, 415, 424, 429]) expect(statuses, String(status)).toContain(status);
    const succeeded = new Set(
      exchanges
        .filter((e) => e.res.status === 200 || e.res.status === 201)
        .map((e) => checker.operationFor(e.method, e.path)?.operation?.operationId),
    );
    const every = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((op) => op.operationId));
    expect([...every].filter((operationId) => !succeeded.has(operationId))).toEqual([]);
  });
});
