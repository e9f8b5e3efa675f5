import { type ContextsDeps, createKey } from '../contexts/contexts.service';
import type { Agent } from '../identity/agent';
import { AppError } from '../errors';

/**
 * Runs `work` on the context `key`; when it finds no such context (404 `context_not_found`), creates
 * it (provisioning the agent's storage on its first context) and runs `work` once more. The usual
 * call, on a context that exists, costs nothing more.
 */
export async function onContext<T>(store: ContextsDeps, agent: Agent, key: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (!(err instanceof AppError && err.code === 'context_not_found')) throw err;
  }
  try {
    await createKey(store, agent, key);
  } catch (err) {
    // Created meanwhile by another call: as good.
    if (!(err instanceof AppError && err.code === 'context_exists')) throw err;
  }
  return work();
}
