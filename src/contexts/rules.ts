/**
 * The rules for context keys and messages, once: the route schemas (`./schemas`) and the CLI's
 * `hydrate` parser both check with these functions and print these texts. Plain TypeScript, no
 * zod, so the CLI can use them without the server's validation stack.
 */

/** Keys under this prefix are internal scratch entries: never listed, never created publicly. */
export const RESERVED_PREFIX = 'conversation-context-discovery/';

export const KEY_MIN_CHARS = 2;
export const KEY_MAX_CHARS = 255;
export const KEY_PATTERN = /^[A-Za-z0-9._\-:/@]{2,255}$/;
export const MESSAGE_MIN_CHARS = 2;
export const MESSAGE_MAX_BYTES = 256 * 1024;
export const ROLES = ['user', 'system', 'assistant'] as const;

export type KeyProblem = 'too_short' | 'too_long' | 'bad_characters' | 'dot_segment' | 'reserved';

/**
 * Keys a URL path cannot carry: a path segment `.` or `..` (percent-encoded too) is removed when
 * the URL is parsed, so `…/context/..` never reaches the context. (`.` is too short anyway.)
 */
const DOT_SEGMENTS: ReadonlySet<string> = new Set(['.', '..']);

/** Why a context key is not acceptable for creation, or null when it is (docs/memory.md). */
export function keyProblem(key: string): KeyProblem | null {
  if (key.length < KEY_MIN_CHARS) return 'too_short';
  if (key.length > KEY_MAX_CHARS) return 'too_long';
  if (!KEY_PATTERN.test(key)) return 'bad_characters';
  if (DOT_SEGMENTS.has(key)) return 'dot_segment';
  if (key.startsWith(RESERVED_PREFIX)) return 'reserved';
  return null;
}

export const KEY_PROBLEM_TEXT: Record<KeyProblem, string> = {
  too_short: `must be at least ${KEY_MIN_CHARS} characters`,
  too_long: `must be at most ${KEY_MAX_CHARS} characters`,
  bad_characters: 'may only contain A-Z a-z 0-9 . _ - : / @',
  dot_segment: 'must not be . or .. (a URL path drops those segments)',
  reserved: `must not start with the reserved prefix ${RESERVED_PREFIX}`,
};

export type MessageProblem = 'too_short' | 'too_long' | 'nul_character' | 'malformed_unicode';

export const MESSAGE_PROBLEM_TEXT: Record<MessageProblem, string> = {
  too_short: `must be at least ${MESSAGE_MIN_CHARS} characters`,
  too_long: `must be at most ${MESSAGE_MAX_BYTES} bytes of UTF-8`,
  nul_character: 'must not contain NUL characters',
  malformed_unicode: 'must be well-formed Unicode (no lone surrogates)',
};

const utf8 = new TextEncoder();

/**
 * Why a message text cannot be stored, in a fixed order (empty when it can): 2 characters ..
 * 256 KiB of UTF-8; no NUL (Postgres text cannot hold it), no lone surrogates.
 */
export function messageProblems(text: string): MessageProblem[] {
  const problems: MessageProblem[] = [];
  if (text.length < MESSAGE_MIN_CHARS) problems.push('too_short');
  else if (utf8.encode(text).byteLength > MESSAGE_MAX_BYTES) problems.push('too_long');
  if (text.includes('\u0000')) problems.push('nul_character');
  if (!text.isWellFormed()) problems.push('malformed_unicode');
  return problems;
}
