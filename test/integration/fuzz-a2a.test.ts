/**
 * Bad input on the agent's A2A routes as a measured figure (issue 34): fast-check sends hostile
 * JSON-RPC requests to `POST /agent/{c}/{t}/a2a` (test/support/a2a-fuzz.ts: wrong envelopes, ids of
 * every type, methods not served, non-text parts, bad context and task ids, huge and nested params,
 * bodies that are not JSON) with the owner's token, an agent key with and without `reply`, a
 * stranger's, another chain's, a forged one or none, and hostile path parameters to
 * `GET …/.well-known/agent-card.json`. For each answer: never a 5xx; a status the operation
 * declares; an HTTP error is the one error body with a code; a 200 is a JSON-RPC answer (or a
 * stream of them) with `jsonrpc: "2.0"`, the request's id, and an error code JSON-RPC or A2A names
 * (never -32603, an internal error); a refused request stores no task; a task is read or canceled
 * only by the caller that made it; no stack or SQL text in a body; and the worker's log holds no
 * uncaught error and no request line with a 5xx.
 *
 * Seeded and bounded (`FUZZ_A2A_RUNS`, default 150; `FUZZ_SEED`, default 34). The figures are
 * printed at the end: cases run, answers by status and by JSON-RPC error code.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type StandinLlm, startStandinLlm } from '../../scripts/lib/standin-llm';
import { A2A_ERROR_CODES, a2aRequests, agentPathParams, type Credential } from '../support/a2a-fuzz';
import { PROFILE, rpc, storedTasks } from '../support/a2a-server';
import type { TestAgent } from '../support/agent';
import { createKey } from '../support/agent-keys';
import { newWallet } from '../support/chain';
import { deployment, resendingFetch } from '../support/http';
import { login } from '../support/login';
import { closePg } from '../support/pg';
import { parseSse, replyAgent, replyWorker } from '../support/replies';
import { requestLines } from '../support/worker-log';

const stack = inject('stack');
const RUNS = Number(process.env.FUZZ_A2A_RUNS ?? 150);
const SEED = Number(process.env.FUZZ_SEED ?? 34);
const API_KEY = `sk-standin-${crypto.randomUUID()}`;

let llm: StandinLlm;
let worker: Awaited<ReturnType<typeof replyWorker>>;
let agent: TestAgent;
let logDir: string;
let credentials: Record<Credential, string | undefined>;
/** The operations' declared statuses, from the worker's own OpenAPI document. */
let declared: { a2a: Set<string>; card: Set<string> };
/** Task id → the credential that made it (only that one may read or cancel it). */
const madeBy = new Map<string, Credential>();
const byStatus = new Map<string, number>();

const LEAKS = [
  /\n\s+at .*:\d+:\d+/,
  /node_modules|\.ts:\d+|file:\/\//,
  /syntax error at or near|relation "[^"]+" does not exist|violates [a-z ]*constraint|duplicate key value/i,
  /PostgresError|NeonDbError|TypeError|RangeError/,
];

beforeAll(async () => {
  logDir = await mkdtemp(path.join(tmpdir(), 'agw-fuzz-a2a-'));
  llm = await startStandinLlm({ apiKey: API_KEY });
  worker = await replyWorker(stack, llm, {}, {}, { logFile: path.join(logDir, 'worker.log') });
  agent = await replyAgent(worker.deployment, API_KEY);
  await agent.call('/profile', { method: 'PUT', json: PROFILE });
  const [withReply, withoutReply, stranger, otherChain] = await Promise.all([
    createKey(agent, ['reply']),
    createKey(agent, ['contexts:read']),
    login(worker.deployment, newWallet()),
    login(deployment('mainnet'), agent.owner),
  ]);
  credentials = {
    owner: agent.token,
    key: withReply.key,
    keyWithoutReply: withoutReply.key,
    stranger,
    otherChain,
    forged: `${agent.token.slice(0, -4)}AAAA`,
    garbage: 'not.a.jwt',
    none: undefined,
  };
  // One finished task for each caller that may make one, so GetTask and CancelTask meet real ids.
  for (const who of ['owner', 'key'] as const) {
    const message = { messageId: crypto.randomUUID(), role: 'ROLE_USER', contextId: `fuzz-${who}`, parts: [{ text: 'hello there' }] };
    const res = await rpc(agent, credentials[who], { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } });
    madeBy.set(res.body.result.task.id, who);
  }
  const doc = (await (await fetch(`${worker.url}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { responses: object }>>;
  };
  const statuses = (suffix: string, method: string) => {
    const op = Object.entries(doc.paths).find(([p]) => p.endsWith(suffix))?.[1][method];
    return new Set(Object.keys(op?.responses ?? {}));
  };
  declared = { a2a: statuses('/a2a', 'post'), card: statuses('/.well-known/agent-card.json', 'get') };
}, 60_000);

afterAll(async () => {
  await worker?.dispose();
  await llm?.close();
  await closePg();
  if (logDir) await rm(logDir, { recursive: true, force: true });
});

const count = (what: string) => byStatus.set(what, (byStatus.get(what) ?? 0) + 1);

/** The JSON-RPC answers of a 200: one JSON body, or each `data:` of an event stream. */
function answersOf(contentType: string, text: string): { jsonrpc?: unknown; id?: unknown; result?: any; error?: any }[] {
  if (contentType.startsWith('text/event-stream')) return parseSse(text).map((e) => e.data);
  expect(contentType).toMatch(/^application\/json/);
  return [JSON.parse(text)];
}

describe('hostile JSON-RPC requests to POST …/a2a', () => {
  it(
    `${RUNS} seeded cases: a declared status, a JSON-RPC or A2A error code (never -32603), nothing stored when refused, tasks by their caller only`,
    async () => {
      expect(declared.a2a.size).toBeGreaterThan(3);
      const cases = a2aRequests({ contextIds: ['fuzz-owner', 'fuzz-key', 'fresh-1'], taskIds: () => [...madeBy.keys()] });
      let tasks = (await storedTasks(stack.databaseUrl, agent)).length;
      await fc.assert(
        fc.asyncProperty(cases, async (c) => {
          const headers: Record<string, string> = {};
          if (c.contentType) headers['content-type'] = c.contentType;
          if (c.version !== undefined) headers['a2a-version'] = c.version;
          if (c.accept) headers.accept = c.accept;
          const credential = credentials[c.auth];
          if (credential) headers.authorization = `Bearer ${credential}`;
          const body = typeof c.body === 'string' ? c.body : JSON.stringify(c.body);
          const url = `${worker.url}/agent/${agent.collection}/${agent.tokenId}/a2a`;
          const res = await resendingFetch(url, { method: 'POST', headers, body });
          const text = await res.text();
          const what = `POST …/a2a (${c.auth}, version ${c.version}, ${c.contentType}) ${body.slice(0, 300)} -> ${res.status}: ${text.slice(0, 300)}`;
          expect(res.status < 500, what).toBe(true);
          expect(declared.a2a.has(String(res.status)), `${what}: undeclared status`).toBe(true);
          for (const leak of LEAKS) expect(text, what).not.toMatch(leak);
          const after = (await storedTasks(stack.databaseUrl, agent)).length;
          if (res.status !== 200) {
            count(String(res.status));
            const code = (JSON.parse(text) as { error?: { code?: unknown } }).error?.code;
            expect(typeof code === 'string' && /^[a-z][a-z_]+$/.test(code), what).toBe(true);
            if (res.status === 401) expect(res.headers.get('www-authenticate') ?? '', what).toMatch(/^Bearer/);
            expect(after, `${what}: stored a task`).toBe(tasks);
            return;
          }
          const answers = answersOf(res.headers.get('content-type') ?? '', text);
          const sent = typeof c.body === 'object' && c.body !== null && !Array.isArray(c.body) ? c.body.id : undefined;
          const echoable = typeof sent === 'string' || typeof sent === 'number';
          const sentOnWire: unknown = echoable ? JSON.parse(JSON.stringify(sent)) : undefined; // -0 is 0 in JSON
          for (const answer of answers) {
            expect(answer.jsonrpc, what).toBe('2.0');
            expect((answer.result === undefined) !== (answer.error === undefined), what).toBe(true);
            if (answer.error) {
              count(`200 ${answer.error.code}`);
              expect(A2A_ERROR_CODES.has(answer.error.code), `${what}: error code`).toBe(true);
              expect(typeof answer.error.message, what).toBe('string');
            } else count('200 result');
            // A request JSON-RPC cannot read (-32700, -32600) may be answered with a null id.
            const unread = answer.error?.code === -32700 || answer.error?.code === -32600;
            if (echoable && !(unread && answer.id === null)) expect(answer.id, `${what}: id echoed`).toBe(sentOnWire);
          }
          if (answers.length === 1 && answers[0]!.error) expect(after, `${what}: stored a task`).toBe(tasks);
          const method = typeof c.body === 'object' && c.body !== null && !Array.isArray(c.body) ? c.body.method : undefined;
          const result = answers[0]?.result;
          if (result?.task?.id) madeBy.set(result.task.id, c.auth);
          if ((method === 'GetTask' || method === 'CancelTask') && result) {
            expect(madeBy.get(result.id), `${what}: a task of another caller`).toBe(c.auth);
          }
          tasks = after;
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
      const figures = [...byStatus.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([s, n]) => `${s}: ${n}`);
      console.log(`fuzz-a2a figures: ${RUNS} cases (seed ${SEED}); ${figures.join(', ')}`);
    },
    Math.max(120_000, RUNS * 400),
  );

  it(
    `${Math.ceil(RUNS / 3)} seeded cases of hostile path parameters to the card and the A2A route: a declared status with a code, never a 5xx`,
    async () => {
      const params = agentPathParams({ collection: agent.collection, tokenId: agent.tokenId.toString() });
      const seen = new Map<string, number>();
      await fc.assert(
        fc.asyncProperty(params, fc.boolean(), async (p, card) => {
          if (p.encode && ![p.collection, p.tokenId].every((v) => v.isWellFormed())) return; // a lone surrogate cannot be percent-encoded
          const enc = (v: string) => (p.encode ? encodeURIComponent(v) : v);
          const base = `${worker.url}/agent/${enc(p.collection)}/${enc(p.tokenId)}`;
          const url = card ? `${base}/.well-known/agent-card.json${p.suffix}` : `${base}/a2a${p.suffix}`;
          const init = card
            ? { method: 'GET' }
            : {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body: '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}',
              };
          const res = await resendingFetch(url, { ...init, redirect: 'manual' }).catch((err: unknown) => ({ fetchError: String(err) }));
          if ('fetchError' in res) return; // a URL fetch itself refuses to send
          const text = await res.text();
          const what = `${init.method} ${url} -> ${res.status}: ${text.slice(0, 300)}`;
          seen.set(`${card ? 'card' : 'a2a'} ${res.status}`, (seen.get(`${card ? 'card' : 'a2a'} ${res.status}`) ?? 0) + 1);
          expect(res.status < 500, what).toBe(true);
          for (const leak of LEAKS) expect(text, what).not.toMatch(leak);
          if (res.status >= 300 && res.status < 400) return;
          // Declared statuses hold where the URL still names the route (`..` and `/` in a parameter move it elsewhere).
          const routed = /^\/agent\/[^/]+\/[^/]+\/(\.well-known\/agent-card\.json|a2a)$/.test(new URL(url).pathname);
          const exact = p.suffix === '' && routed && !text.includes('"not_found"');
          if (exact) expect(declared[card ? 'card' : 'a2a'].has(String(res.status)), `${what}: undeclared status`).toBe(true);
          if (res.status !== 200) {
            const code = (JSON.parse(text) as { error?: { code?: unknown } }).error?.code;
            expect(typeof code === 'string' && /^[a-z][a-z_]+$/.test(code), what).toBe(true);
          } else if (card) expect(JSON.parse(text).supportedInterfaces?.[0]?.protocolBinding, what).toBe('JSONRPC');
        }),
        { numRuns: Math.ceil(RUNS / 3), seed: SEED, endOnFailure: true },
      );
      console.log(`fuzz-a2a path figures: ${[...seen.entries()].map(([s, n]) => `${s}: ${n}`).join(', ')}`);
    },
    Math.max(60_000, RUNS * 200),
  );

  // Found by this fuzz: a part that is null (or not an object) was answered -32603 with the runtime's
  // own message ("Cannot read properties of null (reading 'text')"), not -32602 bad params.
  it('a message whose parts hold null: -32602, not -32603 with a runtime message', async () => {
    for (const method of ['SendMessage', 'SendStreamingMessage']) {
      const message = { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [null, { text: 'hello there' }] };
      const res = await rpc(agent, credentials.key, { jsonrpc: '2.0', id: 7, method, params: { message } });
      expect(res.status, res.text).toBe(200);
      expect(res.body.error?.code, res.text).toBe(-32602);
    }
  });

  it('the worker log holds no uncaught error and no request answered with a 5xx', async () => {
    await new Promise((r) => setTimeout(r, 500));
    const log = await readFile(path.join(logDir, 'worker.log'), 'utf8');
    expect(log.split('\n').filter((line) => /\bUncaught\b|unhandled rejection/i.test(line))).toEqual([]);
    expect(requestLines(log).filter((line) => line.status >= 500 || line.level === 'error')).toEqual([]);
    expect(requestLines(log).length).toBeGreaterThan(0);
  });
});
