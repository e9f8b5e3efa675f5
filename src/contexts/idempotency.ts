/**
 * What an Idempotency-Key is bound to, for every route that takes one (appending messages, a
 * reply, a chat completion): the contexts' idempotency records (src/contexts/remembered.service.ts,
 * the append SQL) compare this hash, so a key sent again with another request is refused.
 */
import type { Context } from 'hono';
import { sha256Hex } from '../encoding/sha256-hex';
import type { AppBindings } from '../types';
import type { Idempotency } from './messages.service';

/**
 * What an Idempotency-Key is bound to (within the agent's own storage): the operation, the decoded
 * context key and the validated body. Spelling the same request differently (a lower-case address,
 * `%3A` for `:`) is the same request.
 */
export async function idempotencyFor(
  c: Context<AppBindings>,
  key: string | undefined,
  contextKey: string,
  body: unknown,
): Promise<Idempotency | undefined> {
  if (key === undefined) return undefined;
  const text = `${c.req.method} ${c.req.routePath}\n${contextKey}\n${JSON.stringify(body)}`;
  return { key, requestHash: await sha256Hex(text) };
}
