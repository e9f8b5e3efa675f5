/**
 * Running a planned reply (reply-prepare.ts) and storing it: the model is built (the AI SDK and
 * the provider are loaded only now, engine.ts), the context's lease is taken and the request's
 * message appended in one statement while the loop sets out (head-start.ts; its model call
 * waits for the lease, lease-gate.ts), the loop runs over the plan's messages and tools, the reply is stored as one `assistant` message beside
 * its usage, the answer remembered under the Idempotency-Key, the tool calls audited, and what the
 * first request left out summarised after the response.
 */
import type { Agent } from '../identity/agent';
import { auditToolCalls, type ToolCallRecord } from '../audit/entry';
import { appendMessages, appendMessagesGuarded, type GuardedAppendResult } from '../contexts/messages.service';
import { findRemembered, remember } from '../contexts/remembered.service';
import { storableJson } from '../encoding/storable-json';
import { agentRef, agentRefText } from '../storage/agent-rows';
import { reserveTokens } from '../usage/ledger';
import { addModelUsage, NO_USAGE, type UsageCounts, usageMeter } from '../usage/meter';
import { recordUsage } from '../usage/record.service';
import { onHangUp } from './hang-up';
import { bufferedEvents } from './head-start';
import { claimReplyLease, type ReplyLease, replyInProgress, takeReplyLease } from './lease';
import type { LoopEvents } from './loop';
import { boundedFetch, type CallClock } from './model-fetch';
import type { ReplyPlan } from './reply-prepare';
import type { CallCharges } from './reserve-gate';
import { type PreparedReply, type ReplyAnswer, type ReplyDeps, type ReplyInput, subKey } from './reply-types';
import type { SummaryResult } from './summarise';
import type { ReplyStep } from './tools';

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
    const message = [{ role: input.role, message: input.message }];
    result = await appendMessagesGuarded(deps.store, agent, input.contextKey, message, claim.guard, subKey(input.idempotency, 'message'));
  } catch (err) {
    // No such context (or a failed statement): whatever the guard took is given back.
    await claim.lease.release();
    throw err;
  }
  if (!result.guarded) throw await claim.refusal();
  // A retry whose message an earlier try stored: that try may have finished between this request's
  // read of the remembered answer and the lease. Its answer stands; the model is not asked twice
  // (409 with a short Retry-After: the next try replays it).
  const answerKey = subKey(input.idempotency, 'answer');
  if (result.replayed && answerKey && (await findRemembered(deps.store, agent, answerKey))) {
    await claim.lease.release();
    throw replyInProgress(1);
  }
  return claim.lease;
}

/** Usage recorded for the caller's credential; a failed write is logged, never the reply's failure. */
function usageRecorder(deps: ReplyDeps, agent: Agent, input: ReplyInput, plan: ReplyPlan) {
  return (usage: UsageCounts) =>
    recordUsage(deps.store, agent, { contextKey: input.contextKey, credential: plan.caller.credential, usage }).catch(usageNotRecorded);
}

/**
 * How the reply's model calls (and its summary's) are charged against the agent's and the caller's
 * daily limits (reserve-gate.ts); a call cut off without the provider's usage is recorded at its estimate.
 */
function callCharges(deps: ReplyDeps, agent: Agent, plan: ReplyPlan, record: (usage: UsageCounts) => Promise<void>): CallCharges {
  const background = (work: Promise<unknown>) => {
    if (deps.later) deps.later(work);
  };
  const limits = {
    agentTokensPerDay: plan.settings.tokensPerDay,
    credential: plan.caller.credential,
    credentialTokensPerDay: plan.caller.tokensPerDay,
  };
  return {
    reserve: (estimate) => reserveTokens(deps.store, agent, limits, estimate),
    cutOff: (usage) => background(record({ ...NO_USAGE, ...usage })),
    background,
  };
}

/** Starts the reply of `plan`: stores its message with the lease, and asks the model once it holds the lease. */
export async function startReply(deps: ReplyDeps, agent: Agent, input: ReplyInput, plan: ReplyPlan): Promise<PreparedReply> {
  const { settings } = plan;
  const controller = new AbortController();
  const clock: CallClock = { timedOut: false };
  // The AI SDK and the provider are evaluated only now, for a reply that calls a model (engine.ts).
  const { afterLease, languageModel, replyTrace, reserving, runLoop, summarise, toolSet } = await import('./engine');
  const agentId = `${agent.collection.toLowerCase()}/${agent.tokenId}`;
  const about = { provider: settings.provider, model: settings.model, conversationId: input.contextKey, agentId };
  const trace = replyTrace(deps.tracing?.api, about, { messageText: deps.tracing?.messageText ?? false });
  const modelFetch = boundedFetch(deps.limits.llmTimeoutMs, controller.signal, clock);
  const provider = trace.model(await languageModel(settings, { fetch: modelFetch, ai: deps.ai }));
  const { maxIterations, llmTimeoutMs, mcpTimeoutMs } = deps.limits;
  const deadlineMs = maxIterations * (llmTimeoutMs + mcpTimeoutMs);
  const record = usageRecorder(deps, agent, input, plan);
  const charges = callCharges(deps, agent, plan, record);
  const summariseLater = () => {
    const { summary, upToId } = plan;
    if (!settings.summaries || upToId === undefined || upToId <= (summary?.toId ?? 0) || !deps.later) return;
    const { maxTokensPerRequest } = deps.limits;
    const job = { sql: deps.store.sql, agent, contextKey: input.contextKey, settings, ai: deps.ai, previous: summary, upToId, charges };
    // The summary's model call counts in the usage of the credential whose reply asked for it.
    deps.later(summarise({ ...job, limits: { maxTokensPerRequest, llmTimeoutMs } }).then((result) => recordSummaryUsage(result)));
  };
  const recordSummaryUsage = async (result: SummaryResult) => {
    if (!('usage' in result) || !result.usage) return;
    const meter = usageMeter();
    addModelUsage(meter, result.usage);
    meter.modelCalls = 1;
    await record(meter);
  };
  // The lease and the message, in one statement; the loop starts meanwhile (head-start.ts), but
  // its model call waits for the lease: a refused reply never reaches the provider (lease-gate.ts).
  const storing = leaseAndAppend(deps, agent, input, deadlineMs + 30_000);
  storing.catch(() => undefined);
  // Inside the lease's gate: a reply refused its lease reserves nothing.
  const model = afterLease(reserving(provider, charges), storing);
  const timer = setTimeout(() => controller.abort(), deadlineMs);
  const events = bufferedEvents();
  // What the model reports, recorded whatever the outcome (a failed reply used tokens too).
  const meter = usageMeter();
  const steps: ReplyStep[] = [];
  // The tool calls that ran, for the audit trail.
  const calls: ToolCallRecord[] = [];
  const tools = toolSet(plan.tools.values(), { steps, events, calls, trace, ready: storing });
  const ask = () => {
    const started = runLoop(
      {
        model,
        system: plan.system,
        messages: plan.messages,
        tools,
        connectionOf: (name) => plan.tools.get(name)?.connectionId ?? null,
        steps,
        maxIterations,
        budget: plan.budget,
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
  const loop = ask();
  let lease: ReplyLease;
  try {
    lease = await storing;
  } catch (err) {
    // Refused (409) or not stored: the loop ends here, before its model call, any tool or any event.
    controller.abort();
    clearTimeout(timer);
    throw err;
  }
  const answerKey = subKey(input.idempotency, 'answer');
  const run = async (sink: LoopEvents, gone?: AbortSignal): Promise<ReplyAnswer> => {
    events.attach(sink);
    const hangUp = onHangUp(gone, controller);
    try {
      const result = await Promise.race([loop, hangUp.promise]).catch(async (err: unknown) => {
        await record(meter);
        throw err;
      });
      const text = result.text.replaceAll('\u0000', '').toWellFormed();
      // The usage is written beside the reply's append (overlapped: no round trip of its own).
      const [appended] = await Promise.all([
        text.trim()
          ? appendMessages(deps.store, agent, input.contextKey, [{ role: 'assistant', message: text }], subKey(input.idempotency, 'reply'))
          : undefined,
        record(meter),
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
  return { run, release, model: settings.model };
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
