/**
 * The tool-call bounds of one reply: at most `MAX_CALLS_PER_STEP` calls of one model
 * step run, at most `MAX_CALLS_AT_ONCE` at once (Workers allow 6 open connections; the model's
 * own stream holds one), at most `MAX_CALLS_PER_REPLY` in the reply. A call over a bound does not
 * run: the model reads an error result naming the bound. The gate wraps each tool's `execute`, so
 * every tool the loop offers (an MCP connection's or a built-in one) is bounded the same way.
 */
import type { ToolExecutionOptions, ToolSet } from 'ai';

export const MAX_CALLS_PER_STEP = 16;
export const MAX_CALLS_AT_ONCE = 4;
export const MAX_CALLS_PER_REPLY = 64;

/** A tool call the gate did not run: the model reads `message` as the call's error result. */
export class CallRefused extends Error {
  override readonly name = 'CallRefused';
}

/** Told of each refused call (to list it as a step). */
export type OnRefused = (tool: string, input: unknown, message: string) => void;

/** The call bounds of one reply. */
export interface CallGate {
  /** A new model step begins: its calls count from zero. */
  nextStep(): void;
  /** `tools` with each `execute` run within the bounds. */
  wrap(tools: ToolSet, onRefused: OnRefused): ToolSet;
}

/** A gate for one reply. */
export function callGate(): CallGate {
  let inStep = 0;
  let inReply = 0;
  let running = 0;
  const waiting: (() => void)[] = [];

  const refusal = (): string | undefined => {
    if (inReply >= MAX_CALLS_PER_REPLY) return `tool call not run: at most ${MAX_CALLS_PER_REPLY} tool calls run in one reply`;
    if (inStep >= MAX_CALLS_PER_STEP) return `tool call not run: at most ${MAX_CALLS_PER_STEP} tool calls of one model step run`;
    inStep++;
    inReply++;
    return undefined;
  };

  const acquire = (signal: AbortSignal | undefined): Promise<void> => {
    if (running < MAX_CALLS_AT_ONCE) {
      running++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const at = waiting.indexOf(grant);
        if (at >= 0) waiting.splice(at, 1);
        reject(signal?.reason);
      };
      // The slot passes from the call that ends to this one: `running` stays as it is.
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      if (signal?.aborted) return reject(signal.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      waiting.push(grant);
    });
  };

  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };

  return {
    nextStep() {
      inStep = 0;
    },
    wrap(tools, onRefused) {
      const gated: ToolSet = {};
      for (const [name, t] of Object.entries(tools)) {
        const execute = t.execute;
        if (!execute) {
          gated[name] = t;
          continue;
        }
        gated[name] = {
          ...t,
          execute: async (input: unknown, options: ToolExecutionOptions<unknown>) => {
            // Counted when the SDK starts the call, in the order the model made them.
            const refused = refusal();
            if (refused !== undefined) {
              onRefused(name, input, refused);
              throw new CallRefused(refused);
            }
            await acquire(options.abortSignal);
            try {
              return await execute(input, options);
            } finally {
              release();
            }
          },
        } as ToolSet[string];
      }
      return gated;
    },
  };
}
