/**
 * `ask { message, contextKey? }`: the agent replies (DESIGN §11), exactly as POST
 * .../context/{key}/reply does without streaming: the message is appended to the caller's context
 * (by default `mcp/{keyId}` or `mcp/{wallet}`, created on first use), the model answers over its
 * memory, template and tools, and the answer is stored. Usage is counted for the caller's
 * credential and the reply's tool calls are audited for it, by the reply service itself.
 */
import { z } from 'zod';
import type { Agent } from '../../identity/agent';
import type { LoopEvents } from '../../replies/loop';
import { AppError } from '../../errors';
import { prepareReply, type ReplyDeps } from '../../replies/reply.service';
import type { McpCaller, ServedTool } from '../served-tool';
import { ContextKeyArg, failure, MessageArg } from './arguments';
import { onContext } from './context';

export const ASK = 'ask';

/** Not streamed: the answer is the result. */
const quiet: LoopEvents = { delta: () => undefined, toolCall: () => undefined, toolResult: () => undefined };

const AskArgs = z.object({ message: MessageArg, contextKey: ContextKeyArg.optional() });

/** The caller's default context, or one under it (`mcp/{keyId}/…`). */
function ownContext(key: string, own: string): boolean {
  return key === own || key.startsWith(`${own}/`);
}

export function askTool(deps: ReplyDeps, agent: Agent, caller: McpCaller, mayReadContexts: boolean): ServedTool {
  return {
    definition: {
      name: ASK,
      title: 'Ask the agent',
      description:
        "Send the agent a message; it answers with its own model, memory and tools. The conversation is kept in a context of the agent's memory (contextKey; by default one of your own).",
      inputSchema: {
        type: 'object',
        properties: {
          message: { type: 'string', description: 'What to say to the agent' },
          contextKey: { type: 'string', description: 'The conversation (a context key); created on first use' },
        },
        required: ['message'],
      },
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
    },
    audit: null,
    reportsProgress: true,
    async call(raw, signal, progress) {
      try {
        const args = AskArgs.parse(raw);
        // A caller that may not read the agent's memory here converses in its own contexts only:
        // another context's history would reach it through the answer.
        if (args.contextKey !== undefined && !mayReadContexts && !ownContext(args.contextKey, caller.defaultContextKey)) {
          throw new AppError(
            'validation_failed',
            `contextKey: without memory_search and memory_read allowed, ask converses in ${caller.defaultContextKey} or a context under ${caller.defaultContextKey}/ only`,
          );
        }
        const contextKey = args.contextKey ?? caller.defaultContextKey;
        const input = {
          contextKey,
          message: args.message,
          role: 'user' as const,
          variables: {},
          tools: true,
          memoryTools: true,
          mayReadContexts: () => mayReadContexts,
          // The model calls for the caller only the tools the caller may call itself.
          allowedTools: caller.allowedTools,
          actor: () => caller.actor,
          caller: () => caller.usage,
        };
        const prepared = await onContext(deps.store, agent, contextKey, () => prepareReply(deps, agent, input));
        const events: LoopEvents = progress
          ? {
              delta: (text) => progress(text),
              toolCall: (e) => progress(`calling ${e.tool}`),
              toolResult: (e) => progress(`${e.tool} ${e.isError ? 'failed' : 'answered'}`),
            }
          : quiet;
        const answer = 'remembered' in prepared ? prepared.remembered : await prepared.prepared.run(events, signal);
        return {
          result: {
            content: [{ type: 'text', text: answer.reply?.message ?? '' }],
            structuredContent: { contextKey, ...answer },
          },
          outcome: 'ok',
        };
      } catch (err) {
        return failure(err);
      }
    },
  };
}
