/**
 * `chat {model}`: one span per model call, around the provider's call (its fetch spans nest
 * under it) until the answer's stream ends, with the call's own usage as the provider reported
 * it. An AI SDK language-model middleware, so every provider is traced the same way.
 */
import { wrapLanguageModel, type LanguageModel, type LanguageModelMiddleware } from 'ai';
import {
  errorType,
  MAX_TRACE_TEXT_CHARS,
  outputMessages,
  type AttributeValue,
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

/** `model`, each call (`doStream`) inside a `chat {model}` span of `tracing`. */
export function tracedModel(tracing: RuntimeTracing, model: LanguageModel, options: ChatTraceOptions): LanguageModel {
  if (typeof model === 'string') return model;
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
        let ended = false;
        const end = () => {
          if (ended) return;
          ended = true;
          span.end();
        };
        let result: Awaited<ReturnType<typeof doStream>>;
        try {
          result = await doStream();
        } catch (err) {
          span.setAttribute('error.type', errorType(err));
          end();
          throw err;
        }
        let text = '';
        const calls: { id: string; name: string; arguments: string }[] = [];
        type Part = typeof result.stream extends ReadableStream<infer P> ? P : never;
        const stream = result.stream.pipeThrough(
          new TransformStream<Part, Part>({
            transform(part, out) {
              switch (part.type) {
                case 'response-metadata':
                  setAttributes(span, { 'gen_ai.response.id': part.id, 'gen_ai.response.model': part.modelId });
                  break;
                case 'text-delta':
                  if (options.messageText && text.length <= MAX_TRACE_TEXT_CHARS) text += part.delta;
                  break;
                case 'tool-call':
                  if (options.messageText) calls.push({ id: part.toolCallId, name: part.toolName, arguments: part.input });
                  break;
                case 'finish':
                  setAttributes(span, {
                    'gen_ai.usage.input_tokens': part.usage.inputTokens.total,
                    'gen_ai.usage.output_tokens': part.usage.outputTokens.total,
                    'gen_ai.usage.cache_read.input_tokens': part.usage.inputTokens.cacheRead,
                    'gen_ai.response.finish_reasons': part.finishReason.unified,
                    ...(options.messageText ? { 'gen_ai.output.messages': outputMessages(text, calls, part.finishReason.unified) } : {}),
                  });
                  break;
                case 'error':
                  span.setAttribute('error.type', errorType(part.error));
                  break;
                default:
                  break;
              }
              out.enqueue(part);
            },
            flush: end,
            cancel: end,
          }),
        );
        return { ...result, stream };
      }),
  };
  return wrapLanguageModel({ model, middleware });
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
