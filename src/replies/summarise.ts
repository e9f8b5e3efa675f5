/**
 * The summary a reply leaves behind: after a reply that had to leave a context's older
 * messages out, the agent's own model (the reply's settings and key) summarises them, in
 * `waitUntil`, so the reply is not slower. It takes the previous summary's text and the messages
 * after its range up to the last one left out (never the whole history), within the token budget,
 * and stores one summary covering from the previous summary's start (or the context's first
 * message) to the last message it read. A failure (model error, timeout, no room) stores nothing
 * and is one log line without content: the next reply trims as before. No HTTP here.
 */
import { generateText } from 'ai';
import type { Agent } from '../identity/agent';
import { AppError } from '../errors';
import type { LlmForUse } from '../settings/llm-use.service';
import { agentSchemaName } from '../storage/agent-storage';
import type { SqlClient } from '../storage/sql-client';
import { type ContextSummary, messagesToSummarise, storeSummary } from '../summaries/summaries.service';
import { languageModel, llmError } from './model';
import { boundedFetch, type CallClock } from './model-fetch';
import { type CallCharges, reserving } from './reserve-gate';
import { SUMMARY_INSTRUCTION, summaryTranscript, transcriptEntry } from './summary-prompt';
import { countTokens, cutToTokens, MESSAGE_OVERHEAD_TOKENS, messageTokens } from './tokens';

/** A stored summary's text at most (UTF-16 units): what the model writes beyond it is cut. */
export const MAX_SUMMARY_CHARS = 16 * 1024;

/** The most messages one summary request takes in (the token budget usually binds first). */
export const MAX_SUMMARISED_MESSAGES = 1_000;

/** A summary request's absolute deadline, within the 30 s `waitUntil` allows after the response. */
export const SUMMARY_DEADLINE_MS = 20_000;

/** The least room the messages to add must have in a summary request (tokens), else it is not made. */
const MIN_TRANSCRIPT_TOKENS = 16;

export interface SummaryJob {
  sql: SqlClient;
  agent: Agent;
  contextKey: string;
  /** The reply's settings, key opened: the summary runs on the same model. */
  settings: LlmForUse;
  ai?: Ai;
  /** The summary the reply sent (its range is where this one starts), or null. */
  previous: ContextSummary | null;
  /** The last message id the reply left out. */
  upToId: number;
  limits: { maxTokensPerRequest: number; llmTimeoutMs: number };
  /** How its model call is charged against the daily limits (the reply's credential); absent: not charged. */
  charges?: CallCharges;
}

/** What a summary run did, with the model call's token usage (usage counts it against the daily limits). */
export type SummaryResult =
  | { outcome: 'stored' | 'superseded'; fromId: number; toId: number; usage: { inputTokens: number; outputTokens: number } }
  | { outcome: 'nothing_to_summarise' }
  | { outcome: 'failed'; reason: string; usage?: { inputTokens: number; outputTokens: number } };

/**
 * The request's shape within TOKEN__MAX_TOKENS_PER_REQUEST: the instruction; the previous summary
 * cut to a quarter of the limit; the answer at most the settings' `maxTokens` and a quarter of the
 * limit; the transcript the rest.
 */
function summaryBudget(job: SummaryJob) {
  const limit = job.limits.maxTokensPerRequest;
  const quarter = Math.floor(limit / 4);
  const previous = job.previous === null ? null : cutToTokens(job.previous.summary, quarter);
  const maxOutputTokens = Math.min(job.settings.maxTokens, quarter);
  const room = limit - messageTokens(SUMMARY_INSTRUCTION) - maxOutputTokens - MESSAGE_OVERHEAD_TOKENS;
  return { previous, maxOutputTokens, transcriptTokens: room - countTokens(summaryTranscript(previous, [])) };
}

/** The transcript entries that fit `tokens`, oldest first (the first is cut to fit when alone over it). */
function fitEntries(messages: readonly { id: number; role: string; message: string }[], tokens: number) {
  const entries: string[] = [];
  let used = 0;
  let lastId = 0;
  for (const m of messages) {
    const entry = transcriptEntry(m);
    const cost = countTokens(`${entries.length ? '\n\n' : ''}${entry}`);
    if (used + cost > tokens) {
      if (entries.length === 0) {
        entries.push(cutToTokens(entry, tokens));
        lastId = m.id;
      }
      break;
    }
    entries.push(entry);
    used += cost;
    lastId = m.id;
  }
  return { entries, lastId };
}

const failed = (reason: string, usage?: { inputTokens: number; outputTokens: number }): SummaryResult => {
  console.warn(JSON.stringify({ level: 'warn', event: 'summary_failed', reason }));
  return { outcome: 'failed', reason, ...(usage ? { usage } : {}) };
};

/** Summarises what the reply left out and stores it (see the module comment). Never throws. */
export async function summarise(job: SummaryJob): Promise<SummaryResult> {
  try {
    return await run(job);
  } catch (err) {
    return failed(err instanceof AppError ? err.code : err instanceof Error ? err.name : 'unknown');
  }
}

async function run(job: SummaryJob): Promise<SummaryResult> {
  const budget = summaryBudget(job);
  if (budget.transcriptTokens < MIN_TRANSCRIPT_TOKENS) return failed('over_budget');
  const schema = await agentSchemaName(job.agent);
  const afterId = job.previous?.toId ?? 0;
  const messages = await messagesToSummarise(
    job.sql,
    schema,
    job.contextKey,
    { afterId, upToId: job.upToId },
    budget.transcriptTokens * 3,
    MAX_SUMMARISED_MESSAGES,
  );
  if (messages.length === 0) return { outcome: 'nothing_to_summarise' };
  const { entries, lastId } = fitEntries(messages, budget.transcriptTokens);
  const clock: CallClock = { timedOut: false };
  const deadline = AbortSignal.timeout(SUMMARY_DEADLINE_MS);
  const plain = await languageModel(job.settings, { fetch: boundedFetch(job.limits.llmTimeoutMs, deadline, clock), ai: job.ai });
  const model = job.charges ? reserving(plain, job.charges) : plain;
  let answer: Awaited<ReturnType<typeof generateText>>;
  try {
    answer = await generateText({
      model,
      system: SUMMARY_INSTRUCTION,
      messages: [{ role: 'user', content: summaryTranscript(budget.previous, entries) }],
      maxOutputTokens: budget.maxOutputTokens,
      temperature: job.settings.temperature,
      maxRetries: 0,
      abortSignal: deadline,
    });
  } catch (err) {
    return failed(llmError(err, clock.timedOut || deadline.aborted).code);
  }
  const usage = { inputTokens: answer.usage.inputTokens ?? 0, outputTokens: answer.usage.outputTokens ?? 0 };
  const text = answer.text.replaceAll('\u0000', '').trim().slice(0, MAX_SUMMARY_CHARS).toWellFormed();
  if (!text) return failed('empty_summary', usage);
  const summary = { contextKey: job.contextKey, summary: text, fromId: job.previous?.fromId ?? messages[0]!.id, toId: lastId };
  const stored = await storeSummary(job.sql, schema, summary);
  return { outcome: stored ? 'stored' : 'superseded', fromId: summary.fromId, toId: summary.toId, usage };
}
