/**
 * The reply's tools as the AI SDK takes them: every source's tools (tool-sources/) offered alike,
 * each call reported as a step and as `tool_call`/`tool_result` events, a failure an error result
 * the model reads, never a failed reply.
 */
import { jsonSchema, tool, type ToolSet } from 'ai';
import type { ToolCallRecord } from '../audit/entry';
import type { SourcedTool, ToolOutcome } from './tool-sources/source';
import type { ReplyTrace } from './trace';

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
  offered: readonly SourcedTool[],
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
        const outcome = await context.trace.tool({ name, callId: toolCallId, arguments: args }, () =>
          t
            .call(args, abortSignal)
            .catch((): ToolOutcome => ({ text: 'internal_error: the tool call failed', isError: true, code: 'internal_error' })),
        );
        const { text, isError, upstreamStatus: status } = outcome;
        const step: ReplyStep = {
          tool: name,
          connectionId,
          arguments: args,
          isError,
          ...(status !== undefined ? { upstreamStatus: status } : {}),
          durationMs: Date.now() - started,
        };
        context.steps.push(step);
        const audited = outcome.code ?? (isError ? 'tool_error' : 'ok');
        context.calls?.push({ tool: name, connectionId, arguments: args, outcome: audited, durationMs: step.durationMs });
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
