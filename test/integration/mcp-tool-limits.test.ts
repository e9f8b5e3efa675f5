/**
 * Tool calls that cannot pin the gateway, against the real worker: schema regexes run
 * in linear time (or the schema is refused at registration, naming the pattern), format checks do
 * not backtrack, arguments are capped before validation, and an agent's connections and a
 * server's tool snapshot are limited. An OAuth-only server is refused with its own code.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MAX_ARGUMENT_STRING_CHARS, MAX_CONNECTIONS_PER_AGENT, MAX_SNAPSHOT_TOOLS } from '../../src/tool-servers/tool-limits';
import { freshAgent, type TestAgent } from '../support/agent';
import { call, deployment, expectError, type JsonResponse } from '../support/http';
import { agentPath } from '../support/login';
import { closePg, vaultEntryCount } from '../support/pg';
import { startSchemaServer, type SchemaServer, type SchemaTool } from '../support/schema-server';
import { workerWithToolServers } from '../support/tool-routing';

const stack = inject('stack');
const testnet = deployment('testnet');
const EVIL = `${'a'.repeat(40)}!`;

const tool = (name: string, properties: Record<string, unknown>, extra: Record<string, unknown> = {}): SchemaTool => ({
  name,
  description: name,
  inputSchema: { type: 'object', properties, ...extra },
});

const PATTERN = '(a|b|c|d|e|f|g|h)+z?$';
const refs = (n: number) => Array.from({ length: n }, () => ({ $ref: '#/$defs/p' }));
/** `d0` refers twice to `d1`, which refers twice to `d2`...: 2^n applications of the last link per value. */
const fanout = (n: number) => ({
  ...Object.fromEntries(
    Array.from({ length: n }, (_, i) => [`d${i}`, { allOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] }]),
  ),
  [`d${n}`]: { type: 'array', items: { type: 'number' } },
});

const VARIANTS: Record<string, SchemaTool[]> = {
  ok: [tool('echo', { text: { type: 'string' } })],
  evil: [
    tool('pattern', { s: { type: 'string', pattern: '^(a+)+$' } }, { required: ['s'] }),
    tool('keys', {}, { patternProperties: { '^(a|a)*$': { type: 'number' } }, propertyNames: { pattern: '^(a+)+$' } }),
    tool('formats', {
      uri: { type: 'string', format: 'uri' },
      url: { type: 'string', format: 'url' },
      email: { type: 'string', format: 'email' },
      host: { type: 'string', format: 'hostname' },
    }),
  ],
  lookahead: [tool('look', { s: { type: 'string', pattern: '^(?=a)(a+)+$' } })],
  many: Array.from({ length: MAX_SNAPSHOT_TOOLS + 1 }, (_, i) => tool(`t${i}`, {})),
  // 5000 uses of one pattern through $ref (105 KB as written, one pattern): refused at registration.
  multiply: [tool('refs', { a: { type: 'array', items: { allOf: refs(5_000) } } }, { $defs: { p: { pattern: PATTERN } } })],
  // Under the caps as written and expanded, but costly to run against long or many arguments.
  costly: [
    tool('refs', { a: { type: 'array', items: { allOf: refs(150) } } }, { $defs: { p: { pattern: PATTERN } } }),
    tool('patterns', {
      s: { type: 'array', items: { anyOf: Array.from({ length: 100 }, (_, i) => ({ pattern: `(a|b|c|d|e|f|g|h)+z?${i}$` })) } },
    }),
    tool('fanout', { x: { $ref: '#/$defs/d0' } }, { $defs: fanout(8) }),
    tool('unique', { x: { type: 'array', uniqueItems: true } }),
    tool('echo', { text: { type: 'string', pattern: '^[a-z]+$' } }),
    tool('numbers', { x: { type: 'array', items: { type: 'number' } } }),
    tool('constant', { list: { type: 'array', items: { const: 'k'.repeat(1_022) } } }),
  ],
  // A const over 1 KiB: refused at registration.
  bigConst: [tool('constant', { list: { type: 'array', items: { const: 'k'.repeat(40_000) } } })],
};

let server: SchemaServer;
let worker: Awaited<ReturnType<typeof workerWithToolServers>>;

beforeAll(async () => {
  server = await startSchemaServer(VARIANTS);
  worker = await workerWithToolServers(stack, { schemas: `${server.origin}/` });
});

afterAll(async () => {
  await worker?.dispose();
  await server?.close();
  await closePg();
});

const urlOf = (variant: string) => `https://schemas.tools.example/${variant}`;

function api(who: TestAgent, rest: string, json?: unknown): Promise<JsonResponse<any>> {
  return call(worker.url, agentPath(who.collection, who.tokenId, rest), {
    token: who.token,
    ...(json === undefined ? {} : { method: 'POST', json }),
  });
}

const register = (who: TestAgent, url: string) => api(who, '/mcp/connection', { url, auth: { type: 'none' } });

async function timedCall(who: TestAgent, id: string, name: string, args: unknown) {
  const started = Date.now();
  const res = await api(who, `/mcp/connection/${id}/tools/call`, { name, arguments: args });
  return { res, ms: Date.now() - started };
}

describe('schema regexes cannot pin the gateway', () => {
  let who: TestAgent;
  let id: string;
  beforeAll(async () => {
    who = await freshAgent(testnet);
    const res = await register(who, urlOf('evil'));
    expect(res.status, res.text).toBe(200);
    id = res.body.id;
  });

  it('pattern ^(a+)+$ against a 40-character evil argument: 400 invalid_tool_arguments within 5 s, nothing sent upstream', async () => {
    const before = server.calls.get('evil') ?? 0;
    const { res, ms } = await timedCall(who, id, 'pattern', { s: EVIL });
    expectError(res, 400, 'invalid_tool_arguments');
    expect(ms).toBeLessThan(5_000);
    expect(server.calls.get('evil') ?? 0).toBe(before);
    const good = await timedCall(who, id, 'pattern', { s: 'a'.repeat(10_000) });
    expect(good.res.status, good.res.text).toBe(200);
  });

  it('patternProperties and propertyNames with evil keys: 400 within 5 s', async () => {
    const { res, ms } = await timedCall(who, id, 'keys', { [EVIL]: 1, aaaa: 'x' });
    expectError(res, 400, 'invalid_tool_arguments');
    expect(ms).toBeLessThan(5_000);
  });

  it.each([
    ['uri', `a:${'/'.repeat(30_000)}\u0001`],
    ['url', `http://${'a-'.repeat(15_000)}! x`],
    ['email', `${'a'.repeat(20_000)}@${'a.'.repeat(5_000)}!`],
    ['host', `${'a-'.repeat(15_000)}!`],
  ])('format %s with a long evil string: 400 within 5 s', async (field, value) => {
    const { res, ms } = await timedCall(who, id, 'formats', { [field]: value });
    expectError(res, 400, 'invalid_tool_arguments');
    expect(ms).toBeLessThan(5_000);
  });

  it('a short valid url still passes the format check', async () => {
    const { res } = await timedCall(who, id, 'formats', { url: 'https://tools.example.com/a', email: 'a@example.com' });
    expect(res.status, res.text).toBe(200);
  });

  it('a schema regex the linear-time engine cannot run is refused at registration, naming it', async () => {
    const other = await freshAgent(testnet);
    const res = await register(other, urlOf('lookahead'));
    expectError(res, 400, 'invalid_tool_schema');
    expect(res.body.error.details.problem).toContain('^(?=a)(a+)+$');
    expect((await api(other, '/mcp/connections')).body.connections).toEqual([]);
  });
});

describe('schemas that multiply work cannot pin the gateway', () => {
  it('a const over 1 KiB: refused at registration with 400 invalid_tool_schema, storing nothing', async () => {
    const who = await freshAgent(testnet);
    const res = await register(who, urlOf('bigConst'));
    expectError(res, 400, 'invalid_tool_schema');
    expect(res.body.error.details.problem).toContain('const of more than 1024 bytes');
    expect(res.text.length).toBeLessThan(2_048);
    expect((await api(who, '/mcp/connections')).body.connections).toEqual([]);
  });

  it('5000 uses of one pattern through $ref: refused at registration with 400 invalid_tool_schema within 5 s, storing nothing', async () => {
    const who = await freshAgent(testnet);
    const started = Date.now();
    const res = await register(who, urlOf('multiply'));
    expectError(res, 400, 'invalid_tool_schema');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(res.body.error.details.problem).toContain('once its $refs are followed');
    expect((await api(who, '/mcp/connections')).body.connections).toEqual([]);
  });

  describe('a schema under the caps, with arguments that make it costly', () => {
    let who: TestAgent;
    let id: string;
    beforeAll(async () => {
      who = await freshAgent(testnet);
      const res = await register(who, urlOf('costly'));
      expect(res.status, res.text).toBe(200);
      id = res.body.id;
    });

    it.each([
      ['refs', '150 $ref uses of a pattern against 30000 items', { a: Array.from({ length: 30_000 }, () => 'a') }],
      [
        'patterns',
        '100 patterns in anyOf against 8 strings of 32000 characters',
        { s: Array.from({ length: 8 }, () => 'a'.repeat(32_000)) },
      ],
      ['fanout', 'a $ref chain doubling 8 times against 20000 numbers', { x: Array.from({ length: 20_000 }, () => 1) }],
      ['unique', 'uniqueItems against 40000 numbers', { x: Array.from({ length: 40_000 }, (_, i) => i) }],
      [
        'unique',
        'uniqueItems against 3800 arrays of 31 numbers differing in the last',
        { x: Array.from({ length: 3_800 }, (_, i) => [...Array.from({ length: 30 }, () => 7), i]) },
      ],
    ])('%s (%s): 400 invalid_tool_arguments within 5 s, nothing sent upstream', async (name, _, args) => {
      const before = server.calls.get('costly') ?? 0;
      const { res, ms } = await timedCall(who, id, name, args);
      expectError(res, 400, 'invalid_tool_arguments');
      expect(res.body.error.message).toContain('too much work');
      expect(res.body.error.details.problems).toEqual(["the arguments take too much work to check against this tool's schema"]);
      expect(ms).toBeLessThan(5_000);
      expect(server.calls.get('costly') ?? 0).toBe(before);
    });

    it('an ordinary schema failing 60000 times (one error per item): 400 listing the first problems, within 5 s', async () => {
      const { res, ms } = await timedCall(who, id, 'numbers', { x: Array.from({ length: 60_000 }, () => 'a') });
      expectError(res, 400, 'invalid_tool_arguments');
      expect(ms).toBeLessThan(5_000);
      expect(res.body.error.details.problems).toHaveLength(5);
      expect(res.body.error.details.problems[0]).toBe('#/x/0: Instance type "string" is invalid. Expected "number".');
    });

    it('a 1 KiB const failed by 60000 items: a small 400 within a second, nothing sent upstream', async () => {
      const before = server.calls.get('costly') ?? 0;
      const { res, ms } = await timedCall(who, id, 'constant', { list: Array.from({ length: 60_000 }, () => 0) });
      expectError(res, 400, 'invalid_tool_arguments');
      console.log(`issue 18 figures: 1 KiB const x 60000 items -> ${res.text.length} bytes of error body in ${ms} ms`);
      expect(res.text.length).toBeLessThan(2_048);
      expect(ms).toBeLessThan(1_000);
      expect(server.calls.get('costly') ?? 0).toBe(before);
    });

    it('the same tools with ordinary arguments still work, and a normal tool too', async () => {
      for (const [name, args] of [
        ['refs', { a: Array.from({ length: 100 }, () => 'abc') }],
        ['patterns', { s: ['abc7', 'h42'] }],
        ['fanout', { x: [1, 2, 3] }],
        ['unique', { x: Array.from({ length: 1_000 }, (_, i) => i) }],
        ['echo', { text: 'x'.repeat(MAX_ARGUMENT_STRING_CHARS) }],
      ] as const) {
        const { res } = await timedCall(who, id, name, args);
        expect(res.status, `${name}: ${res.text}`).toBe(200);
      }
      expectError((await timedCall(who, id, 'unique', { x: [1, 1] })).res, 400, 'invalid_tool_arguments');
    });
  });
});

describe('argument caps', () => {
  it('refuses a string over the cap, and arguments over 256 KiB, with 400 tool_arguments_too_large', async () => {
    const who = await freshAgent(testnet);
    const reg = await register(who, urlOf('ok'));
    expect(reg.status, reg.text).toBe(200);
    const long = await timedCall(who, reg.body.id, 'echo', { text: 'x'.repeat(MAX_ARGUMENT_STRING_CHARS + 1) });
    expectError(long.res, 400, 'tool_arguments_too_large');
    const wide = await timedCall(
      who,
      reg.body.id,
      'echo',
      Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, 'y'.repeat(30_000)])),
    );
    expectError(wide.res, 400, 'tool_arguments_too_large');
    const fine = await timedCall(who, reg.body.id, 'echo', { text: 'x'.repeat(MAX_ARGUMENT_STRING_CHARS) });
    expect(fine.res.status, fine.res.text).toBe(200);
  });
});

describe('limits on connections and snapshots', () => {
  it(`refuses a server listing more than ${MAX_SNAPSHOT_TOOLS} tools with 400 tool_snapshot_too_large, storing nothing`, async () => {
    const who = await freshAgent(testnet);
    expectError(await register(who, urlOf('many')), 400, 'tool_snapshot_too_large');
    expect((await api(who, '/mcp/connections')).body.connections).toEqual([]);
  });

  it(`lets an agent hold ${MAX_CONNECTIONS_PER_AGENT} connections, also under concurrent registrations`, async () => {
    const who = await freshAgent(testnet);
    const results = await Promise.all(
      Array.from({ length: MAX_CONNECTIONS_PER_AGENT + 5 }, (_, i) => register(who, `${urlOf('ok')}?n=${i}`)),
    );
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status !== 200);
    expect(ok).toHaveLength(MAX_CONNECTIONS_PER_AGENT);
    for (const res of refused) expectError(res, 400, 'mcp_connection_limit');
    expect((await api(who, '/mcp/connections')).body.connections).toHaveLength(MAX_CONNECTIONS_PER_AGENT);
    expectError(await register(who, `${urlOf('ok')}?n=late`), 400, 'mcp_connection_limit');
    // Removing one makes room again.
    const removed = await call(worker.url, agentPath(who.collection, who.tokenId, `/mcp/connection/${ok[0]!.body.id}`), {
      token: who.token,
      method: 'DELETE',
    });
    expect(removed.status).toBe(200);
    expect((await register(who, `${urlOf('ok')}?n=again`)).status).toBe(200);
  });
});

describe('OAuth tool servers', () => {
  it('refuses a server that demands OAuth with 400 tool_server_oauth_unsupported, storing nothing', async () => {
    const who = await freshAgent(testnet);
    const res = await api(who, '/mcp/connection', { url: urlOf('oauth'), auth: { type: 'bearer', value: 'static-token-123' } });
    expectError(res, 400, 'tool_server_oauth_unsupported');
    expect(res.body.error.message).toMatch(/OAuth tool servers are not supported/);
    expect(await vaultEntryCount(stack.databaseUrl, who, testnet.chainId)).toBe(0);
  });
});
