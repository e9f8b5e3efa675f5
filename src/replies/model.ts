/**
 * The agent's model, on the Vercel AI SDK's provider packages (no hand-made client): the provider
 * named by the LLM settings, reached through the given fetch (model-fetch.ts: a deadline per model
 * call, no redirects); and the mapping of provider failures to our errors (never 401, never 500).
 * Each provider package is imported when a reply first needs it, so a worker evaluates only the
 * providers its replies use, and none for a request that calls no model (engine.ts; issue 24).
 */
import { APICallError, type LanguageModel, RetryError } from 'ai';
import { AppError } from '../errors';
import type { LlmForUse } from '../settings/llm-use.service';

/**
 * The language model of the settings, its provider's package imported on first use; 409
 * `llm_provider_unavailable` when it cannot run here.
 */
export async function languageModel(settings: LlmForUse, options: { fetch: typeof fetch; ai?: Ai }): Promise<LanguageModel> {
  const apiKey = settings.apiKey ?? undefined;
  const baseURL = settings.baseUrl ?? undefined;
  switch (settings.provider) {
    case 'openai': {
      const { createOpenAI } = await import('@ai-sdk/openai');
      return createOpenAI({ apiKey: apiKey ?? '', baseURL, fetch: options.fetch })(settings.model);
    }
    case 'anthropic': {
      const { createAnthropic } = await import('@ai-sdk/anthropic');
      return createAnthropic({ apiKey: apiKey ?? '', baseURL, fetch: options.fetch })(settings.model);
    }
    case 'openai-compatible': {
      if (!baseURL) throw unavailable('provider openai-compatible needs a baseUrl in the LLM settings');
      const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
      return createOpenAICompatible({ name: 'openai-compatible', baseURL, apiKey, fetch: options.fetch, includeUsage: true }).chatModel(
        settings.model,
      );
    }
    case 'workers-ai': {
      if (!options.ai)
        throw unavailable('provider workers-ai needs the deployment\'s AI binding ([ai] binding = "AI" in its wrangler file)');
      const { createWorkersAI } = await import('workers-ai-provider');
      return createWorkersAI({ binding: options.ai })(settings.model);
    }
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
