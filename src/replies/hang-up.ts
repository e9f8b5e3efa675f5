/**
 * A client that hangs up does not hold its reply: its request's signal (workerd's
 * `enable_request_signal`) aborts the reply's controller, and the reply stops waiting for its loop
 * at once, so the lease is released without waiting for a tool call that does not listen.
 */
export interface HangUp {
  /** Rejects with the signal's reason when the client hangs up; never settles otherwise. */
  readonly promise: Promise<never>;
  /** Stops listening (the reply ended). */
  dispose(): void;
}

/** Listens to `gone` (the client's signal) for one reply: aborts `controller` when it fires. */
export function onHangUp(gone: AbortSignal | undefined, controller: AbortController): HangUp {
  let listener: (() => void) | undefined;
  const promise = new Promise<never>((_, reject) => {
    if (!gone) return;
    listener = () => {
      controller.abort(gone.reason);
      reject(gone.reason);
    };
    if (gone.aborted) listener();
    else gone.addEventListener('abort', listener, { once: true });
  });
  // A hang-up after the loop ended is not a failure: the answer is stored all the same.
  promise.catch(() => undefined);
  return {
    promise,
    dispose: () => {
      if (listener) gone?.removeEventListener('abort', listener);
    },
  };
}
