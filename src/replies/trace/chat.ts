/**
 * `chat {model}`: one span per model call, opened around the provider's call (an AI SDK
 * language-model middleware, so its fetch span nests under it and every provider is traced alike)
 * and closed when the loop sees the call's step finish, with the usage the provider reported for
 * that call. The answer's stream is not wrapped: a stream piped through one more transform kept
 * a dropped provider connection from being let go (the fuzz test's cut streams then broke the
 * reply's next database request).
 */
import { wrapLanguageModel, type LanguageModel, type LanguageModelMiddleware, type TextStreamPart, type ToolSet } from 'ai';
import {
  type AttributeValue,
  errorType,
  MAX_TRACE_TEXT_CHARS,
  outputMessages,
  type RuntimeSpan,
  type RuntimeTracing,
  setAttributes,
  traceText,
} from './spans';

type CallParams = Parameters<NonNullable<LanguageModelMiddleware['wrapStream']>>[0]['params'];

export interface ChatTraceOptions {
  /** The settings' model name, for the span's name. */
  model: string;
  /** Set on every call's span (provider, model, conversation, agent). */
  attributes: Record<string, AttributeValue>;
  /** Whether the span carries the request's messages and the answer (opted in). */
  messageText: boolean;
}

export interface ChatTrace {
  /** The model, each call (`doStream`) opening a `chat {model}` span. */
  model: LanguageModel;
  /** A part of the reply's stream: a step's finish closes its call's span with its usage. */
  observe(part: TextStreamPart<ToolSet>): void;
  /** Closes what is still open (a call that failed or was cut). */
  close(): void;
}

interface OpenCall {
  span: RuntimeSpan;
  text: string;
  calls: { id: string; name: string; arguments: string }[];
}

export function chatTrace(tracing: RuntimeTracing, model: LanguageModel, options: ChatTraceOptions): ChatTrace {
  const open: OpenCall[] = [];
  const middleware: LanguageModelMiddleware = {
    wrapStream: ({ doStream, params }) =>
      tracing.startActiveSpan(`chat ${options.model}`, async (span) => {
        setAttributes(span, {
          'gen_ai.operation.name': 'chat',
          ...options.attributes,
          'gen_ai.request.max_tokens': params.maxOutputTokens,
          'gen_ai.request.temperature': params.temperature,
          ...(options.messageText ? { 'gen_ai.input.messages': inputMessages(params.prompt) } : {}),
        });
        try {
          const result = await doStream();
          open.push({ span, text: '', calls: [] });
          return result;
        } catch (err) {
          span.setAttribute('error.type', errorType(err));
          span.end();
          throw err;
        }
      }),
  };
  return {
    model: typeof model === 'string' ? model : wrapLanguageModel({ model, middleware }),
    observe(part) {
      const call = open[0];
      if (!call) return;
      switch (part.type) {
        case 'text-delta':
          if (options.messageText && call.text.length <= MAX_TRACE_TEXT_CHARS) call.text += part.text;
          break;
        case 'tool-call':
          if (options.messageText) call.calls.push({ id: part.toolCallId, name: part.toolName, arguments: JSON.stringify(part.input) });
          break;
        case 'error':
          call.span.setAttribute('error.type', errorType(part.error));
          break;
        case 'finish-step':
          setAttributes(call.span, {
            'gen_ai.response.id': part.response.id,
            'gen_ai.response.model': part.response.modelId,
            'gen_ai.usage.input_tokens': part.usage.inputTokens,
            'gen_ai.usage.output_tokens': part.usage.outputTokens,
            'gen_ai.response.finish_reasons': part.finishReason,
            ...(options.messageText ? { 'gen_ai.output.messages': outputMessages(call.text, call.calls, part.finishReason) } : {}),
          });
          open.shift();
          call.span.end();
          break;
        default:
          break;
      }
    },
    close() {
      for (const call of open.splice(0)) call.span.end();
    },
  };
}

/** `gen_ai.input.messages`: the call's messages (system instructions included) as role and parts. */
function inputMessages(prompt: CallParams['prompt']): string {
  const messages = prompt.map((message) => {
    if (message.role === 'system') return { role: 'system', parts: [{ type: 'text', content: message.content }] };
    const parts = message.content.map((part) => {
      switch (part.type) {
        case 'text':
          return { type: 'text', content: part.text };
        case 'tool-call':
          return { type: 'tool_call', id: part.toolCallId, name: part.toolName, arguments: part.input };
        case 'tool-result':
          return { type: 'tool_call_response', id: part.toolCallId, response: part.output };
        default:
          return { type: part.type };
      }
    });
    return { role: message.role, parts };
  });
  return traceText(JSON.stringify(messages));
}
