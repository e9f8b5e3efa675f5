/** The reply's answer in OpenAI's shapes: a `chat.completion`, or the chunks of a stream. */
import type { ReplyAnswer } from '../replies/reply.service';
import type { ChatCompletion, ChatCompletionChunk } from './schemas';

/** What every object of one completion shares: its id (the request id), creation second and model. */
export interface CompletionHeader {
  id: string;
  created: number;
  model: string;
}

export function completionHeader(requestId: string, model: string, now = Date.now()): CompletionHeader {
  return { id: `chatcmpl-${requestId}`, created: Math.floor(now / 1000), model };
}

/** `max_iterations` (the reply stopped at its bound of model calls) has no OpenAI word: `length`, a bound reached. */
export function finishReason(reason: ReplyAnswer['finishReason']): ChatCompletion['choices'][number]['finish_reason'] {
  return reason === 'max_iterations' ? 'length' : reason;
}

export function completionUsage(usage: ReplyAnswer['usage']): ChatCompletion['usage'] {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

export function chatCompletion(header: CompletionHeader, answer: ReplyAnswer): ChatCompletion {
  return {
    ...header,
    object: 'chat.completion',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: answer.reply?.message ?? null, refusal: null },
        finish_reason: finishReason(answer.finishReason),
        logprobs: null,
      },
    ],
    usage: completionUsage(answer.usage),
  };
}

type Delta = ChatCompletionChunk['choices'][number]['delta'];

export function chunk(header: CompletionHeader, delta: Delta, reason: ReplyAnswer['finishReason'] | null = null): ChatCompletionChunk {
  return {
    ...header,
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, finish_reason: reason === null ? null : finishReason(reason), logprobs: null }],
  };
}

/** The stream's usage chunk (`stream_options.include_usage`): no choices. */
export function usageChunk(header: CompletionHeader, usage: ReplyAnswer['usage']): ChatCompletionChunk {
  return { ...header, object: 'chat.completion.chunk', choices: [], usage: completionUsage(usage) };
}
