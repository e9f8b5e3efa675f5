/**
 * The reply's adapter of the tool catalog (src/tools/) to the AI SDK: each offered tool becomes an
 * AI SDK tool whose `execute` runs the tool's one call path, reports the call as a step and as
 * `tool_call`/`tool_result` events, and hands the model the result's text (cut at 16 K
 * characters); a failure is an error result the model reads, never a failed reply.
 */
import { jsonSchema, tool, type ToolSet } from 'ai';
import type { ToolCallRecord } from '../audit/entry';
import { type AgentTool, auditOutcome, internalFailure, type ToolOutcome } from '../tools/tool';
import type { ReplyTrace } from './trace';

/** What the model reads of a tool result at most (characters). */
export const MAX_TOOL_RESULT_CHARS = 16_384;

/** What a tool call gave the model to read. */
export interface ReplyToolOutcome {
  text: string;
  isError: boolean;
  /** A tool server's HTTP status when it failed. */
  upstreamStatus?: number;
  /** What the audit trail records: `ok` or the code the call ended with. */
  audited: string;
}

/** The text the model reads of a result: its text items, anything else as JSON, cut at `MAX_TOOL_RESULT_CHARS`. */
export function resultText(outcome: ToolOutcome): string {
  const text = outcome.content
    .map((item) => (item.type === 'text' && typeof item.text === 'string' ? item.text : JSON.stringify(item)))
    .join('\n');
  return text.length > MAX_TOOL_RESULT_CHARS ? `${text.slice(0, MAX_TOOL_RESULT_CHARS)}… (cut)` : text;
}

/** One tool call of a reply, as the answer lists it. */
export interface ReplyStep {
  tool: string;
  /** null for a built-in tool (memory), and when the model named a tool the agent does not have. */
  connectionId: string | null;
  arguments: unknown;
  isError: boolean;
  /** The tool server's HTTP status when it failed (401, 424, 500...). */
  upstreamStatus?: number;
  durationMs: number;
}

export interface ToolEvents {
  toolCall(event: { tool: string; connectionId: string | null; arguments: unknown }): void;
  toolResult(event: Omit<ReplyStep, 'arguments'> & { content?: string }): void;
}

/** A tool failure the model reads as an error result. */
export class ToolFailure extends Error {
  override readonly name = 'ToolFailure';
}

/** The AI SDK tool set: each `execute` runs the tool's call and reports the step. */
export function toolSet(
  offered: Iterable<AgentTool>,
  context: {
    steps: ReplyStep[];
    events: ToolEvents;
    /** Every call that ran, for the audit trail. */
    calls?: ToolCallRecord[];
    trace: ReplyTrace;
    /**
     * Settled before any call runs (the reply's message stored: head-start.ts); a rejection fails
     * the call. Waited for before the call is reported or timed.
     */
    ready?: Promise<unknown>;
  },
): ToolSet {
  const set: ToolSet = {};
  for (const t of offered) {
    const { name, connectionId } = t;
    set[name] = tool({
      description: t.description,
      inputSchema: jsonSchema(t.inputSchema),
      execute: async (input: unknown, { abortSignal, toolCallId }) => {
        const args = (input ?? {}) as Record<string, unknown>;
        await context.ready;
        context.events.toolCall({ tool: name, connectionId, arguments: args });
        const started = Date.now();
        const outcome = await context.trace.tool({ name, callId: toolCallId, arguments: args }, async (): Promise<ReplyToolOutcome> => {
          const result = await t.call(args, { signal: abortSignal }).catch(internalFailure);
          const { isError, upstreamStatus } = result;
          return {
            text: resultText(result),
            isError,
            ...(upstreamStatus !== undefined ? { upstreamStatus } : {}),
            audited: auditOutcome(result),
          };
        });
        const { text, isError, upstreamStatus: status, audited } = outcome;
        const step: ReplyStep = {
          tool: name,
          connectionId,
          arguments: args,
          isError,
          ...(status !== undefined ? { upstreamStatus: status } : {}),
          durationMs: Date.now() - started,
        };
        context.steps.push(step);
        // Only the tools that are audited (a tool server's, not the memory reads) are written to the trail.
        if (t.audited) context.calls?.push({ tool: name, connectionId, arguments: args, outcome: audited, durationMs: step.durationMs });
        context.events.toolResult({ ...withoutArguments(step), content: text });
        if (isError) throw new ToolFailure(text);
        return text;
      },
    });
  }
  return set;
}

function withoutArguments(step: ReplyStep): Omit<ReplyStep, 'arguments'> {
  const { arguments: _, ...rest } = step;
  return rest;
}
