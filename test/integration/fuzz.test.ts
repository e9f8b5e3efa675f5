/**
 * Bad input as a measured figure (issue 18): fast-check sends random and mutated requests to every
 * operation of the worker's own OpenAPI document (paths, query strings, headers, bodies, encodings),
 * with the agent owner's token, a stranger's, another chain's, a forged one or none, and asserts
 * for each answer: never a 5xx other than a 503 the operation declares; never a stack, SQL text or
 * secret in the body; and a refused request (4xx/5xx) stores nothing (rows of the agent's schema
 * and of its gateway rows counted before and after).
 *
 * Seeded and bounded here (`FUZZ_RUNS`, default 500; `FUZZ_SEED`, default 18); `npm run test:fuzz`
 * runs 20000. The figures are printed at the end: cases run, answers by status, 5xx seen.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startMiniflare } from '../../scripts/lib/worker-bundle';
import { mintFreshAgent, newWallet, type TestAccount } from '../support/chain';
import { deployment, resendingFetch } from '../support/http';
import { login } from '../support/login';
import { closePg, sql } from '../support/pg';
import { workerBindingsFor } from '../support/worker';

const stack = inject('stack');
const testnet = deployment('testnet');
const RUNS = Number(process.env.FUZZ_RUNS ?? 500);
const SEED = Number(process.env.FUZZ_SEED ?? 18);
const UNLIMITED = 1_000_000_000;

interface Operation {
  method: string;
  path: string;
  query: string[];
  bodyProperties: string[];
  statuses: Set<string>;
}

let worker: Awaited<ReturnType<typeof startMiniflare>>;
let owner: TestAccount;
let tokenId: bigint;
let tokens: Record<string, string | undefined>;
let operations: Operation[];
let secrets: string[];
const seen = new Map<number, number>();
let serverErrors = 0;

beforeAll(async () => {
  worker = await startMiniflare({
    scriptPath: stack.scriptPath,
    deployment: 'testnet',
    bindings: { ...workerBindingsFor(stack), MCP_TIMEOUT_MS: '1000' },
    limits: { LOGIN_RATE_LIMITER: UNLIMITED, AGENT_RATE_LIMITER: UNLIMITED, IP_RATE_LIMITER: UNLIMITED },
  });
  owner = newWallet();
  tokenId = await mintFreshAgent(testnet, owner.address);
  const [own, stranger, other] = await Promise.all([
    login(testnet, owner),
    login(testnet, newWallet()),
    login(deployment('mainnet'), owner),
  ]);
  tokens = { owner: own, stranger, otherChain: other, forged: `${own.slice(0, -4)}AAAA`, garbage: 'not.a.jwt', none: undefined };
  const doc = (await (await fetch(`${worker.url}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { parameters?: { in: string; name: string }[]; requestBody?: unknown; responses: object }>>;
  };
  operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      query: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
      bodyProperties: Object.keys(
        (op.requestBody as { content?: { 'application/json'?: { schema?: { properties?: object } } } } | undefined)?.content?.[
          'application/json'
        ]?.schema?.properties ?? {},
      ),
      statuses: new Set(Object.keys(op.responses)),
    })),
  );
  const password = new URL(stack.databaseUrl).password;
  secrets = [
    stack.jwtSecret,
    stack.vaultKek,
    owner.privateKey,
    owner.privateKey.slice(2),
    own,
    ...(password.length >= 6 ? [password] : []),
  ];
}, 60_000);

afterAll(async () => {
  await worker?.dispose();
  await closePg();
});

/** Rows that belong to the agent: its schema's tables and the gateway's rows keyed by it. */
async function storedRows(): Promise<number> {
  const tables = await sql<{ schema: string; table: string; keyed: boolean }>(
    stack.databaseUrl,
    `select t.table_schema as schema, t.table_name as table,
            exists (select 1 from information_schema.columns c where c.table_schema = t.table_schema and c.table_name = t.table_name and c.column_name = 'token_id') as keyed
       from information_schema.tables t
      where t.table_type = 'BASE TABLE'
        and (t.table_schema = 'gateway' or t.table_schema = (select schema_name from gateway.agent_storage where chain_id = $1 and collection = $2 and token_id = $3))`,
    [testnet.chainId, testnet.collection.toLowerCase(), tokenId.toString()],
  );
  let total = 0;
  for (const { schema, table, keyed } of tables) {
    if (schema === 'gateway' && !keyed) continue;
    const where = keyed ? ' where chain_id = $1 and collection = $2 and token_id = $3' : '';
    const rows = await sql<{ n: string }>(
      stack.databaseUrl,
      `select count(*) as n from "${schema}"."${table}"${where}`,
      keyed ? [testnet.chainId, testnet.collection.toLowerCase(), tokenId.toString()] : [],
    );
    total += Number(rows[0]!.n);
  }
  return total;
}

const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', 'notes', '..', '../..', '%00', '%ff', '%2e%2e', 'conversation-context-discovery/x', 'a'.repeat(300), '\u202e', '😀'),
);
const jsonish = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  text,
  fc.bigInt().map(String),
  fc.constantFrom(null, true, -1, 0, 1e308, 2 ** 53 + 1),
);

function pathValue(name: string): fc.Arbitrary<string> {
  if (name === 'agentCollectionAddress') {
    return fc.oneof(
      fc.constant(testnet.collection),
      fc.constant(testnet.collection.toLowerCase()),
      fc.constantFrom('0x0', `0x${'f'.repeat(40)}`),
      text,
    );
  }
  if (name === 'agentTokenId')
    return fc.oneof(fc.constant(tokenId.toString()), fc.constantFrom('0', '-1', '01', '1e3', `${2n ** 256n}`), text);
  return fc.oneof(fc.constantFrom('notes', 'default', '00000000-0000-0000-0000-000000000000'), text);
}

const body = (op: Operation) =>
  fc.oneof(
    fc.record(Object.fromEntries(op.bodyProperties.map((p) => [p, jsonish])), { requiredKeys: [] }).map((v) => JSON.stringify(v)),
    fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
    text,
    fc.uint8Array({ maxLength: 64 }),
    fc.integer({ min: 60, max: 5_000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
    fc.constant(undefined),
  );

const request = fc.constantFrom(0).chain(() =>
  fc.nat({ max: 1_000 }).chain((i) => {
    const op = operations[i % operations.length]!;
    const names = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    return fc.record({
      op: fc.constant(op),
      params: fc.tuple(...names.map((n) => pathValue(n).map((v) => [n, v] as const))),
      encodeParams: fc.boolean(),
      suffix: fc.constantFrom('', '/', '//', '/x', '?', '#x'),
      query: fc.dictionary(fc.oneof(fc.constantFrom(...op.query, 'page'), text), fc.oneof(text, fc.integer().map(String)), { maxKeys: 4 }),
      auth: fc.constantFrom('owner', 'owner', 'stranger', 'otherChain', 'forged', 'garbage', 'none'),
      body: body(op),
      contentType: fc.constantFrom(
        'application/json',
        'application/json; charset=utf-8',
        'application/json; charset=latin1',
        'text/plain',
        undefined,
      ),
      encoding: fc.constantFrom(undefined, undefined, 'gzip', 'br', 'identity'),
      headers: fc.dictionary(
        fc.constantFrom('accept', 'idempotency-key', 'x-request-id', 'cf-connecting-ip', 'origin', 'if-none-match'),
        fc.string({ maxLength: 60 }).filter((v) => /^[\t\x20-\x7e]*$/.test(v)),
        { maxKeys: 3 },
      ),
    });
  }),
);

type Case = typeof request extends fc.Arbitrary<infer T> ? T : never;

function urlOf(c: Case): string {
  let path = c.op.path;
  for (const [name, value] of c.params) path = path.replace(`{${name}}`, c.encodeParams ? encodeURIComponent(value) : value);
  const query = new URLSearchParams(c.query).toString();
  return `${worker.url}${path}${c.suffix}${query ? `?${query}` : ''}`;
}

async function send(c: Case): Promise<{ status: number; text: string }> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(c.headers)) headers.set(name, value);
  const token = tokens[c.auth];
  if (token !== undefined) headers.set('authorization', `Bearer ${token}`);
  const withBody = c.op.method !== 'GET' && c.op.method !== 'HEAD' && c.body !== undefined;
  if (withBody && c.contentType) headers.set('content-type', c.contentType);
  if (withBody && c.encoding) headers.set('content-encoding', c.encoding);
  const res = await resendingFetch(urlOf(c), { method: c.op.method, headers, body: withBody ? c.body : undefined, redirect: 'manual' });
  return { status: res.status, text: await res.text() };
}

const LEAKS = [
  /\n\s+at .*:\d+:\d+/, // a stack frame
  /node_modules|\.ts:\d+|file:\/\//,
  /syntax error at or near|relation "[^"]+" does not exist|violates [a-z ]*constraint|duplicate key value|\bselect\b[^"]{0,80}\bfrom\b\s+"?gateway/i,
  /PostgresError|NeonDbError|ContractFunctionExecutionError|TypeError|RangeError/,
];

/** Forms, charsets, multipart and Basic credentials for the OAuth token endpoint, as a hostile client sends them. */
const hostileValue = fc.oneof(
  text,
  fc.constantFrom('made-up', 'a:b:c', `${'x'.repeat(300)}:${'y'.repeat(200)}:z`, 'c'.repeat(506), `https://example.com/${'c'.repeat(500)}`),
  fc.string({ unit: 'grapheme', maxLength: 300 }),
);
const tokenForm = fc
  .dictionary(
    fc.constantFrom(
      'grant_type',
      'code',
      'refresh_token',
      'token',
      'client_id',
      'client_secret',
      'redirect_uri',
      'code_verifier',
      'resource',
    ),
    fc.oneof(hostileValue, fc.constantFrom('authorization_code', 'refresh_token', 'client_credentials')),
    { maxKeys: 6 },
  )
  .map((fields) => new URLSearchParams(fields).toString());
const hostileToken = fc.record({
  body: fc.oneof(
    tokenForm,
    tokenForm.map((f) => new Uint8Array(Buffer.from(`\ufeff${f}`, 'utf16le'))),
    text,
  ),
  contentType: fc.constantFrom(
    'application/x-www-form-urlencoded',
    'application/x-www-form-urlencoded; charset=UTF-8',
    'application/x-www-form-urlencoded; charset=latin1',
    'application/x-www-form-urlencoded; charset=utf-16',
    'multipart/form-data',
    'multipart/form-data; boundary=',
    'multipart/form-data; boundary=x',
    'application/json',
  ),
  basic: fc.option(
    fc.oneof(
      hostileValue.map((id) => `Basic ${Buffer.from(`${id}:s`).toString('base64')}`),
      fc.constantFrom('Basic', 'Basic %%%', 'basic  a b'),
    ),
  ),
  path: fc.constantFrom('/oauth/token', '/oauth/token/'),
});
const consentPost = fc.record({
  path: fc.constantFrom('/oauth/authorize', '/oauth/authorize/', '/oauth/authorize/deny'),
  body: fc.oneof(
    fc
      .record(
        { handle: hostileValue, walletAddress: hostileValue, chainId: jsonish, nonce: hostileValue, signature: hostileValue },
        { requiredKeys: [] },
      )
      .map((v) => JSON.stringify(v)),
    text,
  ),
  cookie: fc.option(
    fc
      .string({ maxLength: 80 })
      .filter((v) => /^[\x21-\x7e]*$/.test(v))
      .map((v) => `__Host-oauth-consent=${v}`),
  ),
});

describe('hostile OAuth token requests and consent posts', () => {
  it(
    `${Math.ceil(RUNS / 5)} seeded cases each: a 4xx with an error code (or an empty revocation), never a 5xx, a stack or a secret`,
    async () => {
      const check = (what: string, res: { status: number; text: string }) => {
        // Only a revocation of a made-up token is a success (RFC 7009: nothing to revoke).
        expect(res.status < 500 && (res.status >= 400 || res.text === ''), what).toBe(true);
        if (res.status >= 400) expect(res.text, what).toMatch(/"error"/);
        for (const leak of LEAKS) expect(res.text, what).not.toMatch(leak);
        for (const secret of secrets) expect(res.text.includes(secret), `${what} carries a secret`).toBe(false);
      };
      const runs = Math.ceil(RUNS / 5);
      await fc.assert(
        fc.asyncProperty(hostileToken, async (t) => {
          const headers: Record<string, string> = { 'content-type': t.contentType, ...(t.basic ? { authorization: t.basic } : {}) };
          const res = await resendingFetch(`${worker.url}${t.path}`, { method: 'POST', headers, body: t.body });
          const answer = { status: res.status, text: await res.text() };
          check(`POST ${t.path} ${t.contentType} (${t.basic?.slice(0, 40)}) -> ${answer.status}: ${answer.text.slice(0, 200)}`, answer);
        }),
        { numRuns: runs, seed: SEED, endOnFailure: true },
      );
      await fc.assert(
        fc.asyncProperty(consentPost, async (p) => {
          const headers: Record<string, string> = { 'content-type': 'application/json', ...(p.cookie ? { cookie: p.cookie } : {}) };
          const res = await resendingFetch(`${worker.url}${p.path}`, { method: 'POST', headers, body: p.body, redirect: 'manual' });
          const answer = { status: res.status, text: await res.text() };
          check(`POST ${p.path} ${p.body.slice(0, 100)} -> ${answer.status}: ${answer.text.slice(0, 200)}`, answer);
        }),
        { numRuns: runs, seed: SEED, endOnFailure: true },
      );
    },
    Math.max(60_000, RUNS * 100),
  );
});

describe('random and mutated requests to every operation of the OpenAPI document', () => {
  it(
    `${RUNS} seeded cases: no undeclared 5xx, no stack, SQL or secret in a body, nothing stored by a refused request`,
    async () => {
      expect(operations.length).toBeGreaterThan(20);
      let rows = await storedRows();
      await fc.assert(
        fc.asyncProperty(request, async (c) => {
          const res = await send(c);
          seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
          const what = `${c.op.method} ${urlOf(c)} (${c.auth}) -> ${res.status}: ${res.text.slice(0, 300)}`;
          if (res.status >= 500) serverErrors++;
          expect(res.status < 500 || (res.status === 503 && c.op.statuses.has('503')), what).toBe(true);
          for (const leak of LEAKS) expect(res.text, what).not.toMatch(leak);
          for (const secret of secrets) expect(res.text.includes(secret), `${what} carries a secret`).toBe(false);
          const after = await storedRows();
          if (res.status >= 400) expect(after, `${what} stored rows`).toBe(rows);
          rows = after;
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
      const byStatus = [...seen.entries()].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`);
      console.log(
        `fuzz figures: ${RUNS} cases (seed ${SEED}) over ${operations.length} operations; ${serverErrors} 5xx; ${byStatus.join(', ')}`,
      );
    },
    Math.max(120_000, RUNS * 200),
  );
});
