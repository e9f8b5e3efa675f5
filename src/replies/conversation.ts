/**
 * A reply in a conversation's context that is created on first use (chat completions, paid
 * replies). Knows nothing of HTTP.
 */
import type { Agent } from '../identity/agent';
import { createKey } from '../contexts/contexts.service';
import { AppError } from '../errors';
import type { Prepared, ReplyDeps, ReplyInput } from './reply-types';
import { prepareReply } from './reply.service';

/**
 * Prepares the reply as POST …/context/{key}/reply does. A context that does not exist yet is
 * created (after the owner check, as every write) and the reply prepared again: a conversation's
 * first request pays one round trip more, every later one none.
 */
export async function prepareConversationReply(deps: ReplyDeps, agent: Agent, input: ReplyInput): Promise<Prepared> {
  try {
    return await prepareReply(deps, agent, input);
  } catch (err) {
    if (!(err instanceof AppError && err.code === 'context_not_found')) throw err;
  }
  try {
    await createKey(deps.store, agent, input.contextKey);
  } catch (err) {
    // Created meanwhile by a concurrent first request: the same conversation.
    if (!(err instanceof AppError && err.code === 'context_exists')) throw err;
  }
  return prepareReply(deps, agent, input);
}
