/**
 * An agent reply (DESIGN §11): checks what the request names (settings, key, template and its
 * variables) before anything is stored, takes the context's lease, appends the message (kept
 * whatever follows), runs the loop over the trimmed memory and the agent's tools, stores the
 * reply as one `assistant` message, and remembers the answer under the Idempotency-Key. What the
 * model reported is recorded as usage beside that append (src/usage/), and a reply starting past a
 * daily token limit is refused before anything is stored.
 * Uses the public services of contexts, settings, mcp and usage; knows nothing of HTTP.
 */
import type { Agent } from '../identity/agent';
import { auditToolCalls, type AuditActor, type ToolCallRecord } from '../audit/entry';
import {
  appendMessages,
  appendMessagesGuarded,
  type GuardedAppendResult,
  type Idempotency,
  type MessagesDeps,
  type Role,
  type StoredMessage,
} from '../contexts/messages.service';
import { MAX_RECENT_MESSAGES, readRecentMessages } from '../contexts/recent.service';
import { findRemembered, remember } from '../contexts/remembered.service';
import { storableJson } from '../encoding/storable-json';
import { AppError } from '../errors';
import { agentTools, usableBy } from '../tool-servers/agent-tools';
import type { McpDeps } from '../tool-servers/connections.service';
import { openLlmSettings, readLlmSettings } from '../settings/llm-use.service';
import { getPromptTemplate } from '../settings/prompt-templates.service';
import { agentRef, agentRefText } from '../storage/agent-rows';
import type { Database } from '../storage/db';
import { latestSummary } from '../summaries/summaries.service';
import { checkUsageLimits, readDayUsage } from '../usage/limits';
import { addModelUsage, usageMeter } from '../usage/meter';
import { recordUsage, type Credential } from '../usage/record.service';
import type { KeyRing } from '../vault/crypto';
import { onHangUp } from './hang-up';
import { bufferedEvents } from './head-start';
import { claimReplyLease, type ReplyLease, replyLeaseHeld, takeReplyLease } from './lease';
import type { FinishReason, LoopEvents } from './loop';
import { boundedFetch, type CallClock } from './model-fetch';
import { leftOutCount, requestBudget, type TextMessage, withSummary } from './request-budget';
import type { SummaryResult } from './summarise';
import { renderTemplate } from './template';
import { mcpSource } from './tool-sources/mcp';
import { memorySource } from './tool-sources/memory';
import { gatherTools } from './tool-sources/source';
import type { ReplyStep } from './tools';
import type { RuntimeTracing } from './trace';

export interface ReplyDeps {
  store: MessagesDeps;
  db: Database;
  ring: () => Promise<KeyRing>;
  mcp: McpDeps;
  /** The deployment's Workers AI binding, if declared. */
  ai?: Ai;
  limits: { maxTokensPerRequest: number; maxIterations: number; llmTimeoutMs: number; mcpTimeoutMs: number };
  /**
   * Work after the response (`waitUntil`): the summary of what the reply left out, and a lease
   * release the database refused. Absent: no summary is written; the release retries before answering.
   */
  later?: (work: Promise<unknown>) => void;
  /** The runtime's tracing (`ctx.tracing`) for the reply's spans; `messageText` opts message text in (DESIGN §15). */
  tracing?: { api: RuntimeTracing | undefined; messageText: boolean };
}

export interface ReplyInput {
  contextKey: string;
  message?: string;
  role: Extract<Role, 'user' | 'system'>;
  /** Absent: the `default` template, which may not exist. */
  promptTemplateKey?: string;
  variables: Record<string, string>;
  /** False: no tools at all, memory tools included. */
  tools: boolean;
  /** False: no memory tools (`memory_search`, `memory_read`). */
  memoryTools: boolean;
  /** Whether the caller may read the agent's contexts (asked after the owner check): memory tools only then. */
  mayReadContexts(): boolean;
  /**
   * The tools the caller may have called for it, by the name the model sees (an agent key's
   * `tools` allowlist on the MCP server's `ask`, DESIGN §14); absent or null: every tool.
   */
  allowedTools?: readonly string[] | null;
  /** Who the tool calls are audited for: the owner's wallet or the agent key (asked after the owner check). */
  actor(): AuditActor;
  /** Who asks (asked after the owner check): the credential usage is counted for, and its own daily limit (null: none). */
  caller(): { credential: Credential; tokensPerDay: number | null };
  idempotency?: Idempotency;
}

export interface ReplyAnswer {
  reply: StoredMessage | null;
  steps: ReplyStep[];
  usage: { inputTokens: number; outputTokens: number };
  finishReason: FinishReason;
}

/** A reply ready to run: checked, leased, its message stored. Run it once, then it is released. */
export interface PreparedReply {
  /**
   * Runs the reply. `gone` (the client's hang-up) ends it at once with the signal's reason: the
   * lease is released and nothing more is stored (its message stays; a retry runs it again).
   */
  run(events: LoopEvents, gone?: AbortSignal): Promise<ReplyAnswer>;
  /** Drops the lease without running (the caller gave up). */
  release(): Promise<void>;
  /** The model the agent's settings name (what an OpenAI-shaped answer reports). */
  model: string;
}

export type Prepared = { remembered: ReplyAnswer } | { prepared: PreparedReply };

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

const sub = (idem: Idempotency | undefined, part: string): Idempotency | undefined =>
  idem && { key: `reply:${idem.key}:${part}`, requestHash: idem.requestHash };

/** A read's value, or its failure thrown. */
function readValue<T>(read: PromiseSettledResult<T>): T {
  if (read.status === 'rejected') throw read.reason;
  return read.value;
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

/**
 * Takes the context's lease and appends the request's message in one statement (one round trip
 * after the owner check): the message is stored only with the lease, and kept whatever follows.
 * Without a message, the lease alone. The model hears the message from the reads and the request
 * (head-start.ts), so only the lease comes back.
 */
async function leaseAndAppend(deps: ReplyDeps, agent: Agent, input: ReplyInput, ttlMs: number): Promise<ReplyLease> {
  const ref = agentRefText(agentRef(agent));
  if (input.message === undefined) return takeReplyLease(deps.db, ref, input.contextKey, ttlMs, deps.later);
  const claim = await claimReplyLease(deps.db, ref, input.contextKey, ttlMs, deps.later);
  let result: GuardedAppendResult;
  try {
    result = await appendMessagesGuarded(
      deps.store,
      agent,
      input.contextKey,
      [{ role: input.role, message: input.message }],
      claim.guard,
      sub(input.idempotency, 'message'),
    );
  } catch (err) {
    // No such context (or a failed statement): whatever the guard took is given back.
    await claim.lease.release();
    throw err;
  }
  if (!result.guarded) throw await claim.refusal();
  return claim.lease;
}

export async function prepareReply(deps: ReplyDeps, agent: Agent, input: ReplyInput): Promise<Prepared> {
  const answerKey = sub(input.idempotency, 'answer');
  const messageKey = input.message === undefined ? undefined : sub(input.idempotency, 'message');
  // Every read a reply needs runs at once, while the owner check is on its way (DESIGN §2): they
  // open nothing; the key is opened, the lease taken and the message stored only after it passed.
  const reads = await Promise.allSettled([
    answerKey ? findRemembered<ReplyAnswer>(deps.store, agent, answerKey) : undefined,
    readLlmSettings(deps, agent),
    promptTemplate(deps.db, agent, input),
    input.tools ? agentTools(deps.mcp, agent) : [],
    // As much as any budget could keep: trimmed below once the settings and tools are known.
    readRecentMessages(deps.store, agent, input.contextKey, deps.limits.maxTokensPerRequest * 3 + 3),
    messageKey ? findRemembered<StoredMessage[]>(deps.store, agent, messageKey) : undefined,
    replyLeaseHeld(deps.db, agentRefText(agentRef(agent)), input.contextKey),
    // The day's usage per credential, for the limits (DESIGN §15): no round trip of its own.
    readDayUsage(deps.store, agent),
    latestSummary(deps.store, agent, input.contextKey),
  ] as const);
  await deps.store.ownerCheck;
  const remembered = readValue(reads[0]);
  if (remembered) return { remembered };
  // What the request names is checked before anything is stored (a refused request stores nothing).
  const stored = readValue(reads[1]);
  const caller = input.caller();
  checkUsageLimits(readValue(reads[7]), { agentTokensPerDay: stored.settings.tokensPerDay, caller });
  const settings = await openLlmSettings(await deps.ring(), agent, stored, deps.mcp.outbound);
  // Rendered only now, for the owner: bounded (256 KiB) and counted before it is built.
  const template = readValue(reads[2]);
  const system = template === null ? null : renderTemplate(template, input.variables);
  const connections = usableBy(readValue(reads[3]), agent.owner);
  // Every source's tools, offered alike (tool-sources/): memory ones read with the caller's rights.
  const allowed = input.allowedTools ?? null;
  const offered = gatherTools([
    mcpSource(deps.mcp, agent, connections),
    memorySource(deps.store, agent, input.tools && input.memoryTools && input.mayReadContexts()),
  ]).filter((t) => allowed === null || allowed.includes(t.name));
  const connectionOf = new Map(offered.map((t) => [t.name, t.connectionId]));
  // The system prompt and the tools go with every request: when they leave no room, refused before anything is stored.
  const definitions = offered.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));
  // The context's summary (DESIGN §13), unless the settings turned summaries off: sent after the
  // system prompt, and only the messages after its range are.
  const summary = settings.summaries ? readValue(reads[8]) : null;
  const budget = withSummary(
    requestBudget(deps.limits.maxTokensPerRequest, system, definitions, settings.maxTokens),
    summary?.summary ?? null,
  );
  const controller = new AbortController();
  const clock: CallClock = { timedOut: false };
  // The AI SDK and the provider are evaluated only now, for a reply that calls a model (engine.ts).
  const { languageModel, replyTrace, runLoop, summarise, toolSet } = await import('./engine');
  const agentId = `${agent.collection.toLowerCase()}/${agent.tokenId}`;
  const about = { provider: settings.provider, model: settings.model, conversationId: input.contextKey, agentId };
  const trace = replyTrace(deps.tracing?.api, about, { messageText: deps.tracing?.messageText ?? false });
  const modelFetch = boundedFetch(deps.limits.llmTimeoutMs, controller.signal, clock);
  const model = trace.model(await languageModel(settings, { fetch: modelFetch, ai: deps.ai }));
  const { maxIterations, llmTimeoutMs, mcpTimeoutMs } = deps.limits;
  const deadlineMs = maxIterations * (llmTimeoutMs + mcpTimeoutMs);
  // Everything that can refuse the request is known before anything is stored or sent.
  const earlier = readValue(reads[4]);
  // This request's message, stored by an earlier try that failed after storing it: not sent twice.
  const sentBefore = readValue(reads[5]) ?? [];
  const contested = readValue(reads[6]);
  const pending: TextMessage[] = input.message === undefined || sentBefore.length > 0 ? [] : [{ role: input.role, content: input.message }];
  // The stored messages after the summary's range (all of them without one), then this request's.
  const known = withAppended(earlier, sentBefore).filter((m) => m.id > (summary?.toId ?? 0));
  // Every request takes what fits of these (request-budget.ts), the stored messages stay whole.
  const messages: TextMessage[] = [...known.map((m) => ({ role: m.role, content: m.message })), ...pending];
  // What the first request leaves out (older than its first message; also what the read did not
  // reach when it stopped at its count): summarised after the reply.
  const leftOut = Math.min(leftOutCount(budget, messages), known.length);
  const truncated = earlier.length >= MAX_RECENT_MESSAGES;
  const upToId = leftOut > 0 ? known[leftOut - 1]!.id : truncated && known[0] ? known[0].id - 1 : undefined;
  const summariseLater = () => {
    if (!settings.summaries || upToId === undefined || upToId <= (summary?.toId ?? 0) || !deps.later) return;
    const { maxTokensPerRequest, llmTimeoutMs } = deps.limits;
    const job = { sql: deps.store.sql, agent, contextKey: input.contextKey, settings, ai: deps.ai, previous: summary, upToId };
    // The summary's model call counts in the usage of the credential whose reply asked for it (DESIGN §15).
    deps.later(summarise({ ...job, limits: { maxTokensPerRequest, llmTimeoutMs } }).then((result) => recordSummaryUsage(result)));
  };
  const recordSummaryUsage = async (result: SummaryResult) => {
    if (!('usage' in result) || !result.usage) return;
    const meter = usageMeter();
    addModelUsage(meter, result.usage);
    meter.modelCalls = 1;
    await recordUsage(deps.store, agent, { contextKey: input.contextKey, credential: caller.credential, usage: meter }).catch(
      usageNotRecorded,
    );
  };
  // The lease and the message, in one statement; the model is asked meanwhile (head-start.ts)
  // unless a reply held the lease a moment ago, when a refusal is likely: then it waits.
  const storing = leaseAndAppend(deps, agent, input, deadlineMs + 30_000);
  storing.catch(() => undefined);
  const timer = setTimeout(() => controller.abort(), deadlineMs);
  const events = bufferedEvents();
  // What the model reports, recorded whatever the outcome (a failed reply used tokens too).
  const meter = usageMeter();
  const record = () =>
    recordUsage(deps.store, agent, { contextKey: input.contextKey, credential: caller.credential, usage: meter }).catch(usageNotRecorded);
  const steps: ReplyStep[] = [];
  // The tool calls that ran, for the audit trail.
  const calls: ToolCallRecord[] = [];
  const tools = toolSet(offered, { steps, events, calls, trace, ready: storing });
  const ask = () => {
    const started = runLoop(
      {
        model,
        system,
        messages,
        tools,
        connectionOf: (name) => connectionOf.get(name) ?? null,
        steps,
        maxIterations,
        budget,
        temperature: settings.temperature,
        signal: controller.signal,
        clock,
        meter,
        trace,
      },
      events,
    );
    // A hang-up does not wait for the loop (a tool call may not listen to the abort): what it
    // still does is stored nowhere, and the lease is free for the next reply.
    started.catch(() => undefined);
    return started;
  };
  let loop = contested ? undefined : ask();
  let lease: ReplyLease;
  try {
    lease = await storing;
  } catch (err) {
    // Refused (409) or not stored: the model's call ends here, before any tool ran or any event left.
    controller.abort();
    clearTimeout(timer);
    throw err;
  }
  loop ??= ask();
  const run = async (sink: LoopEvents, gone?: AbortSignal): Promise<ReplyAnswer> => {
    events.attach(sink);
    const hangUp = onHangUp(gone, controller);
    try {
      const result = await Promise.race([loop, hangUp.promise]).catch(async (err: unknown) => {
        await record();
        throw err;
      });
      const text = result.text.replaceAll('\u0000', '').toWellFormed();
      // The usage is written beside the reply's append (overlapped: no round trip of its own).
      const [appended] = await Promise.all([
        text.trim()
          ? appendMessages(deps.store, agent, input.contextKey, [{ role: 'assistant', message: text }], sub(input.idempotency, 'reply'))
          : undefined,
        record(),
      ]);
      const reply = appended?.messages[0];
      // As it is remembered (NUL and lone surrogates of tool arguments replaced), so a replay is the same answer.
      const answer = storableJson<ReplyAnswer>({ reply: reply ?? null, steps, usage: result.usage, finishReason: result.finishReason });
      if (answerKey) await remember(deps.store, agent, answerKey, answer);
      summariseLater();
      return answer;
    } finally {
      clearTimeout(timer);
      hangUp.dispose();
      // The tool calls that ran, one entry each, written beside the lease's release (never throws).
      await Promise.all([lease.release(), auditToolCalls(deps.db, agent, input.actor(), calls)]);
    }
  };
  const release = async () => {
    controller.abort();
    clearTimeout(timer);
    await lease.release();
  };
  return { prepared: { run, release, model: settings.model } };
}

/**
 * A usage write that failed: logged, and the reply goes on (its message is stored; failing it would
 * have a client retry, and the model called again). The report then misses this reply's usage.
 */
function usageNotRecorded(err: unknown): void {
  console.warn(
    JSON.stringify({ level: 'warn', warning: `recording a reply's usage failed: ${err instanceof Error ? err.name : 'unknown'}` }),
  );
}
