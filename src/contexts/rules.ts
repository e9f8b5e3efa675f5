import { z } from '@hono/zod-openapi';

/** Keys under this prefix are internal scratch entries: never listed, never created publicly. */
export const RESERVED_PREFIX = 'conversation-context-discovery/';

export const KEY_PATTERN = /^[A-Za-z0-9._\-:/@]{2,255}$/;
export const MESSAGE_MAX_BYTES = 256 * 1024;
export const ROLES = ['user', 'system', 'assistant'] as const;

export type KeyProblem = 'too_short' | 'too_long' | 'bad_characters' | 'reserved';

/** Why a context key is not acceptable for creation, or null when it is (DESIGN §5). */
export function keyProblem(key: string): KeyProblem | null {
  if (key.length < 2) return 'too_short';
  if (key.length > 255) return 'too_long';
  if (!KEY_PATTERN.test(key)) return 'bad_characters';
  if (key.startsWith(RESERVED_PREFIX)) return 'reserved';
  return null;
}

export const KEY_PROBLEM_TEXT: Record<KeyProblem, string> = {
  too_short: 'must be at least 2 characters',
  too_long: 'must be at most 255 characters',
  bad_characters: 'may only contain A-Z a-z 0-9 . _ - : / @',
  reserved: `must not start with the reserved prefix ${RESERVED_PREFIX}`,
};

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
