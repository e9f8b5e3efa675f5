/**
 * The reply loop, after the AI SDK's own shape: `streamText` with tools that `execute` and a step
 * bound (`stopWhen: stepCountIs(maxIterations)`); the text of the last step is the reply. Knows
 * nothing of HTTP: events go to the caller's callbacks.
 */
import { type ModelMessage, stepCountIs, streamText, type LanguageModel, type ToolSet } from 'ai';
import { llmError, type CallClock } from './model';
import type { ReplyStep, ToolEvents } from './tools';

export type FinishReason = 'stop' | 'length' | 'max_iterations' | 'content_filter';

export interface LoopEvents extends ToolEvents {
  delta(text: string): void;
}

export interface LoopInput {
  model: LanguageModel;
  system: string | null;
  messages: ModelMessage[];
  tools: ToolSet;
  /** Tool calls, filled by the tools' `execute` (and here, for calls of unknown tools). */
  steps: ReplyStep[];
  maxIterations: number;
  maxOutputTokens: number;
  temperature: number;
  /** Aborts every model call (the reply's deadline). */
  signal: AbortSignal;
  clock: CallClock;
}

export interface LoopResult {
  text: string;
  usage: { inputTokens: number; outputTokens: number };
  finishReason: FinishReason;
}

/** Reply text kept at most (UTF-16 units; a stored message holds 256 KiB of UTF-8): the rest is cut, as `length`. */
export const MAX_REPLY_CHARS = 64 * 1024;

export async function runLoop(input: LoopInput, events: LoopEvents): Promise<LoopResult> {
  const cut = new AbortController();
  const result = streamText({
    model: input.model,
    ...(input.system !== null ? { instructions: input.system } : {}),
    messages: input.messages,
    allowSystemInMessages: true,
    tools: input.tools,
    stopWhen: stepCountIs(input.maxIterations),
    maxOutputTokens: input.maxOutputTokens,
    temperature: input.temperature,
    maxRetries: 0,
    abortSignal: AbortSignal.any([input.signal, cut.signal]),
    // The SDK's default logs the whole error (the request body: the agent's memory); ours logs a line.
    onError: () => undefined,
  });
  let text = '';
  let failure: unknown;
  let lastFinish: string | undefined;
  let usage = { inputTokens: 0, outputTokens: 0 };
  try {
    for await (const part of result.stream) {
      switch (part.type) {
        case 'start-step':
          text = '';
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
          if (!Object.hasOwn(input.tools, part.toolName)) unknownTool(part.toolName, part.input, input.steps, events);
          break;
        case 'finish-step':
          lastFinish = part.finishReason;
          break;
        case 'finish':
          usage = { inputTokens: part.totalUsage.inputTokens ?? 0, outputTokens: part.totalUsage.outputTokens ?? 0 };
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
  if (failure !== undefined && !cut.signal.aborted) throw llmError(failure, input.clock.timedOut);
  if (input.signal.aborted && !cut.signal.aborted) throw llmError(new Error('reply deadline'), true);
  return { text, usage, finishReason: finishReason(cut.signal.aborted ? 'length' : lastFinish) };
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

function unknownTool(name: string, args: unknown, steps: ReplyStep[], events: LoopEvents): void {
  const tool = name.slice(0, 64);
  events.toolCall({ tool, connectionId: null, arguments: args });
  const step: ReplyStep = { tool, connectionId: null, arguments: args, isError: true, durationMs: 0 };
  steps.push(step);
  events.toolResult({ tool, connectionId: null, isError: true, durationMs: 0, content: `no tool named ${tool}` });
}
