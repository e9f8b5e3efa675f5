/**
 * The model behind the daily token limits: every call reserves its estimate (the request's
 * characters / 4 plus its output ceiling, src/usage/ledger.ts) before it reaches the provider and
 * settles to the provider's usage when it ends. A call cut off (a hang-up, a timeout, a stream that
 * broke) without the provider's usage keeps its estimate, and the estimate is recorded as the
 * call's usage: the provider bills it. A call the provider refused outright (an HTTP error before
 * the stream) is given back. The first call of a reply (or a summary) that finds a limit reached is
 * 429 `usage_limit_reached`; a later step of a running reply that finds one ends the reply there,
 * as `length` (`UsageStop`): the reply in flight finishes, with what it has. Loaded with the AI SDK
 * (engine.ts).
 */
import { type LanguageModel, type LanguageModelMiddleware, wrapLanguageModel } from 'ai';
import { estimateTokens, type Reservation, UsageLimitReached } from '../usage/ledger';

/** How one model's calls are charged. */
export interface CallCharges {
  /** Reserves `estimate` tokens; throws `UsageLimitReached` when a limit is reached. */
  reserve(estimate: number): Promise<Reservation>;
  /** A call that ended without the provider's usage: its estimate, recorded as the call's usage. */
  cutOff(usage: { inputTokens: number; outputTokens: number }): void;
  /** Keeps settling work alive after the response (`waitUntil`). */
  background(work: Promise<unknown>): void;
}

/** A later step of a running reply found a limit reached: the reply ends there, as `length`. */
export class UsageStop extends Error {
  override readonly name = 'UsageStop';
  constructor(readonly refusal: UsageLimitReached) {
    super(refusal.message);
  }
}

/** Output ceiling assumed for a call that names none (every call of ours names one). */
const DEFAULT_OUTPUT_CEILING = 4_096;

interface Reported {
  inputTokens: number;
  outputTokens: number;
}

/** The provider's usage of a `finish` part or a generate result; null when it reported none. */
function reportedUsage(usage: unknown): Reported | null {
  const u = usage as { inputTokens?: { total?: number }; outputTokens?: { total?: number } } | undefined;
  const input = u?.inputTokens?.total;
  const output = u?.outputTokens?.total;
  if (typeof input !== 'number' && typeof output !== 'number') return null;
  const n = (v: number | undefined) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);
  return { inputTokens: n(input), outputTokens: n(output) };
}

/** `model` whose calls are charged by `charges` (see the module comment). */
export function reserving(model: LanguageModel, charges: CallCharges): LanguageModel {
  if (typeof model === 'string') return model;
  let calls = 0;
  const open = async (params: { prompt: unknown; tools?: unknown; maxOutputTokens?: number | undefined }) => {
    const first = calls++ === 0;
    const inputChars = JSON.stringify([params.prompt, params.tools ?? null]).length;
    const ceiling = params.maxOutputTokens ?? DEFAULT_OUTPUT_CEILING;
    const estimate = estimateTokens(inputChars, ceiling);
    try {
      const reservation = await charges.reserve(estimate);
      let settling: Promise<void> | undefined;
      const end = (reported: Reported | null): Promise<void> => {
        if (settling) return settling;
        if (reported === null) charges.cutOff({ inputTokens: estimate - ceiling, outputTokens: ceiling });
        const tokens = reported === null ? estimate : reported.inputTokens + reported.outputTokens;
        settling = reservation.settle(tokens).catch(settleFailed);
        charges.background(settling);
        return settling;
      };
      return { end, refused: () => end({ inputTokens: 0, outputTokens: 0 }) };
    } catch (err) {
      if (!first && err instanceof UsageLimitReached) throw new UsageStop(err);
      throw err;
    }
  };
  const middleware: LanguageModelMiddleware = {
    wrapStream: async ({ doStream, params }) => {
      const call = await open(params);
      let result: Awaited<ReturnType<typeof doStream>>;
      try {
        result = await doStream();
      } catch (err) {
        // Cut off before the stream (aborted): billed as far as we know; refused by the provider: not.
        if (params.abortSignal?.aborted) void call.end(null);
        else void call.refused();
        throw err;
      }
      return { ...result, stream: watched(result.stream, call.end) };
    },
    wrapGenerate: async ({ doGenerate, params }) => {
      const call = await open(params);
      try {
        const result = await doGenerate();
        await call.end(reportedUsage(result.usage));
        return result;
      } catch (err) {
        if (params.abortSignal?.aborted) void call.end(null);
        else void call.refused();
        throw err;
      }
    },
  };
  return wrapLanguageModel({ model, middleware });
}

/**
 * `stream` passed on part by part; `end` hears the provider's usage from its `finish` part, or null
 * when the stream ended, broke or was cancelled without one.
 */
function watched<T extends { type: string }>(
  stream: ReadableStream<T>,
  end: (reported: Reported | null) => Promise<void>,
): ReadableStream<T> {
  const reader = stream.getReader();
  let reported: Reported | null = null;
  return new ReadableStream<T>({
    async pull(controller) {
      try {
        const next = await reader.read();
        if (next.done) {
          // Settled before the step ends, so the reply's next step is charged after this one.
          await end(reported);
          controller.close();
          return;
        }
        if (next.value.type === 'finish') {
          reported = reportedUsage((next.value as { usage?: unknown }).usage);
          if (reported) void end(reported);
        }
        controller.enqueue(next.value);
      } catch (err) {
        void end(reported);
        controller.error(err);
      }
    },
    cancel(reason) {
      void end(reported);
      return reader.cancel(reason);
    },
  });
}

function settleFailed(err: unknown): void {
  console.warn(
    JSON.stringify({
      level: 'warn',
      warning: `settling a model call's reservation failed: ${err instanceof Error ? err.name : 'unknown'}`,
    }),
  );
}
