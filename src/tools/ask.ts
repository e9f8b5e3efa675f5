/**
 * `ask { message, contextKey? }`: the agent replies, exactly as POST …/context/{key}/reply does
 * without streaming: the message is appended to the caller's context (by default `mcp/{keyId}` or
 * `mcp/{wallet}`, created on first use), the model answers over its memory, template and tools,
 * and the answer is stored. Offered on the MCP server only (a reply does not ask itself); the reply
 * is run by the surface (`ToolEnv.conversation`), which counts its usage and audits its tool calls
 * for the caller, so `ask` itself is not audited.
 */
import { z } from 'zod';
import { AppError } from '../errors';
import { ContextKeyArg, MessageArg, refusal } from './arguments';
import { MEMORY_READ, MEMORY_SEARCH } from './memory';
import { withoutRight } from './rights';
import { allowsBuiltIn, type Conversation, type ToolCaller, type ToolSource } from './source';
import type { AgentTool, ToolOutcome } from './tool';

export const ASK = 'ask';

const AskArgs = z.object({ message: MessageArg, contextKey: ContextKeyArg.optional() });

const INPUT_SCHEMA = {
  type: 'object',
  properties: {
    message: { type: 'string', description: 'What to say to the agent' },
    contextKey: { type: 'string', description: 'The conversation (a context key); created on first use' },
  },
  required: ['message'],
};

/** The caller's default context, or one under it (`mcp/{keyId}/…`). */
function ownContext(key: string, own: string): boolean {
  return key === own || key.startsWith(`${own}/`);
}

function askTool(conversation: Conversation, caller: ToolCaller): AgentTool {
  const own = conversation.defaultContextKey;
  // The reply offers the memory tools only to a caller that may read memory and call both of them itself.
  const mayReadContexts = caller.rights.has('memory:read') && allowsBuiltIn(caller, MEMORY_SEARCH) && allowsBuiltIn(caller, MEMORY_READ);
  const rights = mayReadContexts ? caller.rights : withoutRight(caller.rights, 'memory:read');
  const call = async (raw: Record<string, unknown>, progress?: (m: string) => void, signal?: AbortSignal): Promise<ToolOutcome> => {
    try {
      const args = AskArgs.parse(raw);
      // A caller that may not read the agent's memory converses in its own contexts only:
      // another context's history would reach it through the answer.
      if (args.contextKey !== undefined && !mayReadContexts && !ownContext(args.contextKey, own)) {
        throw new AppError(
          'validation_failed',
          `contextKey: without memory_search and memory_read allowed, ask converses in ${own} or a context under ${own}/ only`,
        );
      }
      const contextKey = args.contextKey ?? own;
      // The model calls for the caller only the tools the caller may call itself.
      const request = { contextKey, message: args.message, rights, allowedTools: caller.allowedTools };
      const { text, answer } = await conversation.reply(request, progress, signal);
      return { content: [{ type: 'text', text }], structuredContent: { contextKey, ...answer }, isError: false };
    } catch (err) {
      return refusal(err);
    }
  };
  return {
    name: ASK,
    realName: ASK,
    source: ASK,
    connectionId: null,
    title: 'Ask the agent',
    description:
      "Send the agent a message; it answers with its own model, memory and tools. The conversation is kept in a context of the agent's memory (contextKey; by default one of your own).",
    inputSchema: INPUT_SCHEMA,
    annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
    surfaces: ['server'],
    audited: false,
    reportsProgress: true,
    call: (args, ctx) => call(args, ctx.progress, ctx.signal),
  };
}

export const askSource: ToolSource = {
  reserved: [ASK],
  tools: (env, caller) => (env.conversation ? [askTool(env.conversation, caller)] : []),
};
