/**
 * The typed client (src/client) against a tiny fake `fetch`: re-login once on 401, the
 * GatewayError shape, the token never in an error, the page iterators, idempotency headers.
 */
import { recoverMessageAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it, vi } from 'vitest';
import { createGatewayClient, GatewayError, tokenExpiresAt, type GatewayClientOptions, type LoginAccount } from '../../src/client';

const BASE = 'http://gateway.test';
const COLLECTION = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const CHAIN = 80002;

interface Seen {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Headers;
  body: any;
}

type Reply = { status?: number; json?: unknown; text?: string; headers?: Record<string, string> };
type Handler = (req: Seen) => Reply | Promise<Reply>;

/** A fetch that records every request and answers with `handler`. */
function fakeFetch(handler: Handler) {
  const seen: Seen[] = [];
  const fetch = vi.fn(async (input: string, init: RequestInit) => {
    const url = new URL(input);
    const req: Seen = {
      method: init.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: new Headers(init.headers),
      body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
    };
    seen.push(req);
    const reply = await handler(req);
    const headers = new Headers(reply.headers);
    let body: string | null = reply.text ?? null;
    if (reply.json !== undefined) {
      body = JSON.stringify(reply.json);
      headers.set('content-type', 'application/json');
    }
    return new Response(body, { status: reply.status ?? 200, headers });
  });
  return { fetch, seen, count: (method: string, path: string) => seen.filter((r) => r.method === method && r.path === path).length };
}

/** A JWT-shaped token (not signed: the client only reads `exp`). */
function jwt(label: string, exp = 2_000_000_000): string {
  const part = (v: unknown) => btoa(JSON.stringify(v)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
  return `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ sub: label, exp })}.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg`;
}

const errorReply = (
  status: number,
  code: string,
  message: string,
  extra: { details?: unknown; requestId?: string; headers?: Record<string, string> } = {},
): Reply => ({
  status,
  json: {
    error: { code, message, ...(extra.details !== undefined ? { details: extra.details } : {}) },
    requestId: extra.requestId ?? 'req-1',
  },
  headers: { 'x-request-id': extra.requestId ?? 'req-1', ...extra.headers },
});

const SUMMARY = {
  chainId: CHAIN,
  agentCollectionAddress: COLLECTION,
  agentTokenId: '7',
  kind: 'internal',
  owner: '0x0000000000000000000000000000000000000001',
};

/**
 * A fake gateway: login issues tokens `fresh-1`, `fresh-2`, …; agent routes accept only the
 * tokens in `valid` (401 token_expired otherwise).
 */
function fakeGateway(options: { valid?: Set<string>; onAgent?: Handler; verify?: boolean } = {}) {
  const valid = options.valid ?? new Set<string>();
  const issued: string[] = [];
  const messages = new Map<string, string>();
  const fake = fakeFetch(async (req) => {
    if (req.path === '/auth/jwt/init') {
      const message = `gateway.test wants you to sign in with your Ethereum account:\n${req.body.walletAddress}\n\nNonce: ${issued.length}`;
      messages.set(req.body.walletAddress, message);
      return { json: { nonce: `n${issued.length}`, message } };
    }
    if (req.path === '/auth/jwt/finish') {
      if (options.verify) {
        const signer = await recoverMessageAddress({ message: messages.get(req.body.walletAddress)!, signature: req.body.signature });
        if (signer !== req.body.walletAddress) return errorReply(401, 'signature_invalid', 'Signature does not match');
      }
      const token = jwt(`fresh-${issued.length + 1}`);
      issued.push(token);
      valid.add(token);
      return { json: { token } };
    }
    if (req.path.startsWith('/agent/')) {
      const bearer = req.headers.get('authorization')?.replace(/^Bearer /, '') ?? '';
      if (!valid.has(bearer)) return errorReply(401, 'token_expired', 'Token expired');
      return options.onAgent ? options.onAgent(req) : { json: SUMMARY };
    }
    return errorReply(404, 'not_found', 'Not Found');
  });
  return { ...fake, issued, valid };
}

function fakeAccount(address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'): LoginAccount & { signed: string[] } {
  const signed: string[] = [];
  return {
    address,
    signed,
    async signMessage({ message }) {
      signed.push(message);
      return `0x${'ab'.repeat(65)}`;
    },
  };
}

function client(fake: { fetch: GatewayClientOptions['fetch'] }, options: Partial<GatewayClientOptions> = {}) {
  return createGatewayClient({ baseUrl: `${BASE}/`, fetch: fake.fetch, ...options });
}

describe('login and re-login', () => {
  it('login() runs init → signMessage → finish and stores the token', async () => {
    const gateway = fakeGateway();
    const account = fakeAccount();
    const onToken = vi.fn();
    const c = client(gateway, { login: { account, chainId: CHAIN }, onToken });
    const session = await c.login();
    expect(session.token).toBe(gateway.issued[0]);
    expect(c.token).toBe(session.token);
    expect(session).toMatchObject({ walletAddress: account.address, chainId: CHAIN, expiresAt: new Date(2_000_000_000_000).toISOString() });
    const [init, finish] = gateway.seen;
    expect(init!.body).toEqual({ walletAddress: account.address, chainId: CHAIN });
    expect(account.signed).toEqual([expect.stringContaining('Nonce: 0')]);
    expect(finish!.body).toEqual({ walletAddress: account.address, chainId: CHAIN, signature: `0x${'ab'.repeat(65)}`, nonce: 'n0' });
    expect(onToken).toHaveBeenCalledTimes(1);
  });

  it('works with a viem LocalAccount (privateKeyToAccount): the signature recovers to the wallet', async () => {
    const gateway = fakeGateway({ verify: true });
    const account = privateKeyToAccount(generatePrivateKey());
    const c = client(gateway, { login: { account, chainId: CHAIN } });
    await c.login();
    expect(await c.agent(COLLECTION, 7n).summary()).toEqual(SUMMARY);
  });

  it('logs in again once on a 401 from an agent-scoped call and retries it', async () => {
    const stale = jwt('stale');
    const gateway = fakeGateway();
    const onToken = vi.fn();
    const c = client(gateway, { token: stale, login: { account: fakeAccount(), chainId: CHAIN }, onToken });
    expect(await c.agent(COLLECTION, 7n).summary()).toEqual(SUMMARY);
    expect(gateway.count('POST', '/auth/jwt/init')).toBe(1);
    expect(gateway.count('POST', '/auth/jwt/finish')).toBe(1);
    const agentCalls = gateway.seen.filter((r) => r.path.startsWith('/agent/'));
    expect(agentCalls.map((r) => r.headers.get('authorization'))).toEqual([`Bearer ${stale}`, `Bearer ${gateway.issued[0]}`]);
    expect(c.token).toBe(gateway.issued[0]);
    expect(onToken).toHaveBeenCalledTimes(1);
  });

  it('re-logs in only once: a second 401 is thrown', async () => {
    const gateway = fakeFetch((req) => {
      if (req.path === '/auth/jwt/init') return { json: { nonce: 'n', message: 'sign me' } };
      if (req.path === '/auth/jwt/finish') return { json: { token: jwt('new') } };
      return errorReply(401, 'unauthorized', 'Invalid token');
    });
    const c = client(gateway, { token: jwt('old'), login: { account: fakeAccount(), chainId: CHAIN } });
    const err = await c
      .agent(COLLECTION, '7')
      .summary()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayError);
    expect(err).toMatchObject({ status: 401, code: 'unauthorized' });
    expect(gateway.count('POST', '/auth/jwt/finish')).toBe(1);
    expect(gateway.seen.filter((r) => r.path.startsWith('/agent/'))).toHaveLength(2);
  });

  it('without a login account a 401 is thrown at once, and login() says why it cannot', async () => {
    const gateway = fakeGateway();
    const c = client(gateway, { token: jwt('stale') });
    await expect(c.agent(COLLECTION, 7).summary()).rejects.toMatchObject({ status: 401, code: 'token_expired' });
    expect(gateway.seen).toHaveLength(1);
    await expect(c.login()).rejects.toMatchObject({ code: 'login_unavailable' });
  });

  it('concurrent calls that all get 401 share one login', async () => {
    const gateway = fakeGateway();
    const c = client(gateway, { token: jwt('stale'), login: { account: fakeAccount(), chainId: CHAIN } });
    const agent = c.agent(COLLECTION, 7n);
    const results = await Promise.all(Array.from({ length: 6 }, () => agent.summary()));
    expect(results).toHaveLength(6);
    expect(gateway.count('POST', '/auth/jwt/finish')).toBe(1);
  });

  it('logs in first when it has no token, and does not log in twice for that call', async () => {
    const gateway = fakeGateway({ onAgent: () => errorReply(401, 'token_wrong_chain', 'Token of another chain') });
    const c = client(gateway, { login: { account: fakeAccount(), chainId: CHAIN } });
    await expect(c.agent(COLLECTION, 7n).summary()).rejects.toMatchObject({ status: 401, code: 'token_wrong_chain' });
    expect(gateway.count('POST', '/auth/jwt/finish')).toBe(1);
  });

  it('never re-logs in for a 401 of a call that is not agent-scoped', async () => {
    const gateway = fakeFetch(() => errorReply(401, 'signature_invalid', 'Signature does not match'));
    const c = client(gateway, { login: { account: fakeAccount(), chainId: CHAIN } });
    await expect(c.finishLogin({ walletAddress: COLLECTION, chainId: CHAIN, signature: '0x00' })).rejects.toMatchObject({
      code: 'signature_invalid',
    });
    expect(gateway.seen).toHaveLength(1);
  });
});

describe('GatewayError', () => {
  it('carries status, code, message, requestId and details of the error body', async () => {
    const details = { issues: [{ path: 'messages.3.role', message: 'Invalid option' }] };
    const gateway = fakeFetch(() => errorReply(400, 'validation_failed', 'Request validation failed', { details, requestId: 'req-42' }));
    const err = (await client(gateway, { token: jwt('t') })
      .agent(COLLECTION, 1n)
      .appendMessages('notes', [{ role: 'user', message: 'hello' }])
      .catch((e: unknown) => e)) as GatewayError;
    expect(err).toBeInstanceOf(GatewayError);
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('GatewayError');
    expect({ status: err.status, code: err.code, message: err.message, requestId: err.requestId, details: err.details }).toEqual({
      status: 400,
      code: 'validation_failed',
      message: 'Request validation failed',
      requestId: 'req-42',
      details,
    });
    expect(err.operation).toBe(`POST /agent/${COLLECTION}/1/context/notes/messages`);
    expect(err.transient).toBe(false);
  });

  it('an error without the gateway body (a proxy page) is http_error with the X-Request-Id header', async () => {
    const gateway = fakeFetch(() => ({
      status: 502,
      text: '<html>Bad gateway</html>',
      headers: { 'content-type': 'text/html', 'x-request-id': 'edge-9' },
    }));
    const err = (await client(gateway)
      .health()
      .catch((e: unknown) => e)) as GatewayError;
    expect(err).toMatchObject({ status: 502, code: 'http_error', requestId: 'edge-9' });
    expect(err.transient).toBe(true);
  });

  it('503 keeps Retry-After; health() returns the report for 503 too', async () => {
    const report = {
      status: 'unavailable',
      chainId: CHAIN,
      checks: { database: { ok: false, latencyMs: 5, problem: 'did not answer' }, chain: { ok: true, latencyMs: 1 } },
    };
    const gateway = fakeFetch((req) =>
      req.path === '/health'
        ? { status: 503, json: report, headers: { 'retry-after': '3' } }
        : errorReply(503, 'dependency_unavailable', 'Database unavailable', { headers: { 'retry-after': '7' } }),
    );
    const c = client(gateway, { token: jwt('t') });
    expect(await c.health()).toEqual(report);
    const err = (await c
      .agent(COLLECTION, 1n)
      .summary()
      .catch((e: unknown) => e)) as GatewayError;
    expect(err).toMatchObject({ status: 503, code: 'dependency_unavailable', retryAfterSeconds: 7 });
    expect(err.transient).toBe(true);
  });

  it('no answer: network_error (status 0), timeout, aborted', async () => {
    const refused = fakeFetch(() => {
      throw new TypeError('fetch failed', {
        cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }),
      });
    });
    await expect(client(refused).health()).rejects.toMatchObject({
      status: 0,
      code: 'network_error',
      message: expect.stringContaining('ECONNREFUSED'),
    });

    const hanging = vi.fn(
      (_input: string, init: RequestInit) =>
        new Promise<Response>((_, reject) =>
          init.signal!.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))),
        ),
    );
    await expect(createGatewayClient({ baseUrl: BASE, fetch: hanging, timeoutMs: 30 }).health()).rejects.toMatchObject({
      status: 0,
      code: 'timeout',
    });
    const controller = new AbortController();
    const pending = createGatewayClient({ baseUrl: BASE, fetch: hanging, timeoutMs: 0 }).health({ signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ status: 0, code: 'aborted' });
  });

  it('a 200 that is not JSON is invalid_response', async () => {
    const gateway = fakeFetch(() => ({ text: '<html>captive portal</html>' }));
    await expect(client(gateway).health()).rejects.toMatchObject({ status: 200, code: 'invalid_response' });
  });

  it('never holds the token: not in message, details, stack, JSON or String, even when the server echoes it', async () => {
    const token = jwt('secret-token-value');
    const echo = fakeFetch((req) => {
      const auth = req.headers.get('authorization') ?? '';
      return errorReply(400, 'validation_failed', `bad header ${auth}`, { details: { seen: auth, nested: [{ value: auth }] } });
    });
    const err = (await client(echo, { token })
      .agent(COLLECTION, 1n)
      .summary()
      .catch((e: unknown) => e)) as GatewayError;
    expect(err).toBeInstanceOf(GatewayError);
    for (const text of [err.message, JSON.stringify(err.details), err.stack ?? '', JSON.stringify(err), String(err)]) {
      expect(text).not.toContain(token);
    }
    expect(err.message).toBe('bad header Bearer ***');

    const throwing = fakeFetch((req) => {
      throw new TypeError('fetch failed', { cause: new Error(`socket hang up ${req.headers.get('authorization')}`) });
    });
    const netErr = (await client(throwing, { token })
      .agent(COLLECTION, 1n)
      .summary()
      .catch((e: unknown) => e)) as GatewayError;
    expect(netErr.code).toBe('network_error');
    expect(netErr.message).not.toContain(token);
    expect(JSON.stringify(netErr)).not.toContain(token);
  });

  it('tokens obtained by login are scrubbed as well', async () => {
    let issued = '';
    const gateway = fakeFetch((req) => {
      if (req.path === '/auth/jwt/init') return { json: { nonce: 'n', message: 'sign me' } };
      if (req.path === '/auth/jwt/finish') {
        issued = jwt('issued-by-login');
        return { json: { token: issued } };
      }
      return errorReply(403, 'not_owner', `You are not the owner (${req.headers.get('authorization')})`);
    });
    const c = client(gateway, { login: { account: fakeAccount(), chainId: CHAIN } });
    const err = (await c
      .agent(COLLECTION, 1n)
      .summary()
      .catch((e: unknown) => e)) as GatewayError;
    expect(err.code).toBe('not_owner');
    expect(issued).not.toBe('');
    expect(err.message).not.toContain(issued);
  });
});

describe('pages, paths and headers', () => {
  const message = (id: number) => ({ id, role: 'user' as const, message: `message ${id}`, createdAt: '2026-11-22T07:30:00.000Z' });

  it('messages() walks every page by cursor, in order', async () => {
    const pages: Record<string, { messages: ReturnType<typeof message>[]; nextCursor: string | null; hasMore: boolean }> = {
      '': { messages: [message(1), message(2)], nextCursor: 'c2', hasMore: true },
      c2: { messages: [message(3), message(4)], nextCursor: 'c4', hasMore: true },
      c4: { messages: [message(5)], nextCursor: null, hasMore: false },
    };
    const gateway = fakeFetch((req) => ({ json: pages[req.query.get('cursor') ?? '']! }));
    const agent = client(gateway, { token: jwt('t') }).agent(COLLECTION, 12345678901234567890n);
    const ids: number[] = [];
    for await (const m of agent.messages('customer:42/notes')) ids.push(m.id);
    expect(ids).toEqual([1, 2, 3, 4, 5]);
    expect(gateway.seen.map((r) => r.query.get('cursor'))).toEqual([null, 'c2', 'c4']);
    expect(gateway.seen.every((r) => r.query.get('limit') === '100')).toBe(true);
    expect(gateway.seen[0]!.path).toBe(`/agent/${COLLECTION}/12345678901234567890/context/customer%3A42%2Fnotes/messages`);

    const sizes: number[] = [];
    for await (const page of agent.messagePages('customer:42/notes', { limit: 2 })) sizes.push(page.messages.length);
    expect(sizes).toEqual([2, 2, 1]);
  });

  it('stops iterating when the consumer breaks (no further requests)', async () => {
    const gateway = fakeFetch(() => ({ json: { messages: [message(1), message(2)], nextCursor: 'more', hasMore: true } }));
    const agent = client(gateway, { token: jwt('t') }).agent(COLLECTION, 1n);
    for await (const m of agent.messages('notes')) if (m.id === 2) break;
    expect(gateway.seen).toHaveLength(1);
  });

  it('contextKeys() walks pages by cursor (nextAfter → after) with the query, from the start or from an after', async () => {
    const all = Array.from({ length: 250 }, (_, i) => `key-${String(i).padStart(3, '0')}`);
    const gateway = fakeFetch((req) => {
      const after = req.query.get('after');
      const per = Number(req.query.get('elementsPerPage'));
      const from = after === null ? 0 : all.indexOf(after) + 1;
      const contextKeys = all.slice(from, from + per);
      const nextAfter = from + per < all.length ? contextKeys[contextKeys.length - 1] : null;
      return { json: { page: 1, elementsPerPage: per, totalElements: all.length, contextKeys, nextAfter } };
    });
    const agent = client(gateway, { token: jwt('t') }).agent(COLLECTION, 1n);
    const keys: string[] = [];
    for await (const key of agent.contextKeys({ search: 'key', sortDirection: 'asc' })) keys.push(key);
    expect(keys).toEqual(all);
    expect(gateway.seen.map((r) => r.query.get('after'))).toEqual([null, 'key-099', 'key-199']);
    expect(gateway.seen.every((r) => !r.query.has('page'))).toBe(true);
    expect(gateway.seen[0]!.query.get('search')).toBe('key');
    expect(gateway.seen[0]!.query.get('sortDirection')).toBe('asc');

    const sizes: number[] = [];
    for await (const page of agent.contextKeyPages({ after: 'key-199', elementsPerPage: 20 })) sizes.push(page.contextKeys.length);
    expect(sizes).toEqual([20, 20, 10]);
    expect(gateway.seen.slice(3).map((r) => r.query.get('after'))).toEqual(['key-199', 'key-219', 'key-239']);
  });

  it('contextKeys() refuses a key page without nextAfter (an older gateway) instead of stopping early', async () => {
    const gateway = fakeFetch(() => ({ json: { page: 1, elementsPerPage: 100, totalElements: 500, contextKeys: ['k1', 'k2'] } }));
    const agent = client(gateway, { token: jwt('t') }).agent(COLLECTION, 1n);
    const keys: string[] = [];
    const walk = async () => {
      for await (const key of agent.contextKeys()) keys.push(key);
    };
    await expect(walk()).rejects.toMatchObject({ name: 'GatewayError', code: 'invalid_response' });
    expect(keys).toEqual([]);
    expect(gateway.seen).toHaveLength(1);
  });

  it('appends send Idempotency-Key and report Idempotent-Replayed', async () => {
    const gateway = fakeFetch((req) => {
      const replay = req.headers.get('idempotency-key') === 'again' ? { 'idempotent-replayed': 'true' } : undefined;
      if (req.path.endsWith('/messages'))
        return { json: { messages: req.body.messages.map((_: unknown, i: number) => message(i + 1)) }, headers: replay };
      return { json: message(9), headers: replay };
    });
    const agent = client(gateway, { token: jwt('t') }).agent(COLLECTION, 1n);
    const first = await agent.appendMessages(
      'notes',
      [
        { role: 'user', message: 'a1' },
        { role: 'assistant', message: 'b2' },
      ],
      { idempotencyKey: 'import:1-2' },
    );
    expect(first.replayed).toBe(false);
    expect(first.messages).toHaveLength(2);
    expect(gateway.seen[0]!.headers.get('idempotency-key')).toBe('import:1-2');
    expect(gateway.seen[0]!.headers.get('content-type')).toBe('application/json');
    expect(gateway.seen[0]!.body).toEqual({
      messages: [
        { role: 'user', message: 'a1' },
        { role: 'assistant', message: 'b2' },
      ],
    });
    expect((await agent.appendMessages('notes', [{ role: 'user', message: 'a1' }], { idempotencyKey: 'again' })).replayed).toBe(true);
    const single = await agent.appendMessage('notes', { role: 'system', message: 'rule' }, { idempotencyKey: 'again' });
    expect(single).toEqual({ message: message(9), replayed: true });
    await agent.appendMessage('notes', { role: 'system', message: 'rule' });
    expect(gateway.seen[3]!.headers.has('idempotency-key')).toBe(false);
  });

  it('createContext resolves on the empty 200; every other endpoint hits its documented path', async () => {
    const gateway = fakeFetch((req) => (req.path.endsWith('/context') ? { status: 200 } : { json: {} }));
    const agent = client(gateway, { token: jwt('t') }).agent(COLLECTION, 5);
    await expect(agent.createContext('notes')).resolves.toBeUndefined();
    await agent.createContexts(['a1', 'b2']);
    await agent.getLlmSettings();
    await agent.saveLlmSettings({ provider: 'openai', model: 'gpt', temperature: 0, maxTokens: 10 });
    await agent.getPromptTemplate('system-default');
    await agent.savePromptTemplate('system-default', { template: 'hi' });
    await agent.databaseFirstStep({ host: 'db', database: 'd', user: 'u', password: 'p' });
    await agent.databaseSecondStep({ setupId: 's', tables: ['public.t'] });
    await agent.getDatabaseSettings();
    await agent.listMcpConnections();
    await agent.addMcpConnection({ url: 'https://tools.example/mcp', auth: { type: 'none' } });
    await agent.listMcpTools('id-1');
    await agent.callMcpTool('id-1', { name: 'echo' });
    await agent.removeMcpConnection('id-1');
    await agent.listContextKeys({ page: 2, elementsPerPage: 5 });
    const prefix = `/agent/${COLLECTION}/5`;
    expect(gateway.seen.map((r) => `${r.method} ${r.path.replace(prefix, '…')}`)).toEqual([
      'POST …/context',
      'POST …/contexts',
      'GET …/llm/settings',
      'POST …/llm/settings',
      'GET …/prompt-template/system-default',
      'POST …/prompt-template/system-default',
      'POST …/database/settings/first-step',
      'POST …/database/settings/second-step',
      'GET …/database/settings',
      'GET …/mcp/connections',
      'POST …/mcp/connection',
      'GET …/mcp/connection/id-1/tools',
      'POST …/mcp/connection/id-1/tools/call',
      'DELETE …/mcp/connection/id-1',
      'GET …/contexts/keys',
    ]);
    expect(gateway.seen[12]!.body).toEqual({ name: 'echo', arguments: {} });
    expect(gateway.seen.every((r) => r.headers.get('authorization')?.startsWith('Bearer '))).toBe(true);
  });

  it('tokenExpiresAt reads exp, and is null for anything else', () => {
    expect(tokenExpiresAt(jwt('x', 1_800_000_000))).toBe(new Date(1_800_000_000_000).toISOString());
    expect(tokenExpiresAt('not-a-jwt')).toBeNull();
    expect(tokenExpiresAt('a.b.c')).toBeNull();
  });
});

describe('an agent key instead of a token', () => {
  const KEY = `agk_${'k'.repeat(32)}`;

  it('sends the key on agent routes only, never logs in, and a 401 is final with the key scrubbed', async () => {
    const login = { account: privateKeyToAccount(generatePrivateKey()), chainId: CHAIN };
    const { fetch, seen } = fakeFetch((req) =>
      req.path.endsWith('/contexts/keys')
        ? { json: { page: 1, elementsPerPage: 10, totalElements: 0, contextKeys: [], nextAfter: null } }
        : req.path === '/health'
          ? { json: { status: 'ok' } }
          : errorReply(401, 'key_revoked', `The agent key ${KEY} has been revoked`),
    );
    const client = createGatewayClient({ baseUrl: BASE, apiKey: KEY, login, fetch });
    await client.getHealth();
    await client.agent(COLLECTION, 1n).listContextKeys();
    expect(seen.map((r) => r.headers.get('authorization'))).toEqual([null, `Bearer ${KEY}`]);
    const err = await client
      .agent(COLLECTION, 1n)
      .createContext('notes')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).code).toBe('key_revoked');
    expect((err as GatewayError).message).not.toContain(KEY);
    expect(seen.filter((r) => r.path.startsWith('/auth/'))).toEqual([]);
  });
});
