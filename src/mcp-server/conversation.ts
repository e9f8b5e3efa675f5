/**
 * How the MCP server's `ask` (src/tools/ask.ts) converses: a reply run exactly as POST
 * …/context/{key}/reply runs it without streaming, in a context created on first use. Usage is
 * counted for the caller's credential and the reply's tool calls are audited for it by the reply
 * service itself. Given to the tool catalog by the server, so the tools layer runs no reply.
 */
import type { Context } from 'hono';
import type { Agent } from '../identity/agent';
import type { LoopEvents } from '../replies/loop';
import { auditActor, usageCaller } from '../replies/request-deps';
import { prepareReply, type ReplyDeps } from '../replies/reply.service';
import { onContext } from '../tools/on-context';
import type { Conversation } from '../tools/source';
import type { AppBindings } from '../types';

/** Not streamed: the answer is the result. */
const quiet: LoopEvents = { delta: () => undefined, toolCall: () => undefined, toolResult: () => undefined };

/** The reply's text and tool calls as progress messages. */
function progressEvents(progress: (message: string) => void): LoopEvents {
  return {
    delta: (text) => progress(text),
    toolCall: (e) => progress(`calling ${e.tool}`),
    toolResult: (e) => progress(`${e.tool} ${e.isError ? 'failed' : 'answered'}`),
  };
}

/** The caller's conversations with the agent (read after the owner check: the credential as the middleware left it). */
export function conversation(c: Context<AppBindings>, deps: ReplyDeps, agent: Agent): Conversation {
  const key = c.var.agentKeyUse;
  const actor = auditActor(c);
  const usage = usageCaller(c);
  return {
    defaultContextKey: key ? `mcp/${key.id}` : `mcp/${c.var.wallet.toLowerCase()}`,
    async reply(request, progress, signal) {
      const input = {
        contextKey: request.contextKey,
        message: request.message,
        role: 'user' as const,
        variables: {},
        tools: true,
        memoryTools: true,
        rights: () => request.rights,
        allowedTools: () => request.allowedTools,
        actor: () => actor,
        caller: () => usage,
      };
      const prepared = await onContext(deps.store, agent, request.contextKey, () => prepareReply(deps, agent, input));
      const events = progress ? progressEvents(progress) : quiet;
      const answer = 'remembered' in prepared ? prepared.remembered : await prepared.prepared.run(events, signal);
      return { text: answer.reply?.message ?? '', answer: { ...answer } };
    },
  };
}
