import { z } from '@hono/zod-openapi';
import { KEY_PROBLEM_TEXT, keyProblem, MESSAGE_MAX_BYTES, ROLES } from './key-rules';

export { KEY_PATTERN, KEY_PROBLEM_TEXT, keyProblem, MESSAGE_MAX_BYTES, RESERVED_PREFIX, ROLES, type KeyProblem } from './key-rules';

/** A key to create: 2..255 of `A-Z a-z 0-9 . _ - : / @`, not under the reserved prefix. */
export const NewKeySchema = z
  .string()
  .superRefine((key, ctx) => {
    const problem = keyProblem(key);
    if (problem) ctx.addIssue({ code: 'custom', message: KEY_PROBLEM_TEXT[problem] });
  })
  .openapi({ example: 'customer:42/notes', description: '2..255 characters of A-Z a-z 0-9 . _ - : / @; not starting with conversation-context-discovery/' });

/** A key in a path: at least 2 characters (it must exist, so its format is checked by lookup). */
export const KeyParamSchema = z
  .string()
  .min(2, 'contextKey must be at least 2 characters')
  .max(255, 'contextKey must be at most 255 characters')
  .openapi({ param: { name: 'contextKey', in: 'path' }, example: 'customer:42/notes', description: 'An existing context key, percent-encoded (a `/` in the key is `%2F`)' });

function utf8Length(text: string): number {
  return new TextEncoder().encode(text).byteLength;
}

/** Message text: 2 characters .. 256 KiB of UTF-8; no NUL (Postgres text cannot hold it), no lone surrogates. */
export const MessageTextSchema = z
  .string()
  .min(2, 'message must be at least 2 characters')
  .superRefine((text, ctx) => {
    if (utf8Length(text) > MESSAGE_MAX_BYTES) ctx.addIssue({ code: 'custom', message: `message must be at most ${MESSAGE_MAX_BYTES} bytes of UTF-8` });
    if (text.includes('\u0000')) ctx.addIssue({ code: 'custom', message: 'message must not contain NUL characters' });
    if (!text.isWellFormed()) ctx.addIssue({ code: 'custom', message: 'message must be well-formed Unicode (no lone surrogates)' });
  })
  .openapi({ example: 'The customer prefers email over phone.' });

export const RoleSchema = z.enum(ROLES).openapi({ description: 'user: as if a human said it; assistant: the agent\'s reply or a note; system: an instruction' });

export const NewMessageSchema = z
  .object({ message: MessageTextSchema, role: RoleSchema })
  .openapi('NewContextMessage');
