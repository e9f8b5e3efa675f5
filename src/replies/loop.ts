/**
 * The reply loop, after the AI SDK's own shape: `streamText` with tools that `execute` and a step
 * bound (`stopWhen: stepCountIs(maxIterations)`); the text of the last step is the reply. Each
 * step's request is fitted to the token budget in `prepareStep` (request-budget.ts), the tools run
 * behind the reply's call gate (call-limits.ts), and what the model streams is capped. Knows
 * nothing of HTTP: events go to the caller's callbacks.
 */
import { stepCountIs, streamText, type LanguageModel, type ToolSet } from 'ai';
import { addModelUsage, type UsageCounts } from '../usage/meter';
import { callGate } from './call-limits';
import { llmError } from './model';
import type { CallClock } from './model-fetch';
import { UsageStop } from './reserve-gate';
import { fitRequest, type RequestBudget, type TextMessage } from './request-budget';
import type { ReplyStep, ToolEvents } from './tools';
import type { ReplyTrace } from './trace';

export type FinishReason = 'stop' | 'length' | 'max_iterations' | 'content_filter';

export interface LoopEvents extends ToolEvents {
  delta(text: string): void;
}

export interface LoopInput {
  model: LanguageModel;
  system: string | null;
  /** The context's messages, oldest first: each request takes what fits of them (request-budget.ts). */
  messages: TextMessage[];
  tools: ToolSet;
  /** The connection of an offered tool (listed with a call the gate refused). */
  connectionOf(tool: string): string | null;
  /** Tool calls, filled by the tools' `execute` (and here, for calls of unknown tools). */
  steps: ReplyStep[];
  maxIterations: number;
  budget: RequestBudget;
  temperature: number;
  /** Aborts every model call (the reply's deadline). */
  signal: AbortSignal;
  clock: CallClock;
  /** Filled as the model answers (usage of each call, model and tool calls), whatever the outcome. */
  meter: UsageCounts;
  /** The reply's spans: the loop runs inside `invoke_agent` (trace/). */
  trace?: ReplyTrace;
}

export interface LoopResult {
  text: string;
  usage: { inputTokens: number; outputTokens: number };
  finishReason: FinishReason;
}

/**
 * Reply text kept at most (UTF-16 units; a stored message holds 256 KiB of UTF-8): the rest is cut,
 * as `length`. A step's streamed tool-call arguments and its reasoning are each capped the same way.
 */
export const MAX_REPLY_CHARS = 64 * 1024;

/** What each streamed tool call adds to its step's argument characters besides its name and arguments. */
const CALL_FRAMING_CHARS = 16;

/** Runs the reply's steps, inside the `invoke_agent` span when traced. */
export function runLoop(input: LoopInput, events: LoopEvents): Promise<LoopResult> {
  return input.trace ? input.trace.invokeAgent(() => runSteps(input, events)) : runSteps(input, events);
}

async function runSteps(input: LoopInput, events: LoopEvents): Promise<LoopResult> {
  const cut = new AbortController();
  const gate = callGate();
  const tools = gate.wrap(input.tools, (tool, args, message) =>
    errorStep(tool, input.connectionOf(tool), args, message, input.steps, events),
  );
  const result = streamText({
    model: input.model,
    ...(input.system !== null ? { instructions: input.system } : {}),
    messages: input.messages,
    allowSystemInMessages: true,
    tools,
    stopWhen: stepCountIs(input.maxIterations),
    // Every request, the first included, is rebuilt from the context and the earlier steps as they
    // were (not from an earlier step's cut), then fitted to the budget.
    prepareStep: ({ responseMessages }) => {
      gate.nextStep();
      return fitRequest(input.budget, input.messages, responseMessages);
    },
    maxOutputTokens: input.budget.maxOutputTokens,
    temperature: input.temperature,
    maxRetries: 0,
    abortSignal: AbortSignal.any([input.signal, cut.signal]),
    // The SDK's default logs the whole error (the request body: the agent's memory); ours logs a line.
    onError: () => undefined,
  });
  let text = '';
  let failure: unknown;
  let lastFinish: string | undefined;
  const { meter } = input;
  // Streamed tool-call arguments and reasoning of the step, counted as they come (the SDK buffers them).
  let argumentChars = 0;
  let reasoningChars = 0;
  try {
    for await (const part of result.stream) {
      input.trace?.observe(part);
      switch (part.type) {
        case 'start-step':
          meter.modelCalls += 1;
          text = '';
          argumentChars = 0;
          reasoningChars = 0;
          break;
        case 'tool-input-start':
          // A call counts its name and some framing too, so calls without arguments are capped as well.
          argumentChars += part.toolName.length + CALL_FRAMING_CHARS;
          if (argumentChars > MAX_REPLY_CHARS) cut.abort();
          break;
        case 'tool-input-delta':
          argumentChars += part.delta.length;
          if (argumentChars > MAX_REPLY_CHARS) cut.abort();
          break;
        case 'reasoning-delta':
          reasoningChars += part.text.length;
          if (reasoningChars > MAX_REPLY_CHARS) cut.abort();
          break;
        case 'text-delta': {
          if (cut.signal.aborted) break;
          const room = MAX_REPLY_CHARS - text.length;
          const piece = part.text.length > room ? part.text.slice(0, room) : part.text;
          text += piece;
          if (piece) events.delta(piece);
          if (text.length >= MAX_REPLY_CHARS) cut.abort();
          break;
        }
        case 'tool-error':
          // A call the model made of a tool it was not offered, or with unreadable arguments:
          // the SDK answers it with an error result; list it as a step too.
          if (!Object.hasOwn(tools, part.toolName)) {
            const tool = part.toolName.slice(0, 64);
            errorStep(tool, null, part.input, `no tool named ${tool}`, input.steps, events);
          }
          break;
        case 'tool-call':
          meter.toolCalls += 1;
          break;
        case 'finish-step':
          // Each call's usage as its provider reported it (summed here: a reply cut or failed later keeps it).
          addModelUsage(meter, part.usage);
          lastFinish = part.finishReason;
          break;
        case 'error':
          failure ??= part.error;
          break;
        default:
          break;
      }
    }
  } catch (err) {
    if (!cut.signal.aborted) failure ??= err;
  }
  // A later step that found a daily limit reached: the reply finishes there, with what it has.
  const stopped = failure !== undefined && isUsageStop(failure);
  if (failure !== undefined && !cut.signal.aborted && !stopped) throw llmError(failure, input.clock.timedOut);
  if (input.signal.aborted && !cut.signal.aborted) throw llmError(new Error('reply deadline'), true);
  const usage = { inputTokens: meter.inputTokens, outputTokens: meter.outputTokens };
  return { text, usage, finishReason: finishReason(cut.signal.aborted || stopped ? 'length' : lastFinish) };
}

/** Whether `err` (or an error it wraps, 8 deep at most) is a later step's `UsageStop`. */
function isUsageStop(err: unknown): boolean {
  let e: unknown = err;
  for (let i = 0; i < 8 && e; i++) {
    if (e instanceof UsageStop) return true;
    e = (e as { cause?: unknown; lastError?: unknown }).cause ?? (e as { lastError?: unknown }).lastError;
  }
  return false;
}

function finishReason(reason: string | undefined): FinishReason {
  switch (reason) {
    case 'length':
      return 'length';
    case 'content-filter':
      return 'content_filter';
    case 'tool-calls':
      return 'max_iterations';
    default:
      return 'stop';
  }
}

/**
 * Calls that did not run listed at most per reply (beside the at most 64 that ran): the model is
 * answered for every one, but a model asking for thousands must not grow the answer with them.
 */
export const MAX_LISTED_REFUSALS = 64;

/** How many calls that did not run each list of steps has listed. */
const listedRefusals = new WeakMap<ReplyStep[], number>();

/**
 * A call that did not run (a tool the model was not offered, or one over a call bound), listed as
 * an error step while fewer than `MAX_LISTED_REFUSALS` are; the model reads its error either way.
 */
function errorStep(
  tool: string,
  connectionId: string | null,
  args: unknown,
  message: string,
  steps: ReplyStep[],
  events: LoopEvents,
): void {
  const listed = listedRefusals.get(steps) ?? 0;
  if (listed >= MAX_LISTED_REFUSALS) return;
  listedRefusals.set(steps, listed + 1);
  events.toolCall({ tool, connectionId, arguments: args });
  steps.push({ tool, connectionId, arguments: args, isError: true, durationMs: 0 });
  events.toolResult({ tool, connectionId, isError: true, durationMs: 0, content: message });
}
