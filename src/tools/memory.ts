/**
 * The agent's memory as a tool source: `memory_search` ranks its messages across its contexts
 * (src/memory/search.service.ts), `memory_read` reads one context newest first
 * (src/memory/read.service.ts), each result within 16 KiB (memory-result.ts); `memory_append`
 * appends one message as POST …/context/{key}/messages does, creating a missing context first
 * (offered on the MCP server only). They act on this agent's memory only, for a caller with the
 * right to read (or write) it. Their names are reserved whether offered or not, so a tool-server
 * tool's name does not change with a request's flags or the caller.
 */
import { z } from 'zod';
import { appendMessages } from '../contexts/messages.service';
import { KEY_MAX_CHARS, KEY_MIN_CHARS, ROLES } from '../contexts/rules';
import { parseQuery, QUERY_MAX_CHARS, QUERY_MAX_TERMS } from '../memory/query';
import { readNewest } from '../memory/read.service';
import { searchMemory } from '../memory/search.service';
import { ContextKeyArg, MessageArg, refusal } from './arguments';
import { fitResult } from './memory-result';
import { onContext } from './on-context';
import type { ToolEnv, ToolSource } from './source';
import { ALL_SURFACES, type AgentTool, type ToolOutcome, textOutcome } from './tool';

export const MEMORY_SEARCH = 'memory_search';
export const MEMORY_READ = 'memory_read';
export const MEMORY_APPEND = 'memory_append';

const SEARCH_LIMIT = { max: 20, default: 10 };
const READ_LIMIT = { max: 50, default: 20 };

const contextKey = z.string().min(KEY_MIN_CHARS).max(KEY_MAX_CHARS);

const SearchArgs = z.object({
  query: z.string().min(1).max(QUERY_MAX_CHARS),
  contextKey: contextKey.optional(),
  limit: z.number().int().min(1).max(SEARCH_LIMIT.max).default(SEARCH_LIMIT.default),
});

const ReadArgs = z.object({
  contextKey,
  beforeId: z.number().int().min(1).optional(),
  limit: z.number().int().min(1).max(READ_LIMIT.max).default(READ_LIMIT.default),
});

const AppendArgs = z.object({ contextKey: ContextKeyArg, message: MessageArg, role: z.enum(ROLES).default('user') });

// Kept short: every request of every reply carries them (and the request budget counts them).
const SEARCH_SCHEMA = {
  type: 'object',
  properties: {
    query: { type: 'string' },
    contextKey: { type: 'string' },
    limit: { type: 'integer', maximum: SEARCH_LIMIT.max },
  },
  required: ['query'],
};

const READ_SCHEMA = {
  type: 'object',
  properties: {
    contextKey: { type: 'string' },
    beforeId: { type: 'integer' },
    limit: { type: 'integer', maximum: READ_LIMIT.max },
  },
  required: ['contextKey'],
};

const APPEND_SCHEMA = {
  type: 'object',
  properties: {
    contextKey: { type: 'string' },
    message: { type: 'string' },
    role: { type: 'string', enum: [...ROLES], default: 'user' },
  },
  required: ['contextKey', 'message'],
};

const READ_ONLY = { readOnlyHint: true, openWorldHint: false };

async function search(env: ToolEnv, raw: Record<string, unknown>): Promise<ToolOutcome> {
  try {
    const args = SearchArgs.parse(raw);
    const parsed = parseQuery(args.query);
    if (!parsed) return textOutcome('validation_failed: query has no word to look for', true, 'validation_failed');
    if (parsed.alternatives.flat().length + parsed.excluded.length > QUERY_MAX_TERMS) {
      return textOutcome(`validation_failed: query may hold at most ${QUERY_MAX_TERMS} words and phrases`, true, 'validation_failed');
    }
    const page = await searchMemory(env.store, env.agent, {
      query: args.query,
      parsed,
      limit: args.limit,
      ...(args.contextKey !== undefined ? { contextKeys: [args.contextKey] } : {}),
    });
    const hits = page.hits.map(({ contextKey, id, role, createdAt, message }) => ({ contextKey, id, role, createdAt, message }));
    return textOutcome(fitResult(() => ({}), 'hits', hits));
  } catch (err) {
    return refusal(err, 'the memory tool failed');
  }
}

async function read(env: ToolEnv, raw: Record<string, unknown>): Promise<ToolOutcome> {
  try {
    const args = ReadArgs.parse(raw);
    const page = await readNewest(env.store, env.agent, args.contextKey, { beforeId: args.beforeId, limit: args.limit });
    // A cut page reads on after its last message shown (one cut at the end cannot be read whole anyway).
    const head = (kept: readonly { id: number }[], truncated: boolean) => ({
      contextKey: args.contextKey,
      nextBeforeId: truncated ? (kept.at(-1)?.id ?? args.beforeId ?? null) : page.nextBeforeId,
    });
    return textOutcome(fitResult(head, 'messages', page.messages));
  } catch (err) {
    return refusal(err, 'the memory tool failed');
  }
}

async function append(env: ToolEnv, raw: Record<string, unknown>): Promise<ToolOutcome> {
  try {
    const args = AppendArgs.parse(raw);
    const messages = [{ role: args.role, message: args.message }];
    const work = () => appendMessages(env.store, env.agent, args.contextKey, messages);
    const appended = await onContext(env.store, env.agent, args.contextKey, work);
    const stored = appended.messages.map(({ id, role, createdAt }) => ({ id, role, createdAt }));
    return textOutcome(JSON.stringify({ contextKey: args.contextKey, messages: stored }));
  } catch (err) {
    return refusal(err);
  }
}

// Reads write no audit entry (a busy key would grow the trail per read); an append is one entry.
const builtIn = { source: 'memory', connectionId: null } as const;

export const memorySource: ToolSource = {
  reserved: [MEMORY_SEARCH, MEMORY_READ, MEMORY_APPEND],
  tools: (env): AgentTool[] => [
    {
      ...builtIn,
      audited: false,
      name: MEMORY_SEARCH,
      realName: MEMORY_SEARCH,
      title: 'Search memory',
      description: "Search the agent's memory (all contexts), best first",
      inputSchema: SEARCH_SCHEMA,
      annotations: READ_ONLY,
      surfaces: ALL_SURFACES,
      needs: 'memory:read',
      call: (args) => search(env, args),
    },
    {
      ...builtIn,
      audited: false,
      name: MEMORY_READ,
      realName: MEMORY_READ,
      title: 'Read a context',
      description: "A context's messages, newest first; beforeId: nextBeforeId to page back",
      inputSchema: READ_SCHEMA,
      annotations: READ_ONLY,
      surfaces: ALL_SURFACES,
      needs: 'memory:read',
      call: (args) => read(env, args),
    },
    {
      ...builtIn,
      audited: true,
      name: MEMORY_APPEND,
      realName: MEMORY_APPEND,
      title: 'Append to memory',
      description: "Append one message to a context of the agent's memory (created if missing)",
      inputSchema: APPEND_SCHEMA,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      // On the MCP server only: a reply's model is given no writes to the agent's memory.
      surfaces: ['server'],
      needs: 'memory:write',
      call: (args) => append(env, args),
    },
  ],
};
