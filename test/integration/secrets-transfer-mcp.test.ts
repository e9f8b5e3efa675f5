/**
 * Tool-server credentials are bound to the wallet that entered them, against the real
 * stack: the agent NFT is transferred on anvil, and the loopback tool server records every header
 * it receives. After the sale the seller's credential never reaches the server; the buyer sees
 * `credential: reenter_required` and 409 `credential_reentry_required` on tools list and call
 * until they enter their own with `PUT …/mcp/connection/{id}/auth`, which then works. A
 * connection without a credential is bound to the wallet that registered it too (its URL may
 * carry a key): the buyer sees its origin only, `reenter_required` and 409 until they confirm it
 * with PUT …/auth. A vault row edited to name the buyer does not decrypt (500, nothing sent), and
 * an entry or connection stored before owners were recorded must be re-entered. PUT …/auth
 * re-checks the outbound policy and the tools snapshot's size.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freshAgent, type TestAgent } from '../support/agent';
import { newWallet, transferFreshAgent, type TestAccount } from '../support/chain';
import { call, deployment, expectError, type JsonResponse } from '../support/http';
import { agentPath, login } from '../support/login';
import { closePg, sql } from '../support/pg';
import { secretValue } from '../support/secrets';
import { toolServerUrl, workerWithToolServers } from '../support/tool-routing';

const stack = inject('stack');
const testnet = deployment('testnet');

/**
 * A plain JSON-RPC tool server that records the headers of every request. `/keyed` wants an
 * `x-api-key` or a bearer token from `accepted` (401 otherwise); `/open` (and any path under it)
 * wants none. Tool: echo; with `oversize` set, tools/list answers 201 tools.
 */
interface RecordingServer {
  origin: string;
  accepted: Set<string>;
  received: IncomingMessage['headers'][];
  oversize: boolean;
  close(): Promise<void>;
}

async function startRecordingServer(): Promise<RecordingServer> {
  const accepted = new Set<string>();
  const received: IncomingMessage['headers'][] = [];
  const echoTool = {
    name: 'echo',
    description: 'Echoes the text back',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  };
  const many = Array.from({ length: 201 }, (_, i) => ({ ...echoTool, name: i === 0 ? 'echo' : `echo_${i}` }));
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push(req.headers);
      const send = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
      const credential = req.headers['x-api-key'] ?? req.headers.authorization?.replace(/^Bearer /, '');
      if (path === '/keyed' && (typeof credential !== 'string' || !accepted.has(credential))) return send(401, { error: 'Unauthorized' });
      if (path !== '/keyed' && path !== '/open' && !path.startsWith('/open/')) return send(404, { error: 'not found' });
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as {
        id?: unknown;
        method?: unknown;
        params?: { arguments?: { text?: unknown } };
      };
      if (body.method === 'tools/list')
        return send(200, { jsonrpc: '2.0', id: body.id, result: { tools: recording.oversize ? many : [echoTool] } });
      if (body.method === 'tools/call')
        return send(200, {
          jsonrpc: '2.0',
          id: body.id,
          result: { content: [{ type: 'text', text: String(body.params?.arguments?.text) }] },
        });
      send(200, { jsonrpc: '2.0', id: body.id ?? null, error: { code: -32601, message: 'Method not found' } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const recording: RecordingServer = {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    accepted,
    received,
    oversize: false,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return recording;
}

let server: RecordingServer;
let worker: Awaited<ReturnType<typeof workerWithToolServers>>;

beforeAll(async () => {
  server = await startRecordingServer();
  worker = await workerWithToolServers(stack, { keyed: `${server.origin}/keyed`, open: `${server.origin}/open` });
});

afterAll(async () => {
  await worker?.dispose();
  await server?.close();
  await closePg();
});

const KEYED_URL = () => toolServerUrl('keyed', `${server.origin}/keyed`);
const OPEN_URL = () => toolServerUrl('open', `${server.origin}/open`);

/** Calls the agent's routes on the tool-routing worker with `token`. */
function as<T = any>(agent: TestAgent, token: string, rest: string, init: Parameters<typeof call>[2] = {}): Promise<JsonResponse<T>> {
  return call<T>(worker.url, agentPath(agent.collection, agent.tokenId, rest), { token, ...init });
}

async function register(agent: TestAgent, url: string, auth: Record<string, string>): Promise<string> {
  const res = await as(agent, agent.token, '/mcp/connection', { method: 'POST', json: { url, auth } });
  expect(res.status, res.text).toBe(200);
  return res.body.id as string;
}

const echo = (agent: TestAgent, token: string, id: string) =>
  as(agent, token, `/mcp/connection/${id}/tools/call`, { method: 'POST', json: { name: 'echo', arguments: { text: 'hi' } } });

/** Every header value the tool server received from request `from` on. */
const headerValuesSince = (from: number) =>
  server.received.slice(from).flatMap((h) => Object.values(h).flatMap((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v])));

/** Sells the agent: transfers the NFT from its owner to a fresh buyer, who logs in. */
async function sell(agent: TestAgent): Promise<{ buyer: TestAccount; buyerToken: string }> {
  const buyer = newWallet();
  await transferFreshAgent(testnet, agent.owner, buyer.address, agent.tokenId);
  return { buyer, buyerToken: await login(testnet, buyer) };
}

describe('tool-server credentials after the agent is sold', () => {
  it("never sends the seller's credential for the buyer; the buyer re-enters theirs", async () => {
    const sellerKey = secretValue('seller-header');
    const sellerBearer = secretValue('seller-bearer');
    const buyerKey = secretValue('buyer-header');
    server.accepted.add(sellerKey).add(sellerBearer).add(buyerKey);
    const agent = await freshAgent(testnet);
    const keyed = await register(agent, KEYED_URL(), { type: 'header', headerName: 'x-api-key', value: sellerKey });
    const bearer = await register(agent, `${KEYED_URL()}?as=bearer`, { type: 'bearer', value: sellerBearer });
    const before = await as(agent, agent.token, '/mcp/connections');
    expect(before.body.connections.map((c: { credential: string }) => c.credential)).toEqual(['set', 'set']);
    expect((await echo(agent, agent.token, keyed)).status).toBe(200);

    const { buyer, buyerToken } = await sell(agent);
    const sold = server.received.length;

    // the seller is locked out; the buyer sees that the credentials must be entered again
    expectError(await echo(agent, agent.token, keyed), 403, 'not_owner');
    const listed = await as(agent, buyerToken, '/mcp/connections');
    expect(listed.status, listed.text).toBe(200);
    const byId = new Map(listed.body.connections.map((c: { id: string }) => [c.id, c]));
    expect(byId.get(keyed)).toMatchObject({
      credential: 'reenter_required',
      auth: { type: 'header', headerName: 'x-api-key', valueSet: false },
    });
    expect(byId.get(bearer)).toMatchObject({ credential: 'reenter_required', auth: { type: 'bearer', valueSet: false } });

    // calls that need a credential answer 409 and reach nothing
    for (const id of [keyed, bearer]) {
      expectError(await echo(agent, buyerToken, id), 409, 'credential_reentry_required');
      expectError(await as(agent, buyerToken, `/mcp/connection/${id}/tools`), 409, 'credential_reentry_required');
    }
    expect(server.received.length).toBe(sold);

    // a credential the server rejects changes nothing
    expectError(
      await as(agent, buyerToken, `/mcp/connection/${keyed}/auth`, {
        method: 'PUT',
        json: { url: KEYED_URL(), auth: { type: 'header', headerName: 'x-api-key', value: 'not-accepted' } },
      }),
      400,
      'tool_server_credential_rejected',
    );
    expectError(await echo(agent, buyerToken, keyed), 409, 'credential_reentry_required');

    // the buyer enters their own: it is used from now on
    const replaced = await as(agent, buyerToken, `/mcp/connection/${keyed}/auth`, {
      method: 'PUT',
      json: { url: KEYED_URL(), auth: { type: 'header', headerName: 'x-api-key', value: buyerKey } },
    });
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body).toMatchObject({
      id: keyed,
      credential: 'set',
      auth: { type: 'header', headerName: 'x-api-key', valueSet: true },
      tools: [{ name: 'echo' }],
    });
    expect(replaced.text).not.toContain(buyerKey);
    const afterReentry = await echo(agent, buyerToken, keyed);
    expect(afterReentry.status, afterReentry.text).toBe(200);
    expectError(await echo(agent, buyerToken, bearer), 409, 'credential_reentry_required');

    const sent = headerValuesSince(sold);
    expect(sent).toContain(buyerKey);
    expect(sent.filter((v) => v.includes(sellerKey) || v.includes(sellerBearer))).toEqual([]);

    // the seller's replaced credential is destroyed; the new one is the buyer's
    const entries = await sql<{ owner_wallet: string }>(
      stack.databaseUrl,
      'select owner_wallet from gateway.vault_entries where owner = $1',
      [`mcp_connection:${keyed}`],
    );
    expect(entries).toEqual([{ owner_wallet: buyer.address.toLowerCase() }]);
  });

  it("a connection without a credential is the seller's too: the buyer sees its origin only, 409 until they confirm it", async () => {
    const pathKey = secretValue('path-key');
    const queryKey = secretValue('query-key');
    const agent = await freshAgent(testnet);
    const secretUrl = `${OPEN_URL()}/${pathKey}/sse?api_key=${queryKey}`;
    const open = await register(agent, secretUrl, { type: 'none' });
    const before = await as(agent, agent.token, '/mcp/connections');
    expect(before.body.connections).toMatchObject([
      { id: open, url: secretUrl, credential: 'none', auth: { type: 'none', valueSet: false } },
    ]);
    expect((await echo(agent, agent.token, open)).status).toBe(200);

    const { buyer, buyerToken } = await sell(agent);
    const sold = server.received.length;
    const listed = await as(agent, buyerToken, '/mcp/connections');
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.connections).toEqual([
      expect.objectContaining({
        id: open,
        url: 'https://open.tools.example',
        credential: 'reenter_required',
        auth: { type: 'none', valueSet: false },
      }),
    ]);
    expect(listed.text).not.toContain(pathKey);
    expect(listed.text).not.toContain(queryKey);

    // nothing reaches the seller's tool server for the buyer
    const refused = await echo(agent, buyerToken, open);
    expectError(refused, 409, 'credential_reentry_required');
    expect(refused.text).not.toContain(pathKey);
    expectError(await as(agent, buyerToken, `/mcp/connection/${open}/tools`), 409, 'credential_reentry_required');
    expect(server.received.length).toBe(sold);

    // taking it over needs its full URL: the origin the buyer sees, or a guess, is not enough
    for (const url of [undefined, 'https://open.tools.example', `${OPEN_URL()}/wrong/sse?api_key=${queryKey}`]) {
      expectError(
        await as(agent, buyerToken, `/mcp/connection/${open}/auth`, { method: 'PUT', json: { url, auth: { type: 'none' } } }),
        409,
        'credential_reentry_required',
      );
    }
    expect(server.received.length).toBe(sold);

    // the buyer who knows the URL confirms it with PUT …/auth: it is theirs from now on
    const confirmed = await as(agent, buyerToken, `/mcp/connection/${open}/auth`, {
      method: 'PUT',
      json: { url: secretUrl, auth: { type: 'none' } },
    });
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body).toMatchObject({ id: open, url: secretUrl, credential: 'none', auth: { type: 'none', valueSet: false } });
    const used = await echo(agent, buyerToken, open);
    expect(used.status, used.text).toBe(200);
    expect(used.body.content).toEqual([{ type: 'text', text: 'hi' }]);
    const rows = await sql<{ created_by_wallet: string }>(
      stack.databaseUrl,
      'select created_by_wallet from gateway.mcp_connections where id = $1',
      [open],
    );
    expect(rows).toEqual([{ created_by_wallet: buyer.address.toLowerCase() }]);
  });

  it('PUT …/auth re-checks the stored URL against the outbound policy: 400 invalid_tool_server_url, nothing sent', async () => {
    const agent = await freshAgent(testnet);
    const open = await register(agent, OPEN_URL(), { type: 'none' });
    const refusedId = crypto.randomUUID();
    // a row stored under an older, laxer policy: an IP literal
    await sql(
      stack.databaseUrl,
      `insert into gateway.mcp_connections (id, chain_id, collection, token_id, url, auth_type, tools, created_by_wallet)
       select $2, chain_id, collection, token_id, 'https://127.0.0.1/open', 'none', tools, created_by_wallet from gateway.mcp_connections where id = $1`,
      [open, refusedId],
    );
    const from = server.received.length;
    const res = await as(agent, agent.token, `/mcp/connection/${refusedId}/auth`, { method: 'PUT', json: { auth: { type: 'none' } } });
    expectError(res, 400, 'invalid_tool_server_url');
    expect(res.body.error.details.reason).toEqual(expect.any(String));
    expect(server.received.length).toBe(from);
  });

  it('PUT …/auth refuses a tools list over the snapshot limits: 400 tool_snapshot_too_large, nothing changes', async () => {
    const agent = await freshAgent(testnet);
    const open = await register(agent, OPEN_URL(), { type: 'none' });
    server.oversize = true;
    try {
      expectError(
        await as(agent, agent.token, `/mcp/connection/${open}/auth`, { method: 'PUT', json: { auth: { type: 'none' } } }),
        400,
        'tool_snapshot_too_large',
      );
    } finally {
      server.oversize = false;
    }
    const listed = await as(agent, agent.token, '/mcp/connections');
    expect(listed.body.connections).toMatchObject([{ id: open, tools: [{ name: 'echo' }] }]);
  });

  it('answers 404 mcp_connection_not_found and 400 validation_failed when entering a credential', async () => {
    const agent = await freshAgent(testnet);
    expectError(
      await as(agent, agent.token, `/mcp/connection/${crypto.randomUUID()}/auth`, { method: 'PUT', json: { auth: { type: 'none' } } }),
      404,
      'mcp_connection_not_found',
    );
    const key = secretValue('own');
    server.accepted.add(key);
    const id = await register(agent, KEYED_URL(), { type: 'header', headerName: 'x-api-key', value: key });
    expectError(
      await as(agent, agent.token, `/mcp/connection/${id}/auth`, {
        method: 'PUT',
        json: { auth: { type: 'header', headerName: 'content-type', value: key } },
      }),
      400,
      'validation_failed',
    );
    expectError(
      await as(agent, agent.token, `/mcp/connection/${id}/auth`, { method: 'PUT', json: { auth: { type: 'bearer' } } }),
      400,
      'validation_failed',
    );
  });

  it("a vault row edited to name the buyer does not decrypt: 500, and the seller's secret is never sent", async () => {
    const sellerKey = secretValue('tampered');
    server.accepted.add(sellerKey);
    const agent = await freshAgent(testnet);
    const id = await register(agent, KEYED_URL(), { type: 'header', headerName: 'x-api-key', value: sellerKey });
    const { buyer, buyerToken } = await sell(agent);
    const sold = server.received.length;
    const edited = await sql(stack.databaseUrl, 'update gateway.vault_entries set owner_wallet = $2 where owner = $1 returning id', [
      `mcp_connection:${id}`,
      buyer.address.toLowerCase(),
    ]);
    expect(edited).toHaveLength(1);
    // the connection row too, so that only the vault's binding stands in the way
    await sql(stack.databaseUrl, 'update gateway.mcp_connections set created_by_wallet = $2 where id = $1', [
      id,
      buyer.address.toLowerCase(),
    ]);

    const res = await echo(agent, buyerToken, id);
    expectError(res, 500, 'internal_error');
    expect(res.text).not.toContain(sellerKey);
    expectError(await as(agent, buyerToken, `/mcp/connection/${id}/tools`), 500, 'internal_error');
    expect(server.received.length).toBe(sold);
    expect(headerValuesSince(sold).filter((v) => v.includes(sellerKey))).toEqual([]);
  });

  it('an entry stored before owners were recorded (owner_wallet null) must be entered again', async () => {
    const oldKey = secretValue('legacy');
    const newKey = secretValue('legacy-new');
    server.accepted.add(oldKey).add(newKey);
    const agent = await freshAgent(testnet);
    const id = await register(agent, KEYED_URL(), { type: 'header', headerName: 'x-api-key', value: oldKey });
    await sql(stack.databaseUrl, 'update gateway.vault_entries set owner_wallet = null where owner = $1', [`mcp_connection:${id}`]);
    const from = server.received.length;

    const listed = await as(agent, agent.token, '/mcp/connections');
    expect(listed.body.connections).toMatchObject([{ id, credential: 'reenter_required' }]);
    expectError(await echo(agent, agent.token, id), 409, 'credential_reentry_required');
    expect(server.received.length).toBe(from);

    const replaced = await as(agent, agent.token, `/mcp/connection/${id}/auth`, {
      method: 'PUT',
      json: { auth: { type: 'header', headerName: 'x-api-key', value: newKey } },
    });
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body.credential).toBe('set');
    expect((await echo(agent, agent.token, id)).status).toBe(200);
    expect(headerValuesSince(from).filter((v) => v.includes(oldKey))).toEqual([]);
  });

  it('a connection registered before registrants were recorded (created_by_wallet null) must be confirmed, even by its owner', async () => {
    const pathKey = secretValue('legacy-path');
    const agent = await freshAgent(testnet);
    const url = `${OPEN_URL()}/${pathKey}`;
    const id = await register(agent, url, { type: 'none' });
    await sql(stack.databaseUrl, 'update gateway.mcp_connections set created_by_wallet = null where id = $1', [id]);
    const from = server.received.length;

    const listed = await as(agent, agent.token, '/mcp/connections');
    expect(listed.body.connections).toMatchObject([{ id, url: 'https://open.tools.example', credential: 'reenter_required' }]);
    expectError(await echo(agent, agent.token, id), 409, 'credential_reentry_required');
    expect(server.received.length).toBe(from);

    const confirmed = await as(agent, agent.token, `/mcp/connection/${id}/auth`, { method: 'PUT', json: { url, auth: { type: 'none' } } });
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body).toMatchObject({ url, credential: 'none' });
    expect((await echo(agent, agent.token, id)).status).toBe(200);
  });
});
