/**
 * The reply's way to the model: after the owner check, the context's lease and the request's
 * message go to the database in one statement, and the model is asked only once it is answered
 * (a refused reply never reaches the model: reply-refused.test.ts sends bursts on every route).
 * Against a worker whose SQL-over-HTTP passes a recording proxy (which can hold that statement
 * back): one statement takes the lease and stores the message; the model is asked after it, and
 * the tools wait for it; a reply refused while another holds the lease stores nothing and never
 * reaches the model; a reply to a missing context gives back the lease it took.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type StandinLlm, startStandinLlm } from '../../scripts/lib/standin-llm';
import { seg } from '../support/agent';
import { expectError } from '../support/http';
import { replyAgent, replyWorker, scriptedCases } from '../support/replies';
import { type SlowSql, startSlowSql } from '../support/slow-sql';

const stack = inject('stack');
const API_KEY = `sk-standin-${crypto.randomUUID()}`;
const cases = scriptedCases();
const { scripted } = cases;
let llm: StandinLlm;
let slowSql: SlowSql;
let worker: Awaited<ReturnType<typeof replyWorker>>;
/** The marker of the case whose lease-and-message statement is held back. */
let held: string | undefined;
const HOLD_MS = 400;

beforeAll(async () => {
  [llm, slowSql] = await Promise.all([
    startStandinLlm({ apiKey: API_KEY, script: cases.script }),
    // Answers passed on whole and at once, recorded; the lease statement of the case in `held` run HOLD_MS late.
    startSlowSql(stack.bridgeProxy, {
      chunkBytes: 1 << 30,
      everyMs: 0,
      holdMs: (query) => (held && query.includes('reply_leases') && query.includes(held) ? HOLD_MS : 0),
    }),
  ]);
  worker = await replyWorker(stack, llm, {}, { DB_WS_PROXY: slowSql.proxy });
});

afterAll(async () => {
  await worker?.dispose();
  await Promise.all([llm?.close(), slowSql?.close()]);
});

const agent = () => replyAgent(worker.deployment, API_KEY);
const messagesOf = async (who: Awaited<ReturnType<typeof agent>>, key = 'chat') =>
  ((await who.call(`/context/${seg(key)}/messages`)).body.messages as { role: string; message: string }[]).map((m) => m.message);

/** The statement's text of a recorded `POST /sql` (its JSON body). */
const statement = (body: string): string => (JSON.parse(body) as { query: string }).query;

/** A statement that takes a lease and stores a message in one. */
const leaseAndAppend = (q: string) => /INSERT INTO gateway\.reply_leases/.test(q) && /INSERT INTO "agent_\w+"\.messages/.test(q);

describe("a reply's lease and message", () => {
  it('go to the database in one statement before the model is asked; the answer waits until they are stored', async () => {
    const who = await agent();
    const from = slowSql.exchanges.length;
    let storedWhenAsked: boolean | undefined;
    const marker = scripted(() => {
      storedWhenAsked ??= slowSql.exchanges.slice(from).some((e) => leaseAndAppend(statement(e.query)));
      return undefined;
    });
    held = marker;
    const started = Date.now();
    const res = await who.reply({ message: `hello ${marker}` });
    const elapsed = Date.now() - started;
    expect(res.status, res.text).toBe(200);
    // The model was asked only once the statement was answered (it was held HOLD_MS).
    expect(storedWhenAsked).toBe(true);
    expect(elapsed).toBeGreaterThanOrEqual(HOLD_MS);
    const sent = slowSql.exchanges.slice(from).map((e) => statement(e.query));
    const takes = sent.filter((q) => /INSERT INTO gateway\.reply_leases/.test(q));
    const appends = sent.filter((q) => /INSERT INTO "agent_\w+"\.messages/.test(q));
    expect(takes, sent.join('\n---\n')).toHaveLength(1);
    expect(leaseAndAppend(takes[0]!), takes[0]).toBe(true);
    // The user's message with the lease, then the assistant's answer on its own.
    expect(appends).toHaveLength(2);
    expect(await messagesOf(who)).toEqual([`hello ${marker}`, `stand-in model: you said: hello ${marker}`]);
  });

  it('a tool the model calls at once runs only after the message is stored (memory_search finds it)', async () => {
    const who = await agent();
    const word = `w${crypto.randomUUID().replaceAll('-', '')}`;
    const marker = scripted((req) =>
      req.body.messages?.at(-1)?.role === 'tool' ? undefined : { toolCalls: [{ name: 'memory_search', arguments: { query: word } }] },
    );
    held = marker;
    const res = await who.reply({ message: `find ${word} ${marker}` });
    expect(res.status, res.text).toBe(200);
    expect(res.body.steps).toMatchObject([{ tool: 'memory_search', connectionId: null, isError: false }]);
    const answer = /^stand-in model: memory_search answered: (.*)$/s.exec(res.body.reply.message)?.[1];
    expect(JSON.parse(answer ?? '{}').hits).toMatchObject([{ contextKey: 'chat', role: 'user', message: `find ${word} ${marker}` }]);
  });

  it('a reply refused while another holds the lease never reaches the model', async () => {
    const who = await agent();
    const slow = scripted(() => ({ text: 'stand-in model: slow but fine', delayMs: 800 }));
    const refused = scripted(() => undefined);
    const [first, second] = await Promise.all([
      who.reply({ message: `first ${slow}` }),
      new Promise((r) => setTimeout(r, 300)).then(() => who.reply({ message: `second ${refused}` })),
    ]);
    expect(first.status, first.text).toBe(200);
    expectError(second, 409, 'reply_in_progress');
    expect(llm.completions().filter((r) => JSON.stringify(r.body.messages).includes(refused))).toHaveLength(0);
  });

  it('with an Idempotency-Key too; a retry after the answer replays it without a second message', async () => {
    const who = await agent();
    const from = slowSql.exchanges.length;
    const marker = scripted(() => undefined);
    const headers = { 'idempotency-key': crypto.randomUUID() };
    const res = await who.reply({ message: `once ${marker}` }, { headers });
    expect(res.status, res.text).toBe(200);
    const sent = slowSql.exchanges.slice(from).map((e) => statement(e.query));
    const takes = sent.filter((q) => /INSERT INTO gateway\.reply_leases/.test(q));
    expect(takes, sent.join('\n---\n')).toHaveLength(1);
    expect(leaseAndAppend(takes[0]!), takes[0]).toBe(true);
    const again = await who.reply({ message: `once ${marker}` }, { headers });
    expect(again.status, again.text).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await messagesOf(who)).toEqual([`once ${marker}`, `stand-in model: you said: once ${marker}`]);
  });

  it('refused while another reply holds the lease: 409 reply_in_progress, its message not stored', async () => {
    const who = await agent();
    const slow = scripted(() => ({ text: 'stand-in model: slow but fine', delayMs: 800 }));
    const [first, second] = await Promise.all([
      who.reply({ message: `first ${slow}` }),
      new Promise((r) => setTimeout(r, 300)).then(() => who.reply({ message: 'second, refused' })),
    ]);
    expect(first.status, first.text).toBe(200);
    expectError(second, 409, 'reply_in_progress');
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await messagesOf(who)).toEqual([`first ${slow}`, 'stand-in model: slow but fine']);
  });

  it('to a missing context: 404 context_not_found, and the lease it took is given back', async () => {
    const who = await agent();
    const missing = await who.call(`/context/${seg('later')}/reply`, { method: 'POST', json: { message: 'too early' } });
    expectError(missing, 404, 'context_not_found');
    const created = await who.call('/context', { method: 'POST', json: { key: 'later' } });
    expect(created.status, created.text).toBe(200);
    const res = await who.call(`/context/${seg('later')}/reply`, { method: 'POST', json: { message: 'now' } });
    expect(res.status, res.text).toBe(200);
    expect(await messagesOf(who, 'later')).toEqual(['now', 'stand-in model: you said: now']);
  });
});
