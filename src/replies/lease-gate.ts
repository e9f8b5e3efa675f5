/**
 * The model behind the context's lease: every call of the model waits until the reply holds the
 * lease (and its message is stored), and never starts when taking it failed. So a reply refused
 * with 409 `reply_in_progress` (or whose message was not stored) never reaches the provider: the
 * owner pays for no answer nobody gets, and the usage counts every call that was made. What runs
 * before the call (the AI SDK's set-up, fitting the first request to its budget) still overlaps
 * the lease's round trip. Loaded with the AI SDK (engine.ts).
 */
import { type LanguageModel, type LanguageModelMiddleware, wrapLanguageModel } from 'ai';

export function afterLease(model: LanguageModel, lease: Promise<unknown>): LanguageModel {
  if (typeof model === 'string') return model;
  const middleware: LanguageModelMiddleware = {
    wrapStream: async ({ doStream }) => {
      await lease;
      return doStream();
    },
    wrapGenerate: async ({ doGenerate }) => {
      await lease;
      return doGenerate();
    },
  };
  return wrapLanguageModel({ model, middleware });
}
