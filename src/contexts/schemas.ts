/** The zod schemas of context keys and messages, built on the rules of `./rules`. */
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

/** A key to create: 2..255 of `A-Z a-z 0-9 . _ - : / @`, not under the reserved prefix. */
export const NewKeySchema = z
  .string()
  .superRefine((key, ctx) => {
    const problem = keyProblem(key);
    if (problem) ctx.addIssue({ code: 'custom', message: KEY_PROBLEM_TEXT[problem] });
  })
  .openapi({
    example: 'customer:42/notes',
    description: '2..255 characters of A-Z a-z 0-9 . _ - : / @; not starting with conversation-context-discovery/',
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
