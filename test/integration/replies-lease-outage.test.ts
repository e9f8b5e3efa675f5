/**
 * A reply that ends while the database does not answer still frees its context (found by the
 * soak, `npm run soak`: Postgres killed under a reply left its lease behind, and every later reply
 * on the context was 409 `reply_in_progress` until the lease ran out, the reply's deadline + 30 s).
 * The lease's release is retried while the database is unreachable, after the answer (`waitUntil`),
 * so the reply is not late for it: here the first three attempts to delete it are dropped
 * unanswered (a proxy in front of the bridge); the reply answers after the first, and the next
 * reply on the context is served once the retries went through (a 409 before that says when to retry).
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type StandinLlm, startStandinLlm } from '../../scripts/lib/standin-llm';
import { closePg } from '../support/pg';
import { replyAgent, replyWorker } from '../support/replies';
import { type SlowSql, startSlowSql } from '../support/slow-sql';

const stack = inject('stack');
const API_KEY = `sk-standin-${crypto.randomUUID()}`;
const RELEASE = 'DELETE FROM gateway.reply_leases';

let llm: StandinLlm;
let proxy: SlowSql;
let worker: Awaited<ReturnType<typeof replyWorker>>;
/** Releases still to drop unanswered. */
let dropReleases = 0;
let droppedReleases = 0;

beforeAll(async () => {
  llm = await startStandinLlm({ apiKey: API_KEY });
  proxy = await startSlowSql(stack.bridgeProxy, {
    chunkBytes: 1 << 20,
    everyMs: 0,
    drop: (query) => {
      if (!query.includes(RELEASE) || dropReleases === 0) return false;
      dropReleases--;
      droppedReleases++;
      return true;
    },
  });
  worker = await replyWorker(stack, llm, {}, { DB_WS_PROXY: proxy.proxy });
}, 60_000);

afterAll(async () => {
  await worker?.dispose();
  await proxy?.close();
  await llm?.close();
  await closePg();
});

describe('the lease of a reply that ends while the database does not answer', () => {
  it('is released once the database answers again: the next reply on the context is served, not 409', async () => {
    const agent = await replyAgent(worker.deployment, API_KEY);
    dropReleases = 3;
    const first = await agent.reply({ message: 'hello while the database blinks' });
    expect(first.status, first.text).toBe(200);
    // Answered after the first attempt, not after the retries (250 + 500 ms apart at least).
    expect(droppedReleases).toBe(1);
    let next = await agent.reply({ message: 'hello again' });
    for (let i = 0; i < 5 && next.status === 409; i++) {
      expect(next.body.error.code).toBe('reply_in_progress');
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      next = await agent.reply({ message: 'hello again' });
    }
    expect(next.status, next.text).toBe(200);
    expect(next.body.reply.message).toContain('you said: hello again');
    expect(droppedReleases).toBe(3);
  });
});
