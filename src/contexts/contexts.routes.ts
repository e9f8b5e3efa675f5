import { createRoute, z } from '@hono/zod-openapi';
import { AGENT_PATH, agentRoute } from '../http/agent-route';
import { AgentParamsSchema } from '../identity/identity';
import { errorResponse } from '../errors';
import { jsonBody, jsonResponse, PageQuerySchema } from '../http/openapi';
import { headerRef } from '../http/openapi-responses';
import {
  KeyListQuerySchema,
  KeyPageSchema,
  KeyParamSchema,
  MessageTextSchema,
  NewKeySchema,
  NewMessageSchema,
  RoleSchema,
} from './schemas';

export const ContextParamsSchema = AgentParamsSchema.extend({ contextKey: KeyParamSchema });

/** The messages' query: a page (`cursor`, `limit`) in stored order or newest first (`order`). */
const MessagesQuerySchema = PageQuerySchema.extend({
  order: z
    .enum(['asc', 'desc'])
    .optional()
    .default('asc')
    .openapi({
      param: { name: 'order', in: 'query' },
      default: 'asc',
      description:
        '`asc`: stored order, oldest first (the default); `desc`: newest first. A cursor reads on in the order it was issued for.',
    }),
});

// Canonical case, so generated clients (openapi-fetch) type the header as sent; the validator
// matches header names case-insensitively (@hono/zod-validator maps lower-case names to these keys).
export const IdempotencyHeadersSchema = z.object({
  'Idempotency-Key': z
    .string()
    .regex(/^[\x21-\x7E]{1,255}$/, 'Idempotency-Key must be 1..255 visible ASCII characters')
    .optional()
    .openapi({
      param: { name: 'Idempotency-Key', in: 'header' },
      example: 'hydrate-2026-11-22-line-1200',
      description:
        'Makes retries safe: the same key with the same request returns the first result and stores nothing new (remembered at least 24 h); the same key with another request is 400 `idempotency_key_reused`.',
    }),
});

export const StoredMessageSchema = z
  .object({
    id: z.number().int().openapi({ example: 1042, description: 'Increasing within a context, in commit order' }),
    role: RoleSchema,
    message: z.string(),
    createdAt: z.string().openapi({ example: '2026-11-22T07:30:00.000Z' }),
  })
  .openapi('ContextMessage');

export const listContextKeys = createRoute({
  method: 'get',
  path: `${AGENT_PATH}/contexts/keys`,
  operationId: 'listContextKeys',
  tags: ['Contexts'],
  summary: "List the agent's context keys",
  description:
    'Keys in byte order, paged by `page` number or by keyset cursor: pass `nextAfter` as `after` to read ' +
    'on (every page then costs what page 1 costs, and keys created meanwhile behind the cursor do not shift ' +
    "later pages). With `after`, the answer's `page` is 1: the first page after the cursor. `totalElements` " +
    'counts every key matching `search`, wherever the cursor stands. Keys under `conversation-context-discovery/` ' +
    'are internal and never listed. An agent that has never written has no keys.',
  security: agentRoute.security,
  request: { params: agentRoute.params, query: KeyListQuerySchema },
  responses: {
    200: jsonResponse('A page of keys', KeyPageSchema),
    ...agentRoute.errors,
    400: errorResponse(
      '`validation_failed`: bad collection address or token id, a query parameter out of its rules (`page`, `sortBy`, `sortDirection`, `search` over 255, `after` not a valid key), or `after` with a `page` other than 1',
    ),
  },
});

export const createContext = createRoute({
  method: 'post',
  path: `${AGENT_PATH}/context`,
  operationId: 'createContext',
  tags: ['Contexts'],
  summary: 'Create a context key',
  description:
    'Creates the key; 200 with an empty body. Safe to repeat: a duplicate is 400 `context_exists` with `agent context with key <key> already exists` and changes nothing (treat it as already provisioned). Only agents of `internal` or `expert` collections hold contexts.',
  security: agentRoute.security,
  request: { params: agentRoute.params, body: jsonBody(z.object({ key: NewKeySchema }).openapi('NewContext')) },
  responses: {
    200: { description: 'Created (empty body)' },
    ...agentRoute.errors,
    400: errorResponse(
      '`validation_failed` (key format, `.` or `..`, reserved prefix, bad path), `context_exists` (duplicate), `agent_kind_not_supported` (collection kind is not internal or expert)',
    ),
    500: errorResponse('`internal_error`: storage failure; nothing is half-written'),
  },
});

export const createContexts = createRoute({
  method: 'post',
  path: `${AGENT_PATH}/contexts`,
  operationId: 'createContexts',
  tags: ['Contexts'],
  summary: 'Create up to 100 context keys in one call',
  description:
    'Batch creation for pipelines: a result per key, in request order: `created`, `exists` (already there, or repeated in this request) or `invalid` (with the reason). Invalid keys do not stop the valid ones.',
  security: agentRoute.security,
  request: {
    params: agentRoute.params,
    body: jsonBody(z.object({ keys: z.array(z.string()).min(1).max(100) }).openapi('NewContexts')),
  },
  responses: {
    200: jsonResponse(
      'A result per key',
      z
        .object({
          results: z.array(
            z.object({
              key: z.string(),
              status: z.enum(['created', 'exists', 'invalid']),
              reason: z.enum(['too_short', 'too_long', 'bad_characters', 'dot_segment', 'reserved']).optional(),
              message: z.string().optional(),
            }),
          ),
        })
        .openapi('ContextBatchResult'),
    ),
    ...agentRoute.errors,
    400: errorResponse('`validation_failed` (not 1..100 keys), `agent_kind_not_supported`'),
  },
});

export const appendMessage = createRoute({
  method: 'post',
  path: `${AGENT_PATH}/context/{contextKey}/message`,
  operationId: 'appendMessage',
  tags: ['Contexts'],
  summary: 'Append a message to a context (memory hydration)',
  description:
    "Appends one message to an existing context and bumps the context's updated time. Messages keep the order they are stored in. Send `Idempotency-Key` to make retries safe.",
  security: agentRoute.security,
  request: { params: ContextParamsSchema, headers: IdempotencyHeadersSchema, body: jsonBody(NewMessageSchema) },
  responses: {
    200: {
      ...jsonResponse('The stored message', StoredMessageSchema),
      headers: { 'Idempotent-Replayed': headerRef('Idempotent-Replayed') },
    },
    ...agentRoute.errors,
    400: errorResponse(
      '`validation_failed` (role not user/system/assistant, message shorter than 2 characters or over 256 KiB, contextKey shorter than 2), `idempotency_key_reused`',
    ),
    404: errorResponse('`context_not_found`: Context not found (or `agent_not_found`)'),
  },
});

export const appendMessages = createRoute({
  method: 'post',
  path: `${AGENT_PATH}/context/{contextKey}/messages`,
  operationId: 'appendMessages',
  tags: ['Contexts'],
  summary: 'Append up to 100 messages atomically, in order',
  description: 'All messages are stored, in the order given, or none. Send `Idempotency-Key` so a pipeline retry stores nothing twice.',
  security: agentRoute.security,
  request: {
    params: ContextParamsSchema,
    headers: IdempotencyHeadersSchema,
    body: jsonBody(
      z
        .object({
          messages: z
            .array(z.object({ message: MessageTextSchema, role: RoleSchema }))
            .min(1)
            .max(100),
        })
        .openapi('NewContextMessages'),
    ),
  },
  responses: {
    200: {
      ...jsonResponse(
        'The stored messages, in order',
        z.object({ messages: z.array(StoredMessageSchema) }).openapi('StoredContextMessages'),
      ),
      headers: { 'Idempotent-Replayed': headerRef('Idempotent-Replayed') },
    },
    ...agentRoute.errors,
    400: errorResponse(
      '`validation_failed` (not 1..100 messages, or one invalid: the issue path names its index), `idempotency_key_reused`',
    ),
    404: errorResponse('`context_not_found`: Context not found'),
  },
});

export const readMessages = createRoute({
  method: 'get',
  path: `${AGENT_PATH}/context/{contextKey}/messages`,
  operationId: 'readMessages',
  tags: ['Contexts'],
  summary: "Read a context's messages back, in order",
  description:
    'So a pipeline can verify what it hydrated: messages in stored order, `limit` at a time; pass `nextCursor` as `cursor` to read on while `hasMore`. `order=desc` reads newest first (the dashboard); a cursor of one order is refused in the other (400 `validation_failed`).',
  security: agentRoute.security,
  request: {
    params: ContextParamsSchema,
    query: MessagesQuerySchema,
  },
  responses: {
    200: jsonResponse(
      'A page of messages',
      z
        .object({
          messages: z.array(StoredMessageSchema),
          nextCursor: z.string().nullable(),
          hasMore: z.boolean(),
          hasSummary: z.boolean().openapi({
            description:
              'The context has a summary of messages replies left out: `GET …/context/{contextKey}/summary` answers 200, else 404 `summary_not_found`',
          }),
        })
        .openapi('ContextMessagePage'),
    ),
    ...agentRoute.errors,
    404: errorResponse('`context_not_found`: Context not found'),
  },
});
