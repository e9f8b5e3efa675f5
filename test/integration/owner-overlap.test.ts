/**
 * The contexts routes and the reply start their storage reads while the on-chain owner check is
 * still running. Against a worker whose chain answers 400 ms late, this checks what a
 * caller who is not the owner (or names a token that does not exist, or meets a dead RPC) can make
 * them do: every answer is the gate's error, never data, nothing is committed, not even a schema,
 * and the agent's model hears nothing.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startRpcProxy, type RpcProxy } from '../../scripts/lib/rpc-proxy';
import { type StandinLlm, startStandinLlm } from '../../scripts/lib/standin-llm';
import { startMiniflare } from '../../scripts/lib/worker-bundle';
import { freshTokenId, mintFreshAgent, newWallet, type TestAccount } from '../support/chain';
import { call, deployment, expectError, type JsonResponse } from '../support/http';
import { agentPath, login } from '../support/login';
import { closePg, expectedSchemaName, quoted, schemaCount, sql, storageRows } from '../support/pg';
import { replyAgent, replyWorker } from '../support/replies';
import { workerBindingsFor } from '../support/worker';

const stack = inject('stack');
const testnet = deployment('testnet');
const CHAIN_DELAY_MS = 400;

let proxy: RpcProxy;
let worker: Awaited<ReturnType<typeof startMiniflare>>;
let owner: TestAccount;
let ownerToken: string;
let strangerToken: string;
let tokenId: bigint;
let schema: string;

const path = (id: bigint, rest: string) => agentPath(testnet.collection, id, rest);

function send(token: string, method: string, route: string, json?: unknown, headers: Record<string, string> = {}): Promise<JsonResponse> {
  return call(worker.url, route, { method, token, ...(json === undefined ? {} : { json }), headers });
}

/** The writes a stranger might try; each must leave storage as it was. */
function writes(id: bigint): [string, string, unknown, Record<string, string>][] {
  return [
    ['POST', path(id, '/context'), { key: 'stranger/new' }, {}],
    ['POST', path(id, '/contexts'), { keys: ['stranger/a', 'stranger/b'] }, {}],
    ['POST', path(id, '/context/notes/message'), { role: 'user', message: 'from a stranger' }, {}],
    ['POST', path(id, '/context/notes/messages'), { messages: [{ role: 'user', message: 'from a stranger' }] }, {}],
    [
      'POST',
      path(id, '/context/notes/messages'),
      { messages: [{ role: 'user', message: 'from a stranger' }] },
      { 'Idempotency-Key': 'stranger-key' },
    ],
  ];
}

async function snapshot(): Promise<unknown> {
  const s = quoted(schema);
  return {
    keys: await sql(stack.databaseUrl, `select key from ${s}.contexts order by key`),
    messages: await sql(stack.databaseUrl, `select id, message from ${s}.messages order by id`),
    records: await sql(stack.databaseUrl, `select key from ${s}.idempotency order by key`),
  };
}

beforeAll(async () => {
  proxy = await startRpcProxy(testnet.rpcUrl, { latencyMs: CHAIN_DELAY_MS });
  worker = await startMiniflare({
    scriptPath: stack.scriptPath,
    deployment: 'testnet',
    bindings: { ...workerBindingsFor(stack), RPC_URL: proxy.url },
  });
  owner = newWallet();
  tokenId = await mintFreshAgent(testnet, owner.address);
  ownerToken = await login(testnet, owner);
  strangerToken = await login(testnet, newWallet());
  expect((await send(ownerToken, 'POST', path(tokenId, '/context'), { key: 'notes' })).status).toBe(200);
  const appended = await send(
    ownerToken,
    'POST',
    path(tokenId, '/context/notes/messages'),
    { messages: [{ role: 'user', message: 'mine' }] },
    {
      'Idempotency-Key': 'owner-key',
    },
  );
  expect(appended.status).toBe(200);
  schema = expectedSchemaName({ deployment: testnet, collection: testnet.collection, tokenId });
});

afterAll(async () => {
  await worker?.dispose();
  await proxy?.close();
  await closePg();
});

describe('a caller who is not the owner, while the chain is slow', () => {
  it('reads nothing: keys and messages answer 403 not_owner, without data', async () => {
    for (const route of [
      path(tokenId, '/contexts/keys'),
      path(tokenId, '/context/notes/messages'),
      path(tokenId, '/context/none/messages'),
    ]) {
      const res = await send(strangerToken, 'GET', route);
      expectError(res, 403, 'not_owner');
      expect(res.text).not.toContain('mine');
      expect(res.text).not.toContain('notes');
    }
  });

  it('commits nothing: every write answers 403 and storage is unchanged', async () => {
    const before = await snapshot();
    for (const [method, route, json, headers] of writes(tokenId)) {
      expectError(await send(strangerToken, method, route, json, headers), 403, 'not_owner');
    }
    expect(await snapshot()).toEqual(before);
  });

  it("never replays the owner's remembered answer for its Idempotency-Key", async () => {
    const res = await send(
      strangerToken,
      'POST',
      path(tokenId, '/context/notes/messages'),
      { messages: [{ role: 'user', message: 'mine' }] },
      {
        'Idempotency-Key': 'owner-key',
      },
    );
    expectError(res, 403, 'not_owner');
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    expect(res.text).not.toContain('mine');
  });

  it("creates no storage for somebody else's agent that has none", async () => {
    const id = await mintFreshAgent(testnet, owner.address);
    for (const [method, route, json, headers] of writes(id)) {
      expectError(await send(strangerToken, method, route, json, headers), 403, 'not_owner');
    }
    expect(await storageRows(stack.databaseUrl, { deployment: testnet, collection: testnet.collection, tokenId: id })).toEqual([]);
    expect(
      await schemaCount(stack.databaseUrl, expectedSchemaName({ deployment: testnet, collection: testnet.collection, tokenId: id })),
    ).toBe(0);
  });
});

describe('a token that does not exist, and a chain that does not answer', () => {
  it('answers 404 agent_not_found for reads and writes of a missing token, and stores nothing', async () => {
    const missing = freshTokenId();
    expectError(await send(ownerToken, 'GET', path(missing, '/contexts/keys')), 404, 'agent_not_found');
    for (const [method, route, json, headers] of writes(missing)) {
      expectError(await send(ownerToken, method, route, json, headers), 404, 'agent_not_found');
    }
    expect(
      await schemaCount(stack.databaseUrl, expectedSchemaName({ deployment: testnet, collection: testnet.collection, tokenId: missing })),
    ).toBe(0);
  });

  it('answers 503 for the owner while the RPC is down, reads included, and commits nothing', async () => {
    const before = await snapshot();
    proxy.setUp(false);
    try {
      const read = await send(ownerToken, 'GET', path(tokenId, '/context/notes/messages'));
      expectError(read, 503, 'dependency_unavailable');
      expect(read.text).not.toContain('mine');
      for (const [method, route, json, headers] of writes(tokenId)) {
        expectError(await send(ownerToken, method, route, json, headers), 503, 'dependency_unavailable');
      }
    } finally {
      proxy.setUp(true);
    }
    expect(await snapshot()).toEqual(before);
  });

  it('serves the owner once the check passes', async () => {
    const res = await send(ownerToken, 'GET', path(tokenId, '/context/notes/messages'));
    expect(res.status).toBe(200);
    expect(res.text).toContain('mine');
  });
});

describe('the reply route, a stranger while the chain is slow', () => {
  let llm: StandinLlm;
  let replies: Awaited<ReturnType<typeof replyWorker>>;
  let who: Awaited<ReturnType<typeof replyAgent>>;

  beforeAll(async () => {
    // A keyless model (a local server): no vault entry stands between a stranger and the model,
    // only the owner check does.
    llm = await startStandinLlm();
    replies = await replyWorker(stack, llm, {}, { RPC_URL: proxy.url });
    who = await replyAgent(replies.deployment, '', { apiKey: undefined });
    expect((await who.call('/prompt-template/default', { method: 'POST', json: { template: 'Secret prompt.' } })).status).toBe(200);
    // Something in memory, so a reply without a message would go to the model.
    expect((await who.call('/context/chat/message', { method: 'POST', json: { role: 'user', message: 'owner note' } })).status).toBe(200);
  });

  afterAll(async () => {
    await replies?.dispose();
    await llm?.close();
  });

  it('gets the gate error only: the model hears nothing, nothing is stored, no lease is left', async () => {
    const stranger = await login(replies.deployment, newWallet());
    const route = agentPath(who.collection, who.tokenId, '/context/chat/reply');
    const marker = `stranger ${crypto.randomUUID()}`;
    const variants: Record<string, string>[] = [{}, { accept: 'text/event-stream' }, { 'Idempotency-Key': 'stranger-reply' }];
    // With a message, and without one (nothing to append: the reply would go straight to the model).
    for (const json of [{ message: marker }, {}]) {
      for (const headers of variants) {
        const res = await call(replies.url, route, { method: 'POST', token: stranger, json, headers });
        expectError(res, 403, 'not_owner');
        expect(res.text).not.toContain('Secret prompt');
      }
    }
    expect(llm.completions()).toHaveLength(0);
    const s = quoted(expectedSchemaName({ deployment: replies.deployment, collection: who.collection, tokenId: who.tokenId }));
    expect(await sql(stack.databaseUrl, `select message from ${s}.messages`)).toEqual([{ message: 'owner note' }]);
    // The owner replies at once afterwards: no lease was taken for the stranger.
    const mine = await who.reply({ message: 'mine' });
    expect(mine.status, mine.text).toBe(200);
    expect(llm.completions()).toHaveLength(1);
    expect((await sql(stack.databaseUrl, `select role from ${s}.messages order by id`)).map((r) => r.role)).toEqual([
      'user',
      'user',
      'assistant',
    ]);
  });
});
