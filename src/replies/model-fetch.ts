/**
 * The model's fetch: the worker's own fetch with no redirects, an idle deadline per model call and
 * a cap on what one answer may weigh. Apart from model.ts (the providers and the AI SDK), so a
 * reply can build it without evaluating them.
 */
import { AppError } from '../errors';

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
