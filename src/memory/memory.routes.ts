import { createRoute, z } from '@hono/zod-openapi';
import { AGENT_PATH, agentRoute } from '../http/agent-route';
import { RoleSchema } from '../contexts/schemas';
import { KEY_MAX_CHARS, KEY_MIN_CHARS } from '../contexts/rules';
import { errorResponse } from '../errors';
import { jsonBody, jsonResponse } from '../http/openapi';
import { parseQuery, QUERY_MAX_CHARS, QUERY_MAX_TERMS } from './query';
import { SEARCH_STATEMENT_TIMEOUT_MS, SEARCH_TAIL_BYTES, SEARCH_TAIL_MESSAGES } from './search.service';

const Iso8601Schema = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time, e.g. 2026-11-22T07:30:00Z' });

export const SearchRequestSchema = z
  .object({
    query: z
      .string()
      .max(QUERY_MAX_CHARS, `query must be at most ${QUERY_MAX_CHARS} characters`)
      .superRefine((query, ctx) => {
        const parsed = parseQuery(query);
        if (!parsed) {
          ctx.addIssue({ code: 'custom', message: 'query has no word to look for (an empty query, or only -exclusions)' });
        } else if (parsed.alternatives.flat().length + parsed.excluded.length > QUERY_MAX_TERMS) {
          ctx.addIssue({ code: 'custom', message: `query may hold at most ${QUERY_MAX_TERMS} words and phrases` });
        }
      })
      .openapi({
        example: 'invoice "late fee" -refunded',
        description:
          'Web-search syntax: words (English stemming: `refunds` finds `refunded`), "quoted phrases", `or` ' +
          'between alternatives, `-word` or `-"phrase"` to exclude (from every alternative). A term full text ' +
          'matches in no message of the agent is looked for another way: with a digit or punctuation in it (part ' +
          'of an identifier such as `2024-0042`) as written, case-insensitive, anywhere in the text; a word (a ' +
          `misspelling such as \`Postgress\`) by trigram similarity (pg_trgm). At most ${QUERY_MAX_CHARS} characters ` +
          `and ${QUERY_MAX_TERMS} words and phrases.`,
      }),
    contextKeys: z
      .array(z.string().min(KEY_MIN_CHARS).max(KEY_MAX_CHARS))
      .min(1)
      .max(100)
      .optional()
      .openapi({
        example: ['customer:42/notes'],
        description:
          'Only these contexts (1..100 keys). A key that does not exist is no hit, not 404. Internal contexts are searched only when named here.',
      }),
    contextPrefix: z.string().min(1).max(KEY_MAX_CHARS).optional().openapi({
      example: 'customer:',
      description: 'Only contexts whose key starts with this, taken literally (`%`, `_`, `\\` are plain characters)',
    }),
    roles: z
      .array(RoleSchema)
      .min(1)
      .max(3)
      .optional()
      .openapi({ example: ['user', 'assistant'] }),
    after: Iso8601Schema.optional().openapi({
      example: '2026-11-01T00:00:00Z',
      description: 'Only messages stored after this time (exclusive)',
    }),
    before: Iso8601Schema.optional().openapi({
      example: '2026-12-01T00:00:00Z',
      description: 'Only messages stored before this time (exclusive)',
    }),
    limit: z
      .number()
      .int()
      .min(1)
      .max(100)
      .optional()
      .default(20)
      .openapi({ example: 20, description: 'Hits per page, 1..100 (default 20)' }),
    cursor: z
      .string()
      .max(200)
      .optional()
      .openapi({ description: '`nextCursor` of the previous page; valid only with the same query and filters' }),
  })
  .openapi('MemorySearch');

export const SearchHitSchema = z
  .object({
    contextKey: z.string().openapi({ example: 'customer:42/notes' }),
    id: z.number().int().openapi({ example: 1042 }),
    role: RoleSchema,
    message: z.string().openapi({ example: 'Invoice INV-2024-0042 is overdue; the customer asked for a late fee waiver.' }),
    createdAt: z.string().openapi({ example: '2026-11-22T07:30:00.000Z' }),
    score: z.number().openapi({ example: 0.1216, description: 'Relevance, higher is better; comparable within one search only' }),
  })
  .openapi('MemorySearchHit');

export const searchMemory = createRoute({
  method: 'post',
  path: `${AGENT_PATH}/memory/search`,
  operationId: 'searchMemory',
  tags: ['Memory'],
  summary: "Search the agent's memory across its contexts",
  description:
    "Ranks the agent's messages in every context (or the ones the filters name) by relevance: Postgres full " +
    'text (English stemming plus exact words in any language), with pg_trgm for terms full text cannot match ' +
    '(identifiers, misspellings). Hits in descending `score`, ties newest first; a query matching more than ' +
    '2,000 messages is ranked over its newest 2,000 matches (its pages reach those). Pass `nextCursor` as ' +
    '`cursor`, with the same query and filters, to read on. Internal contexts (`conversation-context-discovery/`) ' +
    'are searched only when named in `contextKeys`. An agent that has never written has no hits.',
  security: agentRoute.security,
  request: { params: agentRoute.params, body: jsonBody(SearchRequestSchema) },
  responses: {
    200: jsonResponse(
      'A page of hits, best first',
      z
        .object({
          hits: z.array(SearchHitSchema),
          nextCursor: z.string().nullable().openapi({ description: 'Send as `cursor` for the next page; null at the end' }),
        })
        .openapi('MemorySearchPage'),
    ),
    ...agentRoute.errors,
    400: errorResponse(
      '`validation_failed`: bad collection address or token id; an empty query or one of only exclusions, a ' +
        'query over 500 characters or 16 words and phrases, `contextKeys` not 1..100 keys, a role not user/system/assistant, ' +
        '`after`/`before` not ISO 8601, `limit` not 1..100, or a `cursor` that is malformed or was issued for ' +
        'another query or other filters',
    ),
    503: errorResponse(
      "`search_busy`: more of the agent's messages wait for the search index than one search reads (over " +
        `${SEARCH_TAIL_MESSAGES.toLocaleString('en')} messages or ${SEARCH_TAIL_BYTES / 1024} KiB of text, after a burst of appends), ` +
        `or the search ran past ${SEARCH_STATEMENT_TIMEOUT_MS / 1000} s; the indexer is catching up: retry after Retry-After ` +
        'seconds. Or `dependency_unavailable`: the chain RPC or the database did not answer',
    ),
  },
});
