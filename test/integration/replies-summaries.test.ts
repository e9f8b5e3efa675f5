/**
 * Summaries (issue 23): after a reply that had to leave a context's older messages out
 * (TOKEN__MAX_TOKENS_PER_REQUEST), the agent's own model summarises them in `waitUntil`; the next
 * reply sends the template, the summary as a system message of its own, then only the messages
 * after its range; a later trimmed reply extends the summary from the previous one's text. The
 * originals never change; a failed summary stores nothing and loses nothing; `summaries: false`
 * writes and sends none. Against the real worker, Postgres and the stand-in model.
 */
import pg from 'pg';
import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  contentText,
  isSummaryRequest,
  STANDIN_SUMMARY_PREFIX,
  type StandinLlm,
  type StandinRequest,
  startStandinLlm,
} from '../../scripts/lib/standin-llm';
import { SUMMARY_SO_FAR, summaryMessage } from '../../src/replies/summary-prompt';
import { agentSchemaName } from '../../src/storage/agent-storage';
import type { SqlClient } from '../../src/storage/sql-client';
import { storeSummary } from '../../src/summaries/summaries.service';
import { seg } from '../support/agent';
import { createKey, eventually, withKey } from '../support/agent-keys';
import { call, expectError } from '../support/http';
import { agentPath, login } from '../support/login';
import { newWallet } from '../support/chain';
import { replyAgent, replyWorker, scriptedCases } from '../support/replies';

const stack = inject('stack');
const API_KEY = `sk-standin-${crypto.randomUUID()}`;
const LIMIT = 1_200;
const TEMPLATE = 'You are the summaries test agent.';
const cases = scriptedCases();
const { scripted } = cases;
let llm: StandinLlm;
let worker: Awaited<ReturnType<typeof replyWorker>>;

beforeAll(async () => {
  llm = await startStandinLlm({ apiKey: API_KEY, script: cases.script });
  worker = await replyWorker(stack, llm, {}, { TOKEN__MAX_TOKENS_PER_REQUEST: String(LIMIT) });
});

afterAll(async () => {
  await worker?.dispose();
  await llm?.close();
});

type Agent = Awaited<ReturnType<typeof replyAgent>>;
type Summary = { contextKey: string; summary: string; fromId: number; toId: number; createdAt: string };

const requestsWith = (marker: string) => llm.completions().filter((r) => JSON.stringify(r.body.messages).includes(marker));
const replyRequests = (marker: string) => requestsWith(marker).filter((r) => !isSummaryRequest(r.body));
const summaryRequests = (marker: string) => requestsWith(marker).filter((r) => isSummaryRequest(r.body));
const texts = (req: StandinRequest | undefined) => (req?.body.messages ?? []).map((m) => [m.role, contentText(m.content)]);
const getSummary = (who: Agent, key = 'chat') => who.call<Summary>(`/context/${seg(key)}/summary`);

/**
 * An agent (the template `default` set, LLM settings of maxTokens 200) whose context `chat` holds 12
 * notes of 300 bytes (108 tokens each as counted): a reply's messages get 1,200 - 200 - the
 * template's 19 = 981 tokens, so 9 fit and the 3 oldest are left out.
 */
async function trimmedAgent(marker: string, settings: Record<string, unknown> = {}) {
  const who = await replyAgent(worker.deployment, API_KEY, { maxTokens: 200, ...settings });
  const template = await who.call('/prompt-template/default', { method: 'POST', json: { template: TEMPLATE } });
  expect(template.status, template.text).toBe(200);
  const notes = Array.from({ length: 12 }, (_, i) => `${marker} note ${i}: ${'words '.repeat(60)}`.slice(0, 300));
  const hydrate = await who.call(`/context/${seg('chat')}/messages`, {
    method: 'POST',
    json: { messages: notes.map((message) => ({ role: 'user', message })) },
  });
  expect(hydrate.status, hydrate.text).toBe(200);
  const ids: number[] = hydrate.body.messages.map((m: { id: number }) => m.id);
  return { who, notes, ids };
}

/** The first four words of a note, as the stand-in's summary quotes them. */
const quoted = (id: number, note: string) => `#${id} ${note.split(/\s+/).slice(0, 4).join(' ')}…`;

async function summaryWith(who: Agent, check: (s: Summary) => boolean): Promise<Summary> {
  let found: Summary | undefined;
  await eventually(async () => {
    const res = await getSummary(who);
    if (res.status === 200 && check(res.body)) found = res.body;
    return found !== undefined;
  }, 10_000);
  return found!;
}

describe('summaries of what a reply left out', () => {
  it('are written after a trimmed reply, sent by the next one after the template, and extended from the previous text', async () => {
    const run = crypto.randomUUID().slice(0, 8);
    const { who, notes, ids } = await trimmedAgent(run);
    const before = await who.call(`/context/${seg('chat')}/messages?limit=100`);
    const first = await who.reply({ memoryTools: false });
    expect(first.status, first.text).toBe(200);
    expect(texts(replyRequests(run)[0]).map(([, t]) => t)).toEqual([TEMPLATE, ...notes.slice(3)]);

    const summary = await summaryWith(who, () => true);
    expect(summary).toMatchObject({ contextKey: 'chat', fromId: ids[0], toId: ids[2] });
    expect(summary.summary).toBe(`${STANDIN_SUMMARY_PREFIX} ${[0, 1, 2].map((i) => quoted(ids[i]!, notes[i]!)).join(' / ')}`);
    expect(Date.parse(summary.createdAt)).not.toBeNaN();
    // The summary request: its own instruction, then the three left-out notes, nothing before or after.
    const asked = summaryRequests(run);
    expect(asked).toHaveLength(1);
    const transcript = contentText(asked[0]?.body.messages?.at(-1)?.content);
    expect(notes.filter((n) => transcript.includes(n))).toEqual(notes.slice(0, 3));

    // The next reply: template, summary, then only what comes after the summary's range (trimmed again).
    const next = await who.reply({ message: `${run} what did I say first?`, memoryTools: false });
    expect(next.status, next.text).toBe(200);
    const sent = texts(replyRequests(`${run} what did I say first?`)[0]);
    expect(sent.slice(0, 2)).toEqual([
      ['system', TEMPLATE],
      ['system', summaryMessage(summary.summary)],
    ]);
    const rest = sent.slice(2).map(([, t]) => t);
    expect(rest.at(-1)).toBe(`${run} what did I say first?`);
    expect(notes.slice(0, 3).some((n) => rest.includes(n))).toBe(false);
    // 1,200 - 200 - template 19 - summary (about 60) leaves about 920: the question and the first answer (136), 7 notes.
    expect(rest.slice(0, -2)).toEqual(notes.slice(5));

    // Left out this time: notes 3 and 4, summarised on top of the previous summary's text.
    const extended = await summaryWith(who, (s) => s.toId > summary.toId);
    expect(extended).toMatchObject({ fromId: ids[0], toId: ids[4] });
    expect(extended.summary).toBe(`${summary.summary} / ${[3, 4].map((i) => quoted(ids[i]!, notes[i]!)).join(' / ')}`);
    const second = summaryRequests(run).at(-1);
    const transcript2 = contentText(second?.body.messages?.at(-1)?.content);
    expect(transcript2.startsWith(`${SUMMARY_SO_FAR}\n${summary.summary}`)).toBe(true);
    expect(notes.filter((n) => transcript2.includes(n))).toEqual(notes.slice(3, 5));

    // The originals never change.
    const after = await who.call(`/context/${seg('chat')}/messages?limit=100`);
    expect(after.body.messages.slice(0, 12)).toEqual(before.body.messages);
    expect(after.body.messages).toHaveLength(15);
  });

  it('are none when the reply left nothing out', async () => {
    const run = crypto.randomUUID().slice(0, 8);
    const who = await replyAgent(worker.deployment, API_KEY, { maxTokens: 200 });
    const res = await who.reply({ message: `${run} a short chat`, memoryTools: false });
    expect(res.status, res.text).toBe(200);
    // A trimmed reply's summary lands within a second on this stack (the test above): wait as long.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(summaryRequests(run)).toHaveLength(0);
    expectError(await getSummary(who), 404, 'summary_not_found');
  });

  it('a failed summary stores nothing, and the next reply still runs, trimmed as before', async () => {
    const marker = scripted((req) => (isSummaryRequest(req.body) ? { status: 500 } : undefined));
    const { who, notes } = await trimmedAgent(marker);
    expect((await who.reply({ memoryTools: false })).status).toBe(200);
    await eventually(async () => summaryRequests(marker).length === 1, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expectError(await getSummary(who), 404, 'summary_not_found');
    const next = await who.reply({ message: 'and now?', memoryTools: false });
    expect(next.status, next.text).toBe(200);
    const sent = texts(replyRequests(marker).at(-1));
    expect(sent[0]).toEqual(['system', TEMPLATE]);
    expect(sent.filter(([role]) => role === 'system')).toHaveLength(1);
    expect(sent.at(-1)).toEqual(['user', 'and now?']);
    expect(notes.slice(0, 3).some((n) => sent.some(([, t]) => t === n))).toBe(false);
  });

  it('a summary the model does not answer in time (LLM_TIMEOUT_MS) stores nothing', async () => {
    const marker = scripted((req) => (isSummaryRequest(req.body) ? { text: 'too late', delayMs: 4_000 } : undefined));
    const { who } = await trimmedAgent(marker);
    const started = Date.now();
    expect((await who.reply({ memoryTools: false })).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(4_000);
    await eventually(async () => summaryRequests(marker).length === 1, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 4_500));
    expectError(await getSummary(who), 404, 'summary_not_found');
  });

  it('summaries: false writes none and sends none; GET settings shows it', async () => {
    const run = crypto.randomUUID().slice(0, 8);
    const { who, notes } = await trimmedAgent(run);
    expect((await who.reply({ memoryTools: false })).status).toBe(200);
    const summary = await summaryWith(who, () => true);
    const settings = await who.call('/llm/settings');
    expect(settings.body.summaries).toBe(true);
    const off = await who.call('/llm/settings', {
      method: 'POST',
      json: {
        provider: 'openai-compatible',
        model: 'stand-in',
        temperature: 0,
        maxTokens: 200,
        baseUrl: settings.body.baseUrl,
        summaries: false,
      },
    });
    expect(off.status, off.text).toBe(200);
    expect(off.body.summaries).toBe(false);
    expect((await who.call('/llm/settings')).body.summaries).toBe(false);

    const next = await who.reply({ message: `${run} off now`, memoryTools: false });
    expect(next.status, next.text).toBe(200);
    const sent = texts(replyRequests(`${run} off now`)[0]);
    expect(sent.filter(([role]) => role === 'system')).toEqual([['system', TEMPLATE]]);
    // Trimmed as without a summary: the newest that fit, notes from before the summary's range included if they fit.
    expect(sent.at(-1)).toEqual(['user', `${run} off now`]);
    expect(sent.some(([, t]) => t === notes[0])).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(summaryRequests(run)).toHaveLength(1);
    expect((await getSummary(who)).body).toEqual(summary);

    // Saving settings without the field keeps the choice.
    const kept = await who.call('/llm/settings', {
      method: 'POST',
      json: { provider: 'openai-compatible', model: 'stand-in', temperature: 0, maxTokens: 100, baseUrl: settings.body.baseUrl },
    });
    expect(kept.body.summaries).toBe(false);
  });

  it('a context of an agent whose settings start with summaries: false gets none', async () => {
    const run = crypto.randomUUID().slice(0, 8);
    const { who } = await trimmedAgent(run, { summaries: false });
    expect((await who.reply({ memoryTools: false })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(summaryRequests(run)).toHaveLength(0);
    expectError(await getSummary(who), 404, 'summary_not_found');
  });
});

describe('GET …/context/{key}/summary', () => {
  it('answers 404 context_not_found and summary_not_found, refuses a stranger and a key without contexts:read, serves one with it', async () => {
    const run = crypto.randomUUID().slice(0, 8);
    const { who } = await trimmedAgent(run);
    expectError(await getSummary(who, 'no-such-context'), 404, 'context_not_found');
    expectError(await getSummary(who), 404, 'summary_not_found');
    expect((await who.reply({ memoryTools: false })).status).toBe(200);
    const summary = await summaryWith(who, () => true);

    const stranger = await login(worker.deployment, newWallet());
    const path = agentPath(who.collection, who.tokenId, `/context/${seg('chat')}/summary`);
    expectError(await call(worker.deployment.baseUrl, path, { token: stranger }), 403, 'not_owner');
    const [reader, replier] = await Promise.all([createKey(who, ['contexts:read']), createKey(who, ['reply', 'contexts:write'])]);
    expectError(await withKey(who, replier.key, `/context/${seg('chat')}/summary`), 403, 'key_scope_missing');
    const read = await withKey<Summary>(who, reader.key, `/context/${seg('chat')}/summary`);
    expect(read.status, read.text).toBe(200);
    expect(read.body).toEqual(summary);
  });
});

describe('the summary store', () => {
  it('keeps the newest range: a write reaching less far than the stored one stores nothing', async () => {
    const run = crypto.randomUUID().slice(0, 8);
    const { who, ids } = await trimmedAgent(run);
    const schema = await agentSchemaName({ chainId: who.deployment.chainId, collection: getAddress(who.collection), tokenId: who.tokenId });
    const pool = new pg.Pool({ connectionString: stack.databaseUrl, max: 1 });
    try {
      const write = (toId: number, text: string) =>
        storeSummary(pool as unknown as SqlClient, schema, { contextKey: 'chat', summary: text, fromId: ids[0]!, toId });
      expect(await write(ids[5]!, 'up to 5')).toBe(true);
      expect(await write(ids[3]!, 'up to 3, late')).toBe(false);
      expect(await write(ids[5]!, 'up to 5 again')).toBe(false);
      expect((await getSummary(who)).body).toMatchObject({ summary: 'up to 5', toId: ids[5] });
      expect(await write(ids[7]!, 'up to 7')).toBe(true);
      expect((await getSummary(who)).body).toMatchObject({ summary: 'up to 7', fromId: ids[0], toId: ids[7] });
    } finally {
      await pool.end();
    }
  });
});
