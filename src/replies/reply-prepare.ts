/**
 * Preparing a reply: every read it needs, started at once while the owner check is on its way (a
 * request pays the slower of the chain and the database, not both), then, after the check passed,
 * every check that can refuse it (daily limits, the settings and their key, the template, the
 * token budget) before anything is stored or sent. What it yields is the plan reply-run.ts runs.
 */
import type { Agent } from '../identity/agent';
import type { StoredMessage } from '../contexts/messages.service';
import { MAX_RECENT_MESSAGES, readRecentMessages } from '../contexts/recent.service';
import { findRemembered } from '../contexts/remembered.service';
import { AppError } from '../errors';
import { type LlmForUse, openLlmSettings, readLlmSettings } from '../settings/llm-use.service';
import { getPromptTemplate } from '../settings/prompt-templates.service';
import type { Database } from '../storage/db';
import { type ContextSummary, latestSummary } from '../summaries/summaries.service';
import { agentTools } from '../tool-servers/agent-tools';
import { toolCatalog } from '../tools/catalog';
import { withoutRight } from '../tools/rights';
import type { AgentTool } from '../tools/tool';
import { checkUsageLimits, readDayUsage } from '../usage/limits';
import { leftOutCount, type RequestBudget, requestBudget, type TextMessage, withSummary } from './request-budget';
import { type ReplyAnswer, type ReplyDeps, type ReplyInput, subKey } from './reply-types';
import { renderTemplate } from './template';

const DEFAULT_TEMPLATE = 'default';

/** The template the request names, not rendered (a read: it may run before the owner check); null for an absent default. */
async function promptTemplate(db: Database, agent: Agent, input: ReplyInput): Promise<string | null> {
  const key = input.promptTemplateKey ?? DEFAULT_TEMPLATE;
  try {
    return (await getPromptTemplate(db, agent, key)).template;
  } catch (err) {
    if (err instanceof AppError && err.code === 'prompt_template_not_found' && key === DEFAULT_TEMPLATE) return null;
    throw err;
  }
}

type Settled<T> = { [K in keyof T]: PromiseSettledResult<Awaited<T[K]>> };

/** Every value of `reads` settled, by name. */
async function settleAll<T extends Record<string, unknown>>(reads: T): Promise<Settled<T>> {
  const names = Object.keys(reads) as (keyof T)[];
  const settled = await Promise.allSettled(names.map((name) => reads[name]));
  return Object.fromEntries(names.map((name, i) => [name, settled[i]])) as Settled<T>;
}

/** A read's value, or its failure thrown (only once the owner check passed: a refused caller learns nothing from it). */
export function take<T>(read: PromiseSettledResult<T>): T {
  if (read.status === 'rejected') throw read.reason;
  return read.value;
}

/**
 * Every read a reply needs, at once: they open nothing, so they may run while the owner check is
 * on its way; the key is opened, the lease taken and the message stored only after it passed.
 */
export function readForReply(deps: ReplyDeps, agent: Agent, input: ReplyInput) {
  const answerKey = subKey(input.idempotency, 'answer');
  const messageKey = input.message === undefined ? undefined : subKey(input.idempotency, 'message');
  return settleAll({
    remembered: answerKey ? findRemembered<ReplyAnswer>(deps.store, agent, answerKey) : undefined,
    settings: readLlmSettings(deps, agent),
    template: promptTemplate(deps.db, agent, input),
    connections: input.tools ? agentTools(deps.mcp, agent) : [],
    // As much as any budget could keep: trimmed once the settings and tools are known.
    earlier: readRecentMessages(deps.store, agent, input.contextKey, deps.limits.maxTokensPerRequest * 3 + 3),
    // This request's message, stored by an earlier try that failed after storing it: not sent twice.
    sentBefore: messageKey ? findRemembered<StoredMessage[]>(deps.store, agent, messageKey) : undefined,
    // The day's usage per credential, for the daily limits: no round trip of its own.
    dayUsage: readDayUsage(deps.store, agent),
    summary: latestSummary(deps.store, agent, input.contextKey),
  });
}

export type ReplyReads = Awaited<ReturnType<typeof readForReply>>;

/** A reply checked and ready to run: everything that could refuse it is known. */
export interface ReplyPlan {
  /** Who asks: the credential usage is counted for. */
  caller: ReturnType<ReplyInput['caller']>;
  settings: LlmForUse;
  system: string | null;
  tools: Map<string, AgentTool>;
  budget: RequestBudget;
  /** The context's messages after its summary's range, then this request's: each request takes what fits. */
  messages: TextMessage[];
  summary: ContextSummary | null;
  /** The last message to summarise after the reply (what the first request left out); undefined: none. */
  upToId: number | undefined;
}

/**
 * The context as read before the append, with the appended message: a retried request's message
 * (already read) is not counted twice. A message appended by someone else between the read and the
 * append reaches the next reply, as one appended just after it would.
 */
function withAppended(read: StoredMessage[], appended: StoredMessage[]): StoredMessage[] {
  const seen = new Set(read.map((m) => m.id));
  return [...read, ...appended.filter((m) => !seen.has(m.id))].sort((a, b) => a.id - b.id);
}

/** The reply's tools: the one catalog (src/tools/), asked for the reply surface with the caller's rights. */
function replyTools(deps: ReplyDeps, agent: Agent, input: ReplyInput, reads: ReplyReads): Promise<Map<string, AgentTool>> {
  if (!input.tools) return Promise.resolve(new Map());
  const rights = input.memoryTools ? input.rights() : withoutRight(input.rights(), 'memory:read');
  const env = { agent, store: deps.store, mcp: deps.mcp, connections: async () => take(reads.connections) };
  return toolCatalog(env, { surface: 'reply', rights, allowedTools: input.allowedTools() });
}

/** Checks what the request names, after the owner check, before anything is stored (a refused request stores nothing). */
export async function planReply(deps: ReplyDeps, agent: Agent, input: ReplyInput, reads: ReplyReads): Promise<ReplyPlan> {
  const stored = take(reads.settings);
  const caller = input.caller();
  checkUsageLimits(take(reads.dayUsage), { agentTokensPerDay: stored.settings.tokensPerDay, caller });
  const settings = await openLlmSettings(await deps.ring(), agent, stored, deps.mcp.outbound);
  // Rendered only now, for the owner: bounded (256 KiB) and counted before it is built.
  const template = take(reads.template);
  const system = template === null ? null : renderTemplate(template, input.variables);
  const tools = await replyTools(deps, agent, input, reads);
  // The system prompt and the tools go with every request: when they leave no room, refused before anything is stored.
  const definitions = [...tools.values()].map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));
  // The context's summary, unless the settings turned summaries off: sent after the system prompt,
  // and only the messages after its range are.
  const summary = settings.summaries ? take(reads.summary) : null;
  const budget = withSummary(
    requestBudget(deps.limits.maxTokensPerRequest, system, definitions, settings.maxTokens),
    summary?.summary ?? null,
  );
  const earlier = take(reads.earlier);
  const sentBefore = take(reads.sentBefore) ?? [];
  const pending: TextMessage[] = input.message === undefined || sentBefore.length > 0 ? [] : [{ role: input.role, content: input.message }];
  // The stored messages after the summary's range (all of them without one), then this request's.
  const known = withAppended(earlier, sentBefore).filter((m) => m.id > (summary?.toId ?? 0));
  // Every request takes what fits of these (request-budget.ts), the stored messages stay whole.
  const messages: TextMessage[] = [...known.map((m) => ({ role: m.role, content: m.message })), ...pending];
  // What the first request leaves out (older than its first message; also what the read did not
  // reach when it stopped at its count): summarised after the reply.
  const leftOut = Math.min(leftOutCount(budget, messages), known.length);
  const truncated = earlier.length >= MAX_RECENT_MESSAGES;
  const upToId = leftOut > 0 ? known[leftOut - 1]?.id : truncated && known[0] ? known[0].id - 1 : undefined;
  return { caller, settings, system, tools, budget, messages, summary, upToId };
}
