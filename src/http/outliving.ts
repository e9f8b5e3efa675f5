/**
 * Work that must finish although the client hung up, and the answer to a client that did: shared
 * by the routes that run a reply (the reply route, the chat completions).
 */
import type { Context } from 'hono';
import type { AppBindings } from '../types';

/**
 * `work`, kept running after the client hangs up (`waitUntil`): workerd tears a request down at
 * once when its client goes, and a reply torn down mid-way would keep its lease until it runs out.
 */
export function outliving<T>(c: Context<AppBindings>, work: Promise<T>): Promise<T> {
  try {
    c.executionCtx.waitUntil(
      work.then(
        () => undefined,
        () => undefined,
      ),
    );
  } catch {
    // no execution context (app.request in unit tests): nothing tears the request down
  }
  return work;
}

/** A reply whose client hung up: one log line, and an answer nobody reads (499, "client closed request"). */
export function abandoned(c: Context<AppBindings>): Response {
  console.info(JSON.stringify({ level: 'info', requestId: c.get('requestId'), event: 'reply_abandoned' }));
  return new Response(null, { status: 499 });
}
