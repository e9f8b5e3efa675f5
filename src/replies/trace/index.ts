/**
 * The reply's spans (what an operator sees of a reply: docs/architecture.md), named by the OpenTelemetry GenAI semantic conventions:
 * `invoke_agent` for the reply's loop, `chat {model}` for each model call (chat.ts),
 * `execute_tool {tool}` for each tool call. They are the Workers runtime's own custom spans
 * (`ctx.tracing`, spans.ts): they nest under the invocation's automatic spans, and
 * `observability.traces` of the wrangler file records and exports them (OTLP destinations).
 * Message text (prompts, answers, tool arguments and results) goes in only when the operator opts
 * in (`TRACE_MESSAGE_TEXT=1`); ids, names, token counts and outcomes always do.
 */
import type { LanguageModel, TextStreamPart, ToolSet } from 'ai';
import { type ChatTrace, chatTrace } from './chat';
import { errorType, outputMessages, type RuntimeTracing, setAttributes, traceText } from './spans';

export type { RuntimeTracing } from './spans';

/** What every span of one reply says about it. */
export interface ReplyAbout {
  /** The LLM settings' provider (`openai`, `anthropic`, `openai-compatible`, `workers-ai`). */
  provider: string;
  model: string;
  /** The context key. */
  conversationId: string;
  /** `collection/tokenId`. */
  agentId: string;
}

/** What `execute_tool` reads of a tool call's outcome. */
interface ToolOutcome {
  text: string;
  isError: boolean;
  upstreamStatus?: number;
}

/** What `invoke_agent` reads of the loop's result. */
interface LoopOutcome {
  text: string;
  usage: { inputTokens: number; outputTokens: number };
  finishReason: string;
}

/** A reply's spans. Without the runtime's tracing (unit tests in Node) each runs its work as is. */
export interface ReplyTrace {
  /** The loop inside `invoke_agent`, with its usage and finish reason. */
  invokeAgent<R extends LoopOutcome>(run: () => Promise<R>): Promise<R>;
  /** The model, each call inside `chat {model}`. */
  model(model: LanguageModel): LanguageModel;
  /** A part of the reply's stream (a step's finish closes its model call's span). */
  observe(part: TextStreamPart<ToolSet>): void;
  /** One tool call inside `execute_tool {tool}`. */
  tool<O extends ToolOutcome>(call: { name: string; callId: string; arguments: unknown }, run: () => Promise<O>): Promise<O>;
}

export function replyTrace(tracing: RuntimeTracing | undefined, about: ReplyAbout, options: { messageText: boolean }): ReplyTrace {
  if (!tracing) return { invokeAgent: (run) => run(), model: (model) => model, observe: () => undefined, tool: (_, run) => run() };
  const common = {
    'gen_ai.provider.name': about.provider,
    'gen_ai.request.model': about.model,
    'gen_ai.conversation.id': about.conversationId,
    'gen_ai.agent.id': about.agentId,
  };
  const { messageText } = options;
  let chat: ChatTrace | undefined;
  return {
    invokeAgent: (run) =>
      tracing.enterSpan('invoke_agent', async (span) => {
        setAttributes(span, { 'gen_ai.operation.name': 'invoke_agent', ...common });
        try {
          const result = await run();
          setAttributes(span, {
            'gen_ai.usage.input_tokens': result.usage.inputTokens,
            'gen_ai.usage.output_tokens': result.usage.outputTokens,
            'gen_ai.response.finish_reasons': result.finishReason,
            ...(messageText ? { 'gen_ai.output.messages': outputMessages(result.text, [], result.finishReason) } : {}),
          });
          return result;
        } catch (err) {
          span.setAttribute('error.type', errorType(err));
          throw err;
        } finally {
          chat?.close();
        }
      }),
    model: (model) => {
      chat = chatTrace(tracing, model, { model: about.model, attributes: common, messageText });
      return chat.model;
    },
    observe: (part) => chat?.observe(part),
    tool: (call, run) =>
      tracing.enterSpan(`execute_tool ${call.name}`, async (span) => {
        setAttributes(span, {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': call.name,
          'gen_ai.tool.call.id': call.callId,
          'gen_ai.conversation.id': about.conversationId,
          ...(messageText ? { 'gen_ai.tool.call.arguments': traceText(JSON.stringify(call.arguments ?? {})) } : {}),
        });
        const outcome = await run();
        setAttributes(span, {
          'error.type': outcome.isError
            ? outcome.upstreamStatus !== undefined
              ? String(outcome.upstreamStatus)
              : 'tool_error'
            : undefined,
          ...(messageText ? { 'gen_ai.tool.call.result': traceText(outcome.text) } : {}),
        });
        return outcome;
      }),
  };
}
