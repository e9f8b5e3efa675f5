/**
 * fetch for the database driver's HTTP statements when a request may abandon them (db.withSignal).
 * The caller's signal is never handed to the runtime's fetch: workerd reports its own abort of a
 * fetch still waiting for the answer's headers as an uncaught exception (the abort's reason, in the
 * worker's log), however the rejection is handled. So on an abort the caller stops waiting at once
 * (rejected with the signal's reason) and the answer, when its headers come, is dropped unread;
 * an answer already on its way is read through a stream of our own that the signal errors while
 * the runtime's reader is cancelled: the connection is dropped and no large answer is read to its
 * end for a refused request.
 */
export async function signalledFetch(input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> {
  const { signal, ...rest } = init;
  if (!signal) return fetch(input, init);
  signal.throwIfAborted();
  const pending = fetch(input, rest);
  let stopWaiting: (() => void) | undefined;
  const abandoned = new Promise<never>((_, reject) => {
    stopWaiting = () => reject(signal.reason);
    signal.addEventListener('abort', stopWaiting, { once: true });
  });
  abandoned.catch(() => undefined); // only raced below
  // An answer that comes after the caller stopped waiting is dropped unread.
  pending.then(
    (res) => {
      if (signal.aborted) res.body?.cancel().catch(() => undefined);
    },
    () => undefined,
  );
  let res: Response;
  try {
    res = await Promise.race([pending, abandoned]);
  } finally {
    if (stopWaiting) signal.removeEventListener('abort', stopWaiting);
  }
  return readUntilAborted(res, signal);
}

/** `res` whose body ends with the signal's reason once it aborts (the runtime's reader cancelled). */
function readUntilAborted(res: Response, signal: AbortSignal): Response {
  const source = res.body;
  if (source === null) return res;
  const reader = source.getReader();
  let onAbort: (() => void) | undefined;
  const forget = () => {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      onAbort = () => {
        controller.error(signal.reason);
        reader.cancel(signal.reason).catch(() => undefined);
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    },
    async pull(controller) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (err) {
        forget();
        // Already errored with the signal's reason when it aborted; else the connection failed.
        if (!signal.aborted) controller.error(err);
        return;
      }
      if (chunk.done) {
        forget();
        controller.close();
      } else controller.enqueue(chunk.value);
    },
    cancel(reason) {
      forget();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}
