/**
 * The reply's way to the model (DESIGN §11, issue 24's critical path): after the owner check, the
 * context's lease and the request's message go to the database in one statement, so a database a
 * network away costs one round trip there, not two. Against a worker whose SQL-over-HTTP passes a
 * recording proxy: the statements sent before the model heard the request hold one write, the lease
 * and the message together; a reply refused while another holds the lease stores nothing; a reply
 * to a missing context gives back the lease it took.
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

beforeAll(async () => {
  [llm, slowSql] = await Promise.all([
    startStandinLlm({ apiKey: API_KEY, script: cases.script }),
    // Answers passed on whole and at once: only recorded.
    startSlowSql(stack.bridgeProxy, { chunkBytes: 1 << 30, everyMs: 0 }),
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

describe("a reply's lease and message", () => {
  it('go to the database in one statement, before the model hears anything', async () => {
    const who = await agent();
    const from = slowSql.exchanges.length;
    let upToModel = -1;
    const marker = scripted(() => {
      upToModel = slowSql.exchanges.length;
      return undefined;
    });
    const res = await who.reply({ message: `hello ${marker}` });
    expect(res.status, res.text).toBe(200);
    expect(upToModel).toBeGreaterThan(from);
    const sent = slowSql.exchanges.slice(from, upToModel).map((e) => statement(e.query));
    const leases = sent.filter((q) => /reply_leases/.test(q));
    const appends = sent.filter((q) => /INSERT INTO "agent_\w+"\.messages/.test(q));
    expect(leases, sent.join('\n---\n')).toHaveLength(1);
    expect(appends, sent.join('\n---\n')).toEqual(leases);
    expect(await messagesOf(who)).toEqual([`hello ${marker}`, `stand-in model: you said: hello ${marker}`]);
  });

  it('with an Idempotency-Key too; a retry after the answer replays it without a second message', async () => {
    const who = await agent();
    const from = slowSql.exchanges.length;
    let upToModel = -1;
    const marker = scripted(() => {
      upToModel = slowSql.exchanges.length;
      return undefined;
    });
    const headers = { 'idempotency-key': crypto.randomUUID() };
    const res = await who.reply({ message: `once ${marker}` }, { headers });
    expect(res.status, res.text).toBe(200);
    const sent = slowSql.exchanges.slice(from, upToModel).map((e) => statement(e.query));
    const leases = sent.filter((q) => /reply_leases/.test(q));
    expect(leases, sent.join('\n---\n')).toHaveLength(1);
    expect(leases[0]).toMatch(/INSERT INTO "agent_\w+"\.messages/);
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
