/**
 * The agent's memory as a tool source (DESIGN §13): `memory_search` ranks its messages across its
 * contexts (src/memory/search.service.ts), `memory_read` reads one context newest first
 * (src/memory/read.service.ts). Each message's text goes in verbatim, cut only at the end, and a
 * whole result stays within `MAX_MEMORY_RESULT_BYTES`. They read this agent's memory only; the
 * reply offers them only to a caller that may read its contexts. Their names are reserved whether
 * offered or not, so an MCP tool's name does not change with a request's flags.
 */
import { z } from 'zod';
import type { Agent } from '../../identity/agent';
import type { MessagesDeps } from '../../contexts/messages.service';
import { KEY_MAX_CHARS, KEY_MIN_CHARS } from '../../contexts/rules';
import { AppError } from '../../errors';
import { parseQuery, QUERY_MAX_CHARS, QUERY_MAX_TERMS } from '../../memory/query';
import { readNewest } from '../../memory/read.service';
import { searchMemory } from '../../memory/search.service';
import type { SourcedTool, ToolOutcome, ToolSource } from './source';

/** A memory tool's whole result at most (UTF-8 bytes of its JSON). */
export const MAX_MEMORY_RESULT_BYTES = 16 * 1024;

export const MEMORY_SEARCH = 'memory_search';
export const MEMORY_READ = 'memory_read';

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

const bytes = (text: string) => new TextEncoder().encode(text).length;

/** `text` cut to its first `chars` UTF-16 units, never inside a surrogate pair. */
function prefix(text: string, chars: number): string {
  const code = text.charCodeAt(chars - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? chars - 1 : chars);
}

/** `entry` with its message cut at the end (`cut: true`) to the most that fits `room` bytes; null if none does. */
function cutEntry<E extends { message: string }>(entry: E, room: number): (E & { cut: true }) | null {
  const size = (chars: number) => bytes(JSON.stringify({ ...entry, message: prefix(entry.message, chars), cut: true }));
  if (size(0) > room) return null;
  let lo = 0;
  let hi = entry.message.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (size(mid) <= room) lo = mid;
    else hi = mid - 1;
  }
  return { ...entry, message: prefix(entry.message, lo), cut: true };
}

/** Bytes kept free in the frame for a number the head learns only from what was kept (`nextBeforeId`). */
const HEAD_SLACK_BYTES = 24;

/**
 * `{ ...head(kept, truncated), [key]: kept, truncated }` as JSON within MAX_MEMORY_RESULT_BYTES:
 * whole entries while they fit, then the next one's message cut at the end, then none
 * (`truncated: true`).
 */
export function fitResult<E extends { message: string }>(
  head: (kept: readonly E[], truncated: boolean) => Record<string, unknown>,
  key: string,
  entries: readonly E[],
): string {
  // `false` is the longer of the two values: the frame never grows.
  let room = MAX_MEMORY_RESULT_BYTES - HEAD_SLACK_BYTES - bytes(JSON.stringify({ ...head([], false), [key]: [], truncated: false }));
  const kept: E[] = [];
  let truncated = false;
  for (const entry of entries) {
    const comma = kept.length > 0 ? 1 : 0;
    const cost = bytes(JSON.stringify(entry)) + comma;
    if (cost <= room) {
      kept.push(entry);
      room -= cost;
      continue;
    }
    truncated = true;
    const cut = cutEntry(entry, room - comma);
    if (cut) kept.push(cut);
    break;
  }
  return JSON.stringify({ ...head(kept, truncated), [key]: kept, truncated });
}

/** An argument or a service's refusal, as the model reads it. */
function failure(err: unknown): ToolOutcome {
  if (err instanceof z.ZodError) {
    const issues = err.issues.map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`).join('; ');
    return { text: `validation_failed: ${issues}`, isError: true, code: 'validation_failed' };
  }
  if (err instanceof AppError) return { text: `${err.code}: ${err.message}`, isError: true, code: err.code };
  return { text: 'internal_error: the memory tool failed', isError: true, code: 'internal_error' };
}

/** The memory tools of one reply; `offered` false: none (the names stay reserved). */
export function memorySource(store: MessagesDeps, agent: Agent, offered: boolean): ToolSource {
  const search = async (raw: Record<string, unknown>): Promise<ToolOutcome> => {
    try {
      const args = SearchArgs.parse(raw);
      const parsed = parseQuery(args.query);
      if (!parsed) return { text: 'validation_failed: query has no word to look for', isError: true, code: 'validation_failed' };
      if (parsed.alternatives.flat().length + parsed.excluded.length > QUERY_MAX_TERMS) {
        return {
          text: `validation_failed: query may hold at most ${QUERY_MAX_TERMS} words and phrases`,
          isError: true,
          code: 'validation_failed',
        };
      }
      const page = await searchMemory(store, agent, {
        query: args.query,
        parsed,
        limit: args.limit,
        ...(args.contextKey !== undefined ? { contextKeys: [args.contextKey] } : {}),
      });
      const hits = page.hits.map(({ contextKey, id, role, createdAt, message }) => ({ contextKey, id, role, createdAt, message }));
      return { text: fitResult(() => ({}), 'hits', hits), isError: false };
    } catch (err) {
      return failure(err);
    }
  };
  const read = async (raw: Record<string, unknown>): Promise<ToolOutcome> => {
    try {
      const args = ReadArgs.parse(raw);
      const page = await readNewest(store, agent, args.contextKey, { beforeId: args.beforeId, limit: args.limit });
      return {
        // A cut page reads on after its last message shown (one cut at the end cannot be read whole anyway).
        text: fitResult(
          (kept, truncated) => ({
            contextKey: args.contextKey,
            nextBeforeId: truncated ? (kept.at(-1)?.id ?? args.beforeId ?? null) : page.nextBeforeId,
          }),
          'messages',
          page.messages,
        ),
        isError: false,
      };
    } catch (err) {
      return failure(err);
    }
  };
  const tools: SourcedTool[] = [
    {
      name: MEMORY_SEARCH,
      description: "Search the agent's memory (all contexts), best first",
      inputSchema: SEARCH_SCHEMA,
      connectionId: null,
      call: (args) => search(args),
    },
    {
      name: MEMORY_READ,
      description: "A context's messages, newest first; beforeId: nextBeforeId to page back",
      inputSchema: READ_SCHEMA,
      connectionId: null,
      call: (args) => read(args),
    },
  ];
  return { reserved: [MEMORY_SEARCH, MEMORY_READ], tools: () => (offered ? tools : []) };
}
