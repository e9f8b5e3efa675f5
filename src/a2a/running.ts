/**
 * The replies this isolate runs for A2A tasks, so a cancel stops one at once: the cancel marks the
 * task (here, when it runs here) and the running reply, watching on its own request, aborts within
 * a tick. A cancel that reaches another isolate is seen by the reply through the stored state,
 * read every second. The reply aborts from its own request (workerd lets no request touch
 * another's I/O).
 */
const running = new Set<string>();
const canceled = new Set<string>();

/** How often the running reply looks for a cancel in this isolate, and in the table. */
const TICK_MS = 50;
const STORED_EVERY_TICKS = 20;

/** Marks the task canceled, if it runs in this isolate (a mark for a task not here would never be cleared). */
export function markCanceled(taskId: string): void {
  if (running.has(taskId)) canceled.add(taskId);
}

/**
 * Watches for a cancel of `taskId` while its reply runs: `abort` is called once, on a mark here or
 * a canceled state in the table (`stored`). Call the returned function when the reply ends.
 */
export function watchCancel(taskId: string, stored: () => Promise<boolean>, abort: () => void): () => void {
  running.add(taskId);
  let ticks = 0;
  let reading = false;
  let done = false;
  const stop = () => {
    if (done) return;
    done = true;
    clearInterval(timer);
    running.delete(taskId);
    canceled.delete(taskId);
  };
  const timer = setInterval(() => {
    if (canceled.has(taskId)) {
      stop();
      abort();
      return;
    }
    if (++ticks % STORED_EVERY_TICKS !== 0 || reading) return;
    reading = true;
    stored().then(
      (yes) => {
        reading = false;
        if (yes && !done) {
          stop();
          abort();
        }
      },
      () => {
        reading = false;
      },
    );
  }, TICK_MS);
  return stop;
}
