/**
 * An agent reply (DESIGN §11): checks what the request names (settings, key, template and its
 * variables) before anything is stored, takes the context's lease, appends the message (kept
 * whatever follows), runs the loop over the trimmed memory and the agent's tools, stores the
 * reply as one `assistant` message, and remembers the answer under the Idempotency-Key.
 * Uses the public services of contexts, settings and mcp; knows nothing of HTTP.
 */
import type { Agent } from '../agents/agent';
import { appendMessages, type Idempotency, type MessagesDeps, type Role, type StoredMessage } from '../contexts/messages.service';
import { readRecentMessages } from '../contexts/recent.service';
import { findRemembered, remember } from '../contexts/remembered.service';
import { storableJson } from '../encoding/storable-json';
import { AppError } from '../errors';
import { agentTools, usableBy } from '../mcp/agent-tools';
import type { McpDeps } from '../mcp/connections.service';
import { openLlmSettings, readLlmSettings } from '../settings/llm-use.service';
import { getPromptTemplate } from '../settings/prompt-templates.service';
import { agentRef, agentRefText } from '../storage/agent-rows';
import type { Database } from '../storage/db';
import type { KeyRing } from '../vault/crypto';
import { onHangUp } from './hang-up';
import { takeReplyLease } from './lease';
import { runLoop, type FinishReason, type LoopEvents } from './loop';
import { boundedFetch, languageModel, type CallClock } from './model';
import { requestBudget, type TextMessage } from './request-budget';
import { renderTemplate } from './template';
import { mcpSource } from './tool-sources/mcp';
import { memorySource } from './tool-sources/memory';
import { gatherTools } from './tool-sources/source';
import { toolSet, type ReplyStep } from './tools';
import { replyTrace, type RuntimeTracing } from './trace';

export interface ReplyDeps {
  store: MessagesDeps;
  db: Database;
  ring: () => Promise<KeyRing>;
  mcp: McpDeps;
  /** The deployment's Workers AI binding, if declared. */
  ai?: Ai;
  limits: { maxTokensPerRequest: number; maxIterations: number; llmTimeoutMs: number; mcpTimeoutMs: number };
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

export async function prepareReply(deps: ReplyDeps, agent: Agent, input: ReplyInput): Promise<Prepared> {
  const answerKey = sub(input.idempotency, 'answer');
  // Every read a reply needs runs at once, while the owner check is on its way (DESIGN §2): they
  // open nothing; the key is opened, the lease taken and the message stored only after it passed.
  const reads = await Promise.allSettled([
    answerKey ? findRemembered<ReplyAnswer>(deps.store, agent, answerKey) : undefined,
    readLlmSettings(deps, agent),
    promptTemplate(deps.db, agent, input),
    input.tools ? agentTools(deps.mcp, agent) : [],
    // As much as any budget could keep: trimmed below once the settings and tools are known.
    readRecentMessages(deps.store, agent, input.contextKey, deps.limits.maxTokensPerRequest * 3 + 3),
  ] as const);
  await deps.store.ownerCheck;
  const remembered = readValue(reads[0]);
  if (remembered) return { remembered };
  // What the request names is checked before anything is stored (a refused request stores nothing).
  const settings = await openLlmSettings(await deps.ring(), agent, readValue(reads[1]), deps.mcp.outbound);
  // Rendered only now, for the owner: bounded (256 KiB) and counted before it is built.
  const template = readValue(reads[2]);
  const system = template === null ? null : renderTemplate(template, input.variables);
  const connections = usableBy(readValue(reads[3]), agent.owner);
  // Every source's tools, offered alike (tool-sources/): memory ones read with the caller's rights.
  const offered = gatherTools([
    mcpSource(deps.mcp, agent, connections),
    memorySource(deps.store, agent, input.tools && input.memoryTools && input.mayReadContexts()),
  ]);
  const connectionOf = new Map(offered.map((t) => [t.name, t.connectionId]));
  // The system prompt and the tools go with every request: when they leave no room, refused before anything is stored.
  const definitions = offered.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));
  const budget = requestBudget(deps.limits.maxTokensPerRequest, system, definitions, settings.maxTokens);
  const controller = new AbortController();
  const clock: CallClock = { timedOut: false };
  const agentId = `${agent.collection.toLowerCase()}/${agent.tokenId}`;
  const about = { provider: settings.provider, model: settings.model, conversationId: input.contextKey, agentId };
  const trace = replyTrace(deps.tracing?.api, about, { messageText: deps.tracing?.messageText ?? false });
  const modelFetch = boundedFetch(deps.limits.llmTimeoutMs, controller.signal, clock);
  const model = trace.model(languageModel(settings, { fetch: modelFetch, ai: deps.ai }));
  const { maxIterations, llmTimeoutMs, mcpTimeoutMs } = deps.limits;
  const deadlineMs = maxIterations * (llmTimeoutMs + mcpTimeoutMs);
  const lease = await takeReplyLease(deps.db, agentRefText(agentRef(agent)), input.contextKey, deadlineMs + 30_000);
  let history: StoredMessage[];
  try {
    const appended =
      input.message === undefined
        ? []
        : (
            await appendMessages(
              deps.store,
              agent,
              input.contextKey,
              [{ role: input.role, message: input.message }],
              sub(input.idempotency, 'message'),
            )
          ).messages;
    history = withAppended(readValue(reads[4]), appended);
  } catch (err) {
    await lease.release();
    throw err;
  }
  const run = async (events: LoopEvents, gone?: AbortSignal): Promise<ReplyAnswer> => {
    const timer = setTimeout(() => controller.abort(), deadlineMs);
    const hangUp = onHangUp(gone, controller);
    try {
      const steps: ReplyStep[] = [];
      const tools = toolSet(offered, { steps, events, trace });
      // Every request takes what fits of these (request-budget.ts), the stored messages stay whole.
      const messages: TextMessage[] = history.map((m) => ({ role: m.role, content: m.message }));
      const loop = runLoop(
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
          trace,
        },
        events,
      );
      // A hang-up does not wait for the loop (a tool call may not listen to the abort): what it
      // still does is stored nowhere, and the lease is free for the next reply.
      loop.catch(() => undefined);
      const result = await Promise.race([loop, hangUp.promise]);
      const text = result.text.replaceAll('\u0000', '').toWellFormed();
      const stored = text.trim()
        ? (
            await appendMessages(
              deps.store,
              agent,
              input.contextKey,
              [{ role: 'assistant', message: text }],
              sub(input.idempotency, 'reply'),
            )
          ).messages[0]
        : undefined;
      // As it is remembered (NUL and lone surrogates of tool arguments replaced), so a replay is the same answer.
      const answer = storableJson<ReplyAnswer>({ reply: stored ?? null, steps, usage: result.usage, finishReason: result.finishReason });
      if (answerKey) await remember(deps.store, agent, answerKey, answer);
      return answer;
    } finally {
      clearTimeout(timer);
      hangUp.dispose();
      await lease.release();
    }
  };
  return { prepared: { run, release: () => lease.release() } };
}
