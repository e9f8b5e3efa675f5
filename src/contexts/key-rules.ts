/**
 * The context key and message rules as plain values and functions, without zod: the CLI checks
 * its input with them before sending (it runs outside the worker and does not load zod). The
 * schemas built on them are in `./rules`.
 */

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
