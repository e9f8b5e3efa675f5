/**
 * A client that goes away does not hold the context (issue 22): the reply ends at
 * once, its lease is released, and another reply on the context works within 15 s, for the stream
 * and for the JSON answer. What is stored afterwards is consistent: the first message (stored
 * before the model was called) stays, no assistant message and no remembered answer of the
 * abandoned reply, so a retry with the same Idempotency-Key runs it once and stores it once.
 * Also: LLM_TIMEOUT_MS is an idle timeout between chunks, not a total deadline, and a 409
 * `reply_in_progress` says in Retry-After how long the lease can still hold (at most 15 s).
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type StandinLlm, startStandinLlm } from '../../scripts/lib/standin-llm';
import { startMiniflare } from '../../scripts/lib/worker-bundle';
import { seg } from '../support/agent';
import { expectError } from '../support/http';
import { agentPath } from '../support/login';
import { sql } from '../support/pg';
import { LLM_BASE_URL, parseSse, replyAgent, scriptedCases } from '../support/replies';
import type { DeploymentInfo } from '../support/stack-info';
import { workerBindingsFor } from '../support/worker';

const stack = inject('stack');
const API_KEY = `sk-standin-${crypto.randomUUID()}`;
/** LLM_TIMEOUT_MS of the worker: the longest pause the model may take between two chunks. */
const LLM_TIMEOUT_MS = 1500;
/** The bound on the next reply after a client went away: another reply on the context works within 15 s. */
const NEXT_REPLY_BOUND_MS = 15_000;
const cases = scriptedCases({ lastMessageOnly: true });
const { scripted } = cases;
let llm: StandinLlm;
let worker: Awaited<ReturnType<typeof startMiniflare>>;
let deployment: DeploymentInfo;

/**
 * Another worker calling the gateway through a service binding: `/start?path=&gate=` sends the
 * request on and returns at once; the caller hangs up (aborts it) when `gate` (a loopback server of
 * the test) answers. workerd's HTTP server does not notice a TCP client that hangs up before the
 * answer's headers; a caller worker's abort reaches the gateway's request.signal at once, as a
 * client's hang-up does from Cloudflare's edge.
 */
const CALLER = `
export default {
  async fetch(request, env, ctx) {
    const url = new URL(request.url);
    const hangUp = new AbortController();
    const init = { method: request.method, headers: request.headers, body: await request.arrayBuffer(), signal: hangUp.signal };
    ctx.waitUntil(env.GATEWAY.fetch('https://gateway' + url.searchParams.get('path'), init).then((r) => r.text(), () => undefined));
    ctx.waitUntil(fetch(url.searchParams.get('gate')).then((r) => r.text()).then(() => hangUp.abort()));
    return new Response('started');
  },
};`;
/** The test's side of the callers' gates: a request to `/<id>` is answered when the test says so. */
const gates = new Map<string, () => void>();
let gate: Server;

/** The first request of a case answers slowly (200 words, 300 ms apart: a minute); later ones at once. */
function slowOnce(): string {
  let calls = 0;
  return scripted(() =>
    calls++ === 0
      ? { text: Array.from({ length: 200 }, (_, i) => `word${i}`).join(' '), chunkDelayMs: 300 }
      : { text: 'stand-in model: the retried answer' },
  );
}

const requestsWith = (marker: string) => llm.completions().filter((r) => JSON.stringify(r.body.messages).includes(marker));

beforeAll(async () => {
  llm = await startStandinLlm({
    apiKey: API_KEY,
    script: cases.script,
  });
  gate = createServer((req, res) => gates.set((req.url ?? '/').slice(1), () => res.end('hang up')));
  await new Promise<void>((resolve) => gate.listen(0, '127.0.0.1', resolve));
  worker = await startMiniflare({
    scriptPath: stack.scriptPath,
    deployment: 'testnet',
    bindings: { ...workerBindingsFor(stack), MCP_TIMEOUT_MS: '1500', LLM_TIMEOUT_MS: String(LLM_TIMEOUT_MS) },
    outboundRoutes: { [new URL(LLM_BASE_URL).host]: llm.origin },
    callers: [{ name: 'caller', script: CALLER }],
  });
  deployment = { ...stack.testnet, baseUrl: worker.url };
});

afterAll(async () => {
  await worker?.dispose();
  await llm?.close();
  gate?.closeAllConnections();
  gate?.close();
});

type Agent = Awaited<ReturnType<typeof replyAgent>>;
const agent = () => replyAgent(deployment, API_KEY);
const messagesOf = async (who: Agent) =>
  (await who.call(`/context/${seg('chat')}/messages`)).body.messages as { role: string; message: string }[];

/** Starts a reply with fetch and an AbortController; the caller decides when to hang up. */
function startReply(who: Agent, json: unknown, headers: Record<string, string>) {
  const hangUp = new AbortController();
  const url = `${who.deployment.baseUrl}${agentPath(who.collection, who.tokenId, `/context/${seg('chat')}/reply`)}`;
  const response = fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${who.token}`, ...headers },
    body: JSON.stringify(json),
    signal: hangUp.signal,
  });
  return { response, hangUp: () => hangUp.abort() };
}

/** Starts a reply through the caller worker; `hangUp` has the caller abort it. */
async function startThroughCaller(who: Agent, json: unknown, headers: Record<string, string>) {
  const caller = await worker.miniflare.getWorker('caller');
  const id = crypto.randomUUID();
  const path = agentPath(who.collection, who.tokenId, `/context/${seg('chat')}/reply`);
  const gateUrl = `http://127.0.0.1:${(gate.address() as AddressInfo).port}/${id}`;
  const started = await caller.fetch(`http://caller/start?path=${encodeURIComponent(path)}&gate=${encodeURIComponent(gateUrl)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${who.token}`, ...headers },
    body: JSON.stringify(json),
  });
  expect(await started.text()).toBe('started');
  return {
    hangUp: async () => {
      for (let i = 0; i < 100 && !gates.has(id); i++) await new Promise((r) => setTimeout(r, 50));
      gates.get(id)?.();
    },
  };
}

/** Reads a streamed answer until its first `delta` event. */
async function untilFirstDelta(res: Response): Promise<void> {
  expect(res.status).toBe(200);
  const reader = res.body?.getReader();
  if (!reader) throw new Error('no body');
  const decoder = new TextDecoder();
  let text = '';
  while (!text.includes('event: delta')) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the stream ended before a delta: ${text}`);
    text += decoder.decode(value, { stream: true });
  }
}

/** Polls until the model has received a request of the case. */
async function untilModelCalled(marker: string): Promise<void> {
  for (let i = 0; i < 100 && requestsWith(marker).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
  expect(requestsWith(marker)).toHaveLength(1);
}

/** Replies on the context until one is not 409 `reply_in_progress` (or the bound passed): that answer and the time it took. */
async function nextReply(who: Agent, json: unknown, headers: Record<string, string>) {
  const started = Date.now();
  for (;;) {
    const res = await who.reply(json, { headers });
    if (res.status !== 409 || Date.now() - started > NEXT_REPLY_BOUND_MS) return { res, ms: Date.now() - started };
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * After the hang-up: the client's retry (same body, same Idempotency-Key) is answered within the
 * bound; the abandoned reply left its message only, so the retry stores the message once and the
 * answer once, and a second retry replays it without calling the model. Another reply works too.
 */
async function expectContextFree(who: Agent, marker: string, first: string, idempotencyKey: string) {
  const retry = await nextReply(who, { message: first }, { 'Idempotency-Key': idempotencyKey });
  console.info(`reply after the hang-up answered after ${retry.ms} ms`);
  expect(retry.res.status, retry.res.text).toBe(200);
  expect(retry.ms).toBeLessThan(NEXT_REPLY_BOUND_MS);
  expect(retry.res.body.reply.message).toBe('stand-in model: the retried answer');
  expect(requestsWith(marker)).toHaveLength(2);
  expect((await messagesOf(who)).map((m) => [m.role, m.message])).toEqual([
    ['user', first],
    ['assistant', 'stand-in model: the retried answer'],
  ]);

  const again = await who.reply({ message: first }, { headers: { 'Idempotency-Key': idempotencyKey } });
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect(again.body).toEqual(retry.res.body);
  expect(requestsWith(marker)).toHaveLength(2);

  const other = await who.reply({ message: 'another question' });
  expect(other.status, other.text).toBe(200);
  expect((await messagesOf(who)).map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
}

describe('a client that goes away', () => {
  it('streamed: hanging up after the first delta ends the reply and frees the context', async () => {
    const who = await agent();
    const marker = slowOnce();
    const first = `tell me a long story ${marker}`;
    const key = crypto.randomUUID();
    const { response, hangUp } = startReply(who, { message: first }, { accept: 'text/event-stream', 'Idempotency-Key': key });
    await untilFirstDelta(await response);
    hangUp();
    await expectContextFree(who, marker, first, key);
  });

  it('JSON (a caller worker hangs up while the model writes): the reply ends and the context is free', async () => {
    const who = await agent();
    const marker = slowOnce();
    const first = `tell me a long story ${marker}`;
    const key = crypto.randomUUID();
    const { hangUp } = await startThroughCaller(who, { message: first }, { 'Idempotency-Key': key });
    await untilModelCalled(marker);
    await hangUp();
    await expectContextFree(who, marker, first, key);
  });

  it('JSON from a TCP client whose hang-up workerd does not deliver: the reply finishes, is stored once, and the retry gets it', async () => {
    const who = await agent();
    // 10 words, 300 ms apart: 3 s in all, twice LLM_TIMEOUT_MS.
    const text = Array.from({ length: 10 }, (_, i) => `later${i}`).join(' ');
    let calls = 0;
    const marker = scripted(() => (calls++ === 0 ? { text, chunkDelayMs: 300 } : { text: 'stand-in model: called twice' }));
    const first = `answer me later ${marker}`;
    const key = crypto.randomUUID();
    const { response, hangUp } = startReply(who, { message: first }, { 'Idempotency-Key': key });
    response.catch(() => undefined);
    await untilModelCalled(marker);
    hangUp();
    const retry = await nextReply(who, { message: first }, { 'Idempotency-Key': key });
    expect(retry.res.status, retry.res.text).toBe(200);
    expect(retry.res.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.res.body.reply.message).toBe(text);
    expect(requestsWith(marker)).toHaveLength(1);
    expect((await messagesOf(who)).map((m) => [m.role, m.message])).toEqual([
      ['user', first],
      ['assistant', text],
    ]);
  });
});

describe('reply_in_progress', () => {
  it('Retry-After is the time the lease can still hold, at most 15 s', async () => {
    const who = await agent();
    const marker = slowOnce();
    const { hangUp } = await startThroughCaller(who, { message: `a long one ${marker}` }, {});
    try {
      await untilModelCalled(marker);
      const busy = await who.reply({ message: 'meanwhile' });
      expectError(busy, 409, 'reply_in_progress');
      // The lease of a reply just begun holds for a minute here (10 x (1.5 + 1.5) s + 30 s): capped.
      expect(busy.headers.get('retry-after')).toBe('15');
      const ref = createHash('sha256')
        .update(`${who.deployment.chainId}:${who.collection.toLowerCase()}:${who.tokenId}:chat`)
        .digest('hex');
      const moved = await sql(
        stack.databaseUrl,
        `UPDATE gateway.reply_leases SET expires_at = now() + interval '4 seconds' WHERE context_ref = $1 RETURNING 1`,
        [ref],
      );
      expect(moved).toHaveLength(1);
      const soon = await who.reply({ message: 'meanwhile' });
      expectError(soon, 409, 'reply_in_progress');
      expect(Number(soon.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(soon.headers.get('retry-after'))).toBeLessThanOrEqual(4);
    } finally {
      await hangUp();
    }
  });
});

describe('LLM_TIMEOUT_MS', () => {
  it('is an idle timeout: a streamed answer longer in total but never quiet that long is 200 and stored', async () => {
    const who = await agent();
    // 12 words, 250 ms apart: 3 s in all, twice LLM_TIMEOUT_MS.
    const text = Array.from({ length: 12 }, (_, i) => `slowly${i}`).join(' ');
    const marker = scripted(() => ({ text, chunkDelayMs: 250 }));
    const res = await who.reply({ message: `take your time ${marker}` }, { headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(200);
    const events = parseSse(res.text);
    expect(events.at(-1)?.event, res.text).toBe('done');
    expect(events.at(-1)?.data.reply.message).toBe(text);
    expect((await messagesOf(who)).at(-1)).toMatchObject({ role: 'assistant', message: text });
  });

  it('a pause longer than LLM_TIMEOUT_MS mid-stream is 504 llm_timeout and stores no answer', async () => {
    const who = await agent();
    const marker = scripted(() => ({ text: 'one two', chunkDelayMs: LLM_TIMEOUT_MS + 1500 }));
    const res = await who.reply({ message: `then stall ${marker}` });
    expectError(res, 504, 'llm_timeout');
    expect((await messagesOf(who)).map((m) => m.role)).toEqual(['user']);
  });
});
