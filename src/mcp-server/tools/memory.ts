/**
 * The memory tools on the agent's MCP server (DESIGN §13, §14): `memory_search` and `memory_read`
 * are the reply's own (src/replies/tool-sources/memory.ts, read-only), and `memory_append
 * { contextKey, message, role? }` appends one message as POST .../context/{key}/messages does,
 * creating a missing context first.
 */
import { z } from 'zod';
import type { Agent } from '../../identity/agent';
import { appendMessages, type MessagesDeps } from '../../contexts/messages.service';
import { ROLES } from '../../contexts/rules';
import { MEMORY_READ, MEMORY_SEARCH, memorySource } from '../../replies/tool-sources/memory';
import { type ServedTool, textResult } from '../served-tool';
import { ContextKeyArg, failure, MessageArg } from './arguments';
import { onContext } from './context';

export const MEMORY_APPEND = 'memory_append';

const TITLES: Record<string, string> = { [MEMORY_SEARCH]: 'Search memory', [MEMORY_READ]: 'Read a context' };

const AppendArgs = z.object({ contextKey: ContextKeyArg, message: MessageArg, role: z.enum(ROLES).default('user') });

/** `memory_search` and `memory_read`, as a reply offers them, marked read-only. */
export function memoryReadTools(store: MessagesDeps, agent: Agent): ServedTool[] {
  return memorySource(store, agent, true)
    .tools(new Set())
    .map((tool) => ({
      definition: {
        name: tool.name,
        title: TITLES[tool.name],
        description: tool.description,
        inputSchema: { type: 'object', ...tool.inputSchema },
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      audit: { connectionId: null },
      async call(args, signal) {
        const outcome = await tool
          .call(args, signal)
          .catch(() => ({ text: 'internal_error: the tool failed', isError: true, code: 'internal_error' }));
        return { result: textResult(outcome.text, outcome.isError), outcome: outcome.code ?? (outcome.isError ? 'tool_error' : 'ok') };
      },
    }));
}

export function memoryAppendTool(store: MessagesDeps, agent: Agent): ServedTool {
  return {
    definition: {
      name: MEMORY_APPEND,
      title: 'Append to memory',
      description: "Append one message to a context of the agent's memory (created if missing)",
      inputSchema: {
        type: 'object',
        properties: {
          contextKey: { type: 'string' },
          message: { type: 'string' },
          role: { type: 'string', enum: [...ROLES], default: 'user' },
        },
        required: ['contextKey', 'message'],
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    audit: { connectionId: null },
    async call(raw) {
      try {
        const args = AppendArgs.parse(raw);
        const messages = [{ role: args.role, message: args.message }];
        const appended = await onContext(store, agent, args.contextKey, () => appendMessages(store, agent, args.contextKey, messages));
        const stored = appended.messages.map(({ id, role, createdAt }) => ({ id, role, createdAt }));
        return { result: textResult(JSON.stringify({ contextKey: args.contextKey, messages: stored })), outcome: 'ok' };
      } catch (err) {
        return failure(err);
      }
    },
  };
}
