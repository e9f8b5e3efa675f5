/**
 * Secrets stay secret: a unique value is stored through every path that stores one (LLM API key,
 * MCP bearer token, MCP custom header value, external database password), every read endpoint
 * and a range of error paths are exercised, and no response of this file (status line, headers,
 * body) may contain any of those values. The vault must not hold them in the clear either.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freshAgent, type TestAgent } from '../support/agent';
import { deployment, type JsonResponse, expectError } from '../support/http';
import { agentPath } from '../support/login';
import { loopbackWorker } from '../support/loopback-worker';
import { startPlainServer, startSdkServer, type TestServer } from '../support/mcp-servers';
import { adminStatements, closePg, sql } from '../support/pg';
import { captureConsole, responseRecorder, secretValue, type ConsoleCapture } from '../support/secrets';
import { toolServerUrl, workerWithToolServers } from '../support/tool-routing';

const stack = inject('stack');
const testnet = deployment('testnet');

const SECRETS = {
  llmKey: secretValue('llm'),
  llmKeyReplaced: secretValue('llm-old'),
  mcpHeader: secretValue('header'),
  mcpBearer: secretValue('bearer'),
  /** Quoted back by the tattling server in its JSON-RPC errors. */
  tattledHeader: secretValue('tattled'),
  dbPassword: secretValue('db'),
  /** Sent, refused, never stored: must not come back in an error either. */
  wrongHeader: secretValue('wrong-header'),
  wrongBearer: secretValue('wrong-bearer'),
  wrongDbPassword: secretValue('wrong-db'),
  invalidHeader: secretValue('invalid-header'),
};
/** The ones a successful request stored in the vault. */
const STORED = [SECRETS.llmKey, SECRETS.mcpHeader, SECRETS.mcpBearer, SECRETS.tattledHeader, SECRETS.dbPassword];

// A second database in the embedded Postgres with its own role stands in for an external database.
const externalDb = `scan_${randomBytes(4).toString('hex')}`;
const externalUser = `scan_reader_${randomBytes(4).toString('hex')}`;
const dbTarget = {
  host: '127.0.0.1',
  port: Number(new URL(stack.postgresAdminUrl).port),
  database: externalDb,
  user: externalUser,
  password: SECRETS.dbPassword,
  ssl: 'disable',
};

const recorder = responseRecorder();
let log: ConsoleCapture;
let worker: Awaited<ReturnType<typeof workerWithToolServers>>;
/** Runs the database steps: loopback databases need the local stack's DEV_LOOPBACK_TARGETS=1. */
let dbWorker: Awaited<ReturnType<typeof loopbackWorker>>;
let plain: TestServer;
let sdk: TestServer;
let tattler: Server;
let tattlerUrl: string;

/**
 * A tool server that lists `echo` and answers every tools/call with a JSON-RPC error quoting the
 * credential header it received: the gateway answers 502 and logs it, and neither may hold it.
 */
async function startTattler(): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { id?: unknown; method?: unknown };
      const reply =
        body.method === 'tools/list'
          ? { jsonrpc: '2.0', id: body.id, result: { tools: [{ name: 'echo', description: 'echo', inputSchema: { type: 'object' } }] } }
          : {
              jsonrpc: '2.0',
              id: body.id ?? null,
              error: { code: -32000, message: `refused x-tattle=${String(req.headers['x-tattle'])}` },
            };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp` };
}
let owner: TestAgent;
let stranger: TestAgent;

const admin = (database: string, statements: string[]) => adminStatements(stack.postgresAdminUrl, database, statements);

beforeAll(async () => {
  log = captureConsole();
  [plain, sdk] = await Promise.all([
    startPlainServer({ apiKey: SECRETS.mcpHeader }),
    startSdkServer({ stateful: true, bearer: SECRETS.mcpBearer }),
  ]);
  const tattle = await startTattler();
  tattler = tattle.server;
  tattlerUrl = tattle.url;
  [worker, dbWorker] = await Promise.all([
    workerWithToolServers(stack, { plain: plain.url, sdk: sdk.url, tattler: tattlerUrl }),
    loopbackWorker(stack),
  ]);
  await admin('postgres', [`create role "${externalUser}" login password '${SECRETS.dbPassword}'`, `create database "${externalDb}"`]);
  await admin(externalDb, ['create table public.orders (id int primary key)', `grant select on public.orders to "${externalUser}"`]);
  [owner, stranger] = await Promise.all([freshAgent(testnet), freshAgent(testnet)]);
});

afterAll(async () => {
  log?.restore();
  await worker?.dispose();
  await dbWorker?.dispose();
  await Promise.all([plain?.close(), sdk?.close()]);
  await new Promise<void>((resolve) => {
    if (!tattler) return resolve();
    tattler.close(() => resolve());
    tattler.closeAllConnections();
  });
  await closePg();
  await admin('postgres', [`drop database if exists "${externalDb}" with (force)`, `drop role if exists "${externalUser}"`]);
});

/** Calls the routed worker as `who` (or with another token) and records the response. */
function api<T = any>(who: TestAgent, rest: string, init: Parameters<typeof recorder.call>[2] = {}): Promise<JsonResponse<T>> {
  return recorder.call<T>(worker.url, agentPath(who.collection, who.tokenId, rest), { token: who.token, ...init });
}
const post = (who: TestAgent, rest: string, json: unknown) => api(who, rest, { method: 'POST', json });
/**
 * The database setup runs on a worker of its own with DEV_LOOPBACK_TARGETS=1 (the external
 * database is on loopback): the routed worker's outbound service (test/support/tool-routing.ts)
 * also takes its TCP sockets, and a connection to Postgres through it never completes. Same JWT
 * secret and chain, so the same tokens work there.
 */
function dbApi<T = any>(who: TestAgent, rest: string, init: Parameters<typeof recorder.call>[2] = {}): Promise<JsonResponse<T>> {
  return recorder.call<T>(dbWorker.url, agentPath(who.collection, who.tokenId, rest), { token: who.token, ...init });
}
const dbPost = (who: TestAgent, rest: string, json: unknown) => dbApi(who, rest, { method: 'POST', json });

const llm = { provider: 'openai', model: 'gpt-4.1-mini', temperature: 0.2, maxTokens: 2048 };

describe('secrets never come back', () => {
  let headerId: string;
  let bearerId: string;
  let tattlerId: string;

  it('stores a secret through every path that stores one', async () => {
    expect((await post(owner, '/llm/settings', { ...llm, apiKey: SECRETS.llmKeyReplaced })).status).toBe(200);
    const saved = await post(owner, '/llm/settings', { ...llm, apiKey: SECRETS.llmKey });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.apiKeySet).toBe(true);

    const header = await post(owner, '/mcp/connection', {
      url: toolServerUrl('plain', plain.url),
      auth: { type: 'header', headerName: 'x-api-key', value: SECRETS.mcpHeader },
    });
    expect(header.status, header.text).toBe(200);
    headerId = header.body.id;
    // entering a connection's credential again (the path a new owner takes after a transfer) stores it too
    const reentered = await api(owner, `/mcp/connection/${headerId}/auth`, {
      method: 'PUT',
      json: { auth: { type: 'header', headerName: 'x-api-key', value: SECRETS.mcpHeader } },
    });
    expect(reentered.status, reentered.text).toBe(200);
    const bearer = await post(owner, '/mcp/connection', {
      url: toolServerUrl('sdk', sdk.url),
      auth: { type: 'bearer', value: SECRETS.mcpBearer },
    });
    expect(bearer.status, bearer.text).toBe(200);
    bearerId = bearer.body.id;
    const tattled = await post(owner, '/mcp/connection', {
      url: toolServerUrl('tattler', tattlerUrl),
      auth: { type: 'header', headerName: 'x-tattle', value: SECRETS.tattledHeader },
    });
    expect(tattled.status, tattled.text).toBe(200);
    tattlerId = tattled.body.id;

    const first = await dbPost(owner, '/database/settings/first-step', dbTarget);
    expect(first.status, first.text).toBe(200);
    const second = await dbPost(owner, '/database/settings/second-step', { setupId: first.body.setupId, tables: ['public.orders'] });
    expect(second.status, second.text).toBe(200);

    const stored = await sql<{ owner: string }>(
      stack.databaseUrl,
      'select owner from gateway.vault_entries where chain_id = $1 and collection = $2 and token_id = $3',
      [testnet.chainId, owner.collection.toLowerCase(), owner.tokenId.toString()],
    );
    expect(stored.map((r) => r.owner).sort()).toEqual(
      [
        'llm_settings',
        `mcp_connection:${headerId}`,
        `mcp_connection:${bearerId}`,
        `mcp_connection:${tattlerId}`,
        `database_setup:${first.body.setupId}`,
      ].sort(),
    );
  });

  it('reads every endpoint that shows what was stored', async () => {
    for (const rest of [
      '',
      '/llm/settings',
      '/mcp/connections',
      `/mcp/connection/${headerId}/tools`,
      `/mcp/connection/${bearerId}/tools`,
      `/mcp/connection/${tattlerId}/tools`,
    ]) {
      const res = await api(owner, rest);
      expect(res.status, `${rest}: ${res.text}`).toBe(200);
    }
    const setups = await dbApi(owner, '/database/settings');
    expect(setups.status, setups.text).toBe(200);
    expect(setups.body.active).toMatchObject({ user: externalUser, activeTables: ['public.orders'] });
    for (const id of [headerId, bearerId]) {
      const res = await post(owner, `/mcp/connection/${id}/tools/call`, { name: 'echo', arguments: { text: 'hello' } });
      expect(res.status, res.text).toBe(200);
    }
    for (const path of ['/openapi.json', '/docs', '/health', '/']) {
      const res = await recorder.call(worker.url, path);
      expect(res.status, path).toBeLessThan(500);
    }
  });

  it('walks the error paths', async () => {
    const plainUrl = toolServerUrl('plain', plain.url);
    const sdkUrl = toolServerUrl('sdk', sdk.url);
    expectError(
      await post(owner, '/mcp/connection', { url: plainUrl, auth: { type: 'header', headerName: 'x-api-key', value: SECRETS.mcpHeader } }),
      400,
      'mcp_connection_exists',
    );
    expectError(
      await post(owner, '/mcp/connection', {
        url: `${plainUrl}/`,
        auth: { type: 'header', headerName: 'x-api-key', value: SECRETS.wrongHeader },
      }),
      400,
      'tool_server_invalid',
    );
    expectError(
      await post(stranger, '/mcp/connection', {
        url: plainUrl,
        auth: { type: 'header', headerName: 'x-api-key', value: SECRETS.wrongHeader },
      }),
      400,
      'tool_server_credential_rejected',
    );
    expectError(
      await post(stranger, '/mcp/connection', { url: sdkUrl, auth: { type: 'bearer', value: SECRETS.wrongBearer } }),
      400,
      'tool_server_credential_rejected',
    );
    expectError(
      await api(owner, `/mcp/connection/${headerId}/auth`, {
        method: 'PUT',
        json: { auth: { type: 'header', headerName: 'x-api-key', value: SECRETS.wrongHeader } },
      }),
      400,
      'tool_server_credential_rejected',
    );
    expectError(
      await api(owner, `/mcp/connection/${headerId}/auth`, {
        method: 'PUT',
        json: { auth: { type: 'header', headerName: 'cookie', value: SECRETS.invalidHeader } },
      }),
      400,
      'validation_failed',
    );
    expectError(
      await post(stranger, '/mcp/connection', {
        url: plainUrl,
        auth: { type: 'header', headerName: 'x-api-key', value: ` ${SECRETS.invalidHeader}` },
      }),
      400,
      'validation_failed',
    );
    expectError(
      await post(stranger, '/mcp/connection', {
        url: plainUrl,
        auth: { type: 'header', headerName: 'cookie', value: SECRETS.invalidHeader },
      }),
      400,
      'validation_failed',
    );
    expectError(
      await post(stranger, '/mcp/connection', {
        url: plainUrl,
        auth: { type: 'bearer', value: `${SECRETS.invalidHeader}${'x'.repeat(8_200)}` },
      }),
      400,
      'validation_failed',
    );
    expectError(
      await post(stranger, '/mcp/connection', { url: plainUrl, auth: { type: 'basic', value: SECRETS.invalidHeader } }),
      400,
      'validation_failed',
    );
    expectError(
      await post(stranger, '/mcp/connection', {
        url: `http://${SECRETS.invalidHeader}.example/mcp`,
        auth: { type: 'bearer', value: SECRETS.invalidHeader },
      }),
      400,
      'invalid_tool_server_url',
    );
    expectError(
      await post(stranger, '/mcp/connection', {
        url: `https://u:${SECRETS.invalidHeader}@plain.tools.example/mcp`,
        auth: { type: 'none' },
      }),
      400,
      'invalid_tool_server_url',
    );
    expectError(await post(stranger, '/llm/settings', { ...llm, maxTokens: 0, apiKey: SECRETS.invalidHeader }), 400, 'validation_failed');
    expectError(await post(stranger, '/llm/settings', { ...llm, apiKey: 42 }), 400, 'validation_failed');
    expectError(
      await dbPost(stranger, '/database/settings/first-step', { ...dbTarget, password: SECRETS.wrongDbPassword }),
      424,
      'database_unreachable',
    );
    expectError(await dbPost(stranger, '/database/settings/first-step', { ...dbTarget, password: '' }), 400, 'validation_failed');

    expectError(await post(owner, `/mcp/connection/${tattlerId}/tools/call`, { name: 'echo', arguments: {} }), 502, 'tool_server_error');
    expectError(
      await post(owner, `/mcp/connection/${headerId}/tools/call`, { name: 'echo', arguments: { text: 5 } }),
      400,
      'invalid_tool_arguments',
    );
    expectError(await post(owner, `/mcp/connection/${headerId}/tools/call`, { name: 'nope', arguments: {} }), 404, 'tool_not_found');
    expectError(await api(owner, `/mcp/connection/${crypto.randomUUID()}/tools`), 404, 'mcp_connection_not_found');
    expectError(await api(stranger, '/llm/settings'), 404, 'llm_settings_not_found');

    for (const rest of ['/llm/settings', '/mcp/connections', `/mcp/connection/${headerId}/tools`]) {
      expectError(await api(owner, rest, { token: stranger.token }), 403, 'not_owner');
      expectError(await api(owner, rest, { token: '' }), 401, 'unauthorized');
    }
    expectError(await dbApi(owner, '/database/settings', { token: stranger.token }), 403, 'not_owner');
    expectError(await dbApi(owner, '/database/settings', { token: '' }), 401, 'unauthorized');
  });

  it('answers at use time without the stored credential when the server stops', async () => {
    await sdk.close();
    const res = await post(owner, `/mcp/connection/${bearerId}/tools/call`, { name: 'echo', arguments: { text: 'x' } });
    expectError(res, 424, 'tool_server_unreachable');
  });

  it('no response of this file holds a secret: no status line, header or body', () => {
    expect(recorder.responses.length).toBeGreaterThan(40);
    expect(recorder.leaks(Object.values(SECRETS))).toEqual([]);
    // controls: the scan does see bodies and headers
    expect(recorder.leaks(['"apiKeySet":true', '"valueSet":true']).map((l) => l.where)).toContain('body');
    expect(recorder.leaks(['x-request-id']).map((l) => l.where)).toContain('header x-request-id');
  });

  it("the gateway's log holds no secret", () => {
    const text = log.lines.join('\n');
    expect(text).toContain('refused x-tattle=***'); // control: the 502 above was logged, scrubbed
    for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
  });

  it('the gateway tables hold no secret in the clear', async () => {
    for (const secret of Object.values(SECRETS)) {
      const [vault] = await sql<{ n: number }>(
        stack.databaseUrl,
        `select count(*)::int as n from gateway.vault_entries
         where position(convert_to($1, 'UTF8') in ciphertext) > 0 or position(convert_to($1, 'UTF8') in wrapped_key) > 0
            or position(convert_to($1, 'UTF8') in convert_to(owner, 'UTF8')) > 0`,
        [secret],
      );
      expect(vault!.n, secret).toBe(0);
      for (const table of ['mcp_connections', 'llm_settings', 'database_setups', 'audit_log']) {
        const [row] = await sql<{ n: number }>(
          stack.databaseUrl,
          `select count(*)::int as n from gateway.${table} t where strpos(t::text, $1) > 0`,
          [secret],
        );
        expect(row!.n, `${table}: ${secret}`).toBe(0);
      }
    }
    // and the stored ones are there, sealed
    const [entries] = await sql<{ n: number }>(
      stack.databaseUrl,
      'select count(*)::int as n from gateway.vault_entries where collection = $1 and token_id = $2',
      [owner.collection.toLowerCase(), owner.tokenId.toString()],
    );
    expect(entries!.n).toBe(STORED.length);
  });
});
