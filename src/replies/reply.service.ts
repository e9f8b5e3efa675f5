/**
 * An agent reply: checks what the request names (settings, key, template and its variables)
 * before anything is stored, takes the context's lease, appends the message (kept whatever
 * follows), runs the loop over the trimmed memory and the agent's tools, stores the reply as one
 * `assistant` message, and remembers the answer under the Idempotency-Key. What the model reported
 * is recorded as usage beside that append (src/usage/), and a reply starting past a daily token
 * limit is refused before anything is stored. Preparing (reply-prepare.ts: reads and checks) is
 * apart from running and storing (reply-run.ts). Knows nothing of HTTP.
 */
import type { Agent } from '../identity/agent';
import { planReply, readForReply, take } from './reply-prepare';
import { startReply } from './reply-run';
import type { Prepared, ReplyDeps, ReplyInput } from './reply-types';

export type { Prepared, PreparedReply, ReplyAnswer, ReplyDeps, ReplyInput } from './reply-types';

/**
 * Prepares a reply: its reads overlap the owner check; after the check, an answer remembered under
 * the Idempotency-Key is given back as it was, or the request is checked, its message stored with
 * the context's lease and the model asked. Run the prepared reply once (or release it).
 */
export async function prepareReply(deps: ReplyDeps, agent: Agent, input: ReplyInput): Promise<Prepared> {
  const reads = await readForReply(deps, agent, input);
  await deps.store.ownerCheck;
  const remembered = take(reads.remembered);
  if (remembered) return { remembered };
  const plan = await planReply(deps, agent, input, reads);
  return { prepared: await startReply(deps, agent, input, plan) };
}
