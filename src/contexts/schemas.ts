/** The zod schemas of context keys and messages, and of the key list's query and page, built on the rules of `./rules`. */
import { z } from '@hono/zod-openapi';
import {
  KEY_MAX_CHARS,
  KEY_MIN_CHARS,
  KEY_PROBLEM_TEXT,
  keyProblem,
  MESSAGE_MIN_CHARS,
  MESSAGE_PROBLEM_TEXT,
  messageProblems,
  ROLES,
} from './rules';

/** A key to create: 2..255 of `A-Z a-z 0-9 . _ - : / @`, not `..`, not under the reserved prefix. */
export const NewKeySchema = z
  .string()
  .superRefine((key, ctx) => {
    const problem = keyProblem(key);
    if (problem) ctx.addIssue({ code: 'custom', message: KEY_PROBLEM_TEXT[problem] });
  })
  .openapi({
    example: 'customer:42/notes',
    description: '2..255 characters of A-Z a-z 0-9 . _ - : / @; not `..`; not starting with conversation-context-discovery/',
  });

/** A key in a path: at least 2 characters (it must exist, so its format is checked by lookup). */
export const KeyParamSchema = z
  .string()
  .min(KEY_MIN_CHARS, `contextKey ${KEY_PROBLEM_TEXT.too_short}`)
  .max(KEY_MAX_CHARS, `contextKey ${KEY_PROBLEM_TEXT.too_long}`)
  .openapi({
    param: { name: 'contextKey', in: 'path' },
    example: 'customer:42/notes',
    description: 'An existing context key, percent-encoded (a `/` in the key is `%2F`)',
  });

/** Message text: 2 characters .. 256 KiB of UTF-8; no NUL (Postgres text cannot hold it), no lone surrogates. */
export const MessageTextSchema = z
  .string()
  .min(MESSAGE_MIN_CHARS, `message ${MESSAGE_PROBLEM_TEXT.too_short}`)
  .superRefine((text, ctx) => {
    // The minimum is the `.min` above (so the OpenAPI document shows minLength).
    for (const problem of messageProblems(text)) {
      if (problem !== 'too_short') ctx.addIssue({ code: 'custom', message: `message ${MESSAGE_PROBLEM_TEXT[problem]}` });
    }
  })
  .openapi({ example: 'The customer prefers email over phone.' });

export const RoleSchema = z
  .enum(ROLES)
  .openapi({ description: "user: as if a human said it; assistant: the agent's reply or a note; system: an instruction" });

export const NewMessageSchema = z.object({ message: MessageTextSchema, role: RoleSchema }).openapi('NewContextMessage');

/**
 * A keyset cursor of the key list: any key that could be created (the rules of `NewKeySchema`), in
 * practice the `nextAfter` of the previous page. It need not exist.
 */
export const KeyCursorSchema = z
  .string()
  .min(KEY_MIN_CHARS, `after ${KEY_PROBLEM_TEXT.too_short}`)
  .max(KEY_MAX_CHARS, `after ${KEY_PROBLEM_TEXT.too_long}`)
  .superRefine((key, ctx) => {
    // Length is the `.min`/`.max` above (so the OpenAPI document shows it).
    const problem = keyProblem(key);
    if (problem === 'bad_characters' || problem === 'reserved')
      ctx.addIssue({ code: 'custom', message: `after ${KEY_PROBLEM_TEXT[problem]}` });
  });

const MAX_PAGE = 1_000_000_000;

/** Query of the key list: page numbers as the spec says, or the keyset cursor `after`. */
export const KeyListQuerySchema = z
  .object({
    page: z
      .string()
      .regex(/^\d+$/, 'page must be a whole number >= 1')
      .transform(Number)
      .refine((n) => n >= 1 && n <= MAX_PAGE, `page must be between 1 and ${MAX_PAGE}`)
      .optional()
      .default(1)
      .openapi({
        param: { name: 'page', in: 'query' },
        type: 'integer',
        minimum: 1,
        maximum: MAX_PAGE,
        default: 1,
        example: 1,
        description: '1-indexed page number (default 1). With `after`, leave it out (or send 1): any other page is 400.',
      }),
    elementsPerPage: z
      .string()
      .regex(/^-?\d{1,12}$/, 'elementsPerPage must be a whole number')
      .transform((v) => Math.min(100, Math.max(1, Number(v))))
      .optional()
      .default(10)
      .openapi({
        param: { name: 'elementsPerPage', in: 'query' },
        type: 'integer',
        minimum: 1,
        maximum: 100,
        default: 10,
        example: 10,
        description:
          'Page size, 1..100 (default 10). A whole number outside the range is clamped to it (0 reads as 1, 500 as 100); the answer says the size used.',
      }),
    search: z
      .string()
      .max(255, 'search must be at most 255 characters')
      .optional()
      .openapi({
        param: { name: 'search', in: 'query' },
        example: 'notes',
        description: 'Case-insensitive substring; % _ \\ are matched literally',
      }),
    sortBy: z
      .enum(['key'], { error: 'sortBy must be key' })
      .optional()
      .default('key')
      .openapi({ param: { name: 'sortBy', in: 'query' }, description: 'Only `key` is supported' }),
    sortDirection: z
      .enum(['asc', 'desc'], { error: 'sortDirection must be asc or desc' })
      .optional()
      .default('asc')
      .openapi({ param: { name: 'sortDirection', in: 'query' }, description: 'Byte order of the keys, `asc` (default) or `desc`' }),
    after: KeyCursorSchema.optional().openapi({
      param: { name: 'after', in: 'query' },
      example: 'customer:42/notes',
      description:
        "Keyset cursor: the keys that come after this one in `sortDirection` (asc: greater, desc: smaller), `search` still applied. Pass the previous answer's `nextAfter`; any valid key works and need not exist. Every page then costs what page 1 costs. Not with a `page` other than 1.",
    }),
  })
  .superRefine((query, ctx) => {
    // `page` defaults to 1, so a page other than 1 was sent: the two ways of paging would disagree.
    if (query.after !== undefined && query.page !== 1) {
      ctx.addIssue({
        code: 'custom',
        path: ['page'],
        message: 'page cannot be combined with after: leave page out (or send 1) and pass the previous nextAfter as after',
      });
    }
  });

/** One page of keys, with the cursor of the next. */
export const KeyPageSchema = z
  .object({
    page: z.number().int().openapi({ example: 1 }),
    elementsPerPage: z.number().int().openapi({ example: 10 }),
    totalElements: z.number().int().openapi({ example: 2, description: 'Number of keys matching the filter (internal keys excluded)' }),
    contextKeys: z.array(z.string()).openapi({ example: ['customer:42/notes', 'customer:42/preferences'] }),
    nextAfter: z.string().nullable().openapi({
      example: 'customer:42/preferences',
      description: 'The last key of this page when more keys follow in this order, else null: send it as `after` for the next page',
    }),
  })
  .openapi('ContextKeyPage');
