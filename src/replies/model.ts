/**
 * The agent's model, on the Vercel AI SDK's provider packages (no hand-made client): the provider
 * named by the LLM settings, reached through the worker's fetch with a deadline per model call and
 * no redirects; and the mapping of provider failures to our errors (never 401, never 500).
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError, type LanguageModel, RetryError } from 'ai';
import { createWorkersAI } from 'workers-ai-provider';
import { AppError } from '../errors';
import type { LlmForUse } from '../settings/llm-use.service';

/** Whether the latest model call ran out of its time (so its failure reads as a timeout). */
export interface CallClock {
  timedOut: boolean;
}

/**
 * What one model call's answer may weigh at most (bytes as received). The loop cuts text,
 * arguments and reasoning at 64 K characters each, so a legitimate answer (typically under 1 MB,
 * at worst about 4 MB of per-token chunks with their JSON framing for each capped kind) ends
 * before it; what the loop cannot see (arguments streamed before a call's name, which the provider
 * holds without passing on) is what this bounds: 8 MiB of them held as a string costs the isolate
 * about twice that.
 */
export const MAX_MODEL_ANSWER_BYTES = 8 * 1024 * 1024;

/**
 * fetch for the SDK: the worker's own fetch, no redirects, and an idle timeout of `timeoutMs` per
 * model call: for the response's headers, then between two chunks of its body, so a long answer
 * that keeps coming is not cut (the reply's absolute deadline, on `signal`, bounds it), and a
 * provider that stalls is. `signal` (the reply's) aborts every call. An answer over
 * `MAX_MODEL_ANSWER_BYTES` fails as 502 `llm_unavailable`.
 */
export function boundedFetch(timeoutMs: number, signal: AbortSignal, clock: CallClock): typeof fetch {
  let call = 0;
  return async (input, init) => {
    const mine = ++call;
    clock.timedOut = false;
    const idle = new AbortController();
    let timer: ReturnType<typeof setTimeout> | null = null;
    const stop = () => clearTimeout(timer);
    const restart = () => {
      stop();
      timer = setTimeout(() => {
        if (mine === call) clock.timedOut = true;
        idle.abort(new DOMException(`no answer from the model within ${timeoutMs} ms`, 'TimeoutError'));
      }, timeoutMs);
    };
    const signals = [idle.signal, signal, ...(init?.signal ? [init.signal] : [])];
    const any = AbortSignal.any(signals);
    any.addEventListener('abort', stop);
    restart();
    let res: Response;
    try {
      res = await fetch(input, { ...init, redirect: 'manual', signal: any });
    } catch (err) {
      stop();
      throw err;
    }
    if (!res.body) {
      stop();
      return res;
    }
    restart();
    let bytes = 0;
    const body = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, out) {
          bytes += chunk.byteLength;
          if (bytes > MAX_MODEL_ANSWER_BYTES) {
            // What the loop caps (text, arguments, reasoning) a provider could still send unseen:
            // tool-call arguments before the call's name, chunks of nothing. Never read past this.
            const over = new AppError(
              'llm_unavailable',
              `The LLM provider's answer passed ${MAX_MODEL_ANSWER_BYTES / 1024 / 1024} MiB: not read further`,
            );
            stop();
            out.error(over);
            idle.abort(over);
            return;
          }
          restart();
          out.enqueue(chunk);
        },
        flush: stop,
        cancel: stop,
      }),
    );
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

/** The language model of the settings; 409 `llm_provider_unavailable` when it cannot run here. */
export function languageModel(settings: LlmForUse, options: { fetch: typeof fetch; ai?: Ai }): LanguageModel {
  const apiKey = settings.apiKey ?? undefined;
  const baseURL = settings.baseUrl ?? undefined;
  switch (settings.provider) {
    case 'openai':
      return createOpenAI({ apiKey: apiKey ?? '', baseURL, fetch: options.fetch })(settings.model);
    case 'anthropic':
      return createAnthropic({ apiKey: apiKey ?? '', baseURL, fetch: options.fetch })(settings.model);
    case 'openai-compatible':
      if (!baseURL) throw unavailable('provider openai-compatible needs a baseUrl in the LLM settings');
      return createOpenAICompatible({ name: 'openai-compatible', baseURL, apiKey, fetch: options.fetch, includeUsage: true }).chatModel(
        settings.model,
      );
    case 'workers-ai':
      if (!options.ai)
        throw unavailable('provider workers-ai needs the deployment\'s AI binding ([ai] binding = "AI" in its wrangler file)');
      return createWorkersAI({ binding: options.ai })(settings.model);
    default:
      throw unavailable(
        `provider ${settings.provider} is not supported for replies: use openai, anthropic, openai-compatible or workers-ai`,
      );
  }
}

function unavailable(message: string): AppError {
  return new AppError('llm_provider_unavailable', message);
}

/** The first error in `err`'s chain (RetryError's last error, causes; 8 deep at most) that `is` accepts. */
function inChain<T>(err: unknown, is: (e: unknown) => e is T): T | undefined {
  let e: unknown = err;
  for (let i = 0; i < 8 && e; i++) {
    if (is(e)) return e;
    e = RetryError.isInstance(e) ? e.lastError : (e as { cause?: unknown }).cause;
  }
  return undefined;
}

function retryAfter(headers: Record<string, string> | undefined): string {
  const value = Object.entries(headers ?? {}).find(([name]) => name.toLowerCase() === 'retry-after')?.[1];
  const seconds = value !== undefined && /^\d{1,6}$/.test(value.trim()) ? Number(value.trim()) : undefined;
  return String(seconds ?? 30);
}

/**
 * A model call's failure as our error: the provider refuses the key 424; rate limit 503 with
 * Retry-After; timeout 504; unreachable, 5xx or another refusal 502. The provider's own message
 * is never passed on (it may quote the request); its HTTP status is, as `upstreamStatus`.
 */
export function llmError(err: unknown, timedOut: boolean): AppError {
  // Ours, as thrown by the answer's byte cap inside the SDK's reading (it wraps it as a cause).
  const ours = inChain(err, (e): e is AppError => e instanceof AppError);
  if (ours) return ours;
  if (timedOut) return new AppError('llm_timeout', 'The LLM provider did not answer in time', { cause: err });
  const api = inChain(err, (e): e is APICallError => APICallError.isInstance(e));
  const status = api?.statusCode;
  const details = status !== undefined ? { upstreamStatus: status } : undefined;
  if (status === 401 || status === 403) {
    return new AppError(
      'llm_credential_rejected',
      `The LLM provider rejected the API key (HTTP ${status}): enter a valid key in …/llm/settings`,
      {
        details,
        cause: err,
      },
    );
  }
  if (status === 429) {
    return new AppError('llm_rate_limited', 'The LLM provider is rate limiting this key: retry after Retry-After seconds', {
      details,
      cause: err,
      headers: { 'Retry-After': retryAfter(api?.responseHeaders) },
    });
  }
  if (status === 408 || status === 504)
    return new AppError('llm_timeout', 'The LLM provider did not answer in time', { details, cause: err });
  if (status !== undefined && status < 500) {
    return new AppError('llm_unavailable', `The LLM provider refused the request (HTTP ${status}): check the model name and settings`, {
      details,
      cause: err,
    });
  }
  return new AppError(
    'llm_unavailable',
    status !== undefined ? `The LLM provider failed (HTTP ${status})` : 'The LLM provider could not be reached',
    { details, cause: err },
  );
}
