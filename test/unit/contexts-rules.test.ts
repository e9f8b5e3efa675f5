import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { likeSubstring } from '../../src/contexts/contexts.service';
import { keyProblem, RESERVED_PREFIX } from '../../src/contexts/rules';
import { MessageTextSchema, NewKeySchema } from '../../src/contexts/schemas';

/** The key rules of docs/memory.md, written out again: 2..255 of `A-Z a-z 0-9 . _ - : / @`, not `..`, not under the reserved prefix. */
const ALLOWED = new Set('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-:/@');
function referenceProblem(key: string): string | null {
  if (key.length < 2) return 'too_short';
  if (key.length > 255) return 'too_long';
  for (let i = 0; i < key.length; i++) if (!ALLOWED.has(key[i]!)) return 'bad_characters';
  if (key === '..') return 'dot_segment';
  if (key.slice(0, RESERVED_PREFIX.length) === 'conversation-context-discovery/') return 'reserved';
  return null;
}

const allowedChars = ['a', 'z', 'A', 'Z', '0', '9', '.', '_', '-', ':', '/', '@'];
const otherChars = [
  ' ',
  '#',
  '%',
  '\\',
  '"',
  "'",
  ';',
  '\u00e9',
  '\u0000',
  '\n',
  '\t',
  '\u{1F600}',
  '\ud800',
  '\u00a0',
  '*',
  '?',
  '[',
  ']',
  '^',
  '$',
];

const keyCandidates = fc.oneof(
  fc.string({ unit: fc.constantFrom(...allowedChars, ...otherChars), minLength: 0, maxLength: 300 }),
  fc.string({ unit: fc.constantFrom(...allowedChars), minLength: 0, maxLength: 300 }),
  fc.string({ unit: fc.constantFrom(...allowedChars), minLength: 250, maxLength: 260 }),
  fc.string({ unit: fc.constantFrom(...allowedChars, ...otherChars), minLength: 0, maxLength: 10 }).map((s) => RESERVED_PREFIX + s),
  fc.string({ unit: fc.constantFrom(...allowedChars), minLength: 0, maxLength: 4 }).map((s) => `conversation-context-discovery${s}`),
  fc.string({ unit: fc.constantFrom('.', '/'), minLength: 0, maxLength: 4 }),
);

describe('context key rules', () => {
  it('keyProblem agrees with the reference predicate on arbitrary strings', () => {
    fc.assert(
      fc.property(keyCandidates, (key) => {
        expect(keyProblem(key)).toBe(referenceProblem(key));
      }),
      { numRuns: 2_000 },
    );
  });

  it('NewKeySchema accepts exactly the keys without a problem', () => {
    fc.assert(
      fc.property(keyCandidates, (key) => {
        expect(NewKeySchema.safeParse(key).success).toBe(referenceProblem(key) === null);
      }),
      { numRuns: 2_000 },
    );
  });

  it.each([
    ['ab', null],
    ['k'.repeat(255), null],
    ['a.b_c-d:e/f@g', null],
    ['conversation-context-discovery', null],
    ['conversation-context-discovery0', null],
    [RESERVED_PREFIX, 'reserved'],
    [`${RESERVED_PREFIX}x`, 'reserved'],
    ['a', 'too_short'],
    ['.', 'too_short'],
    ['..', 'dot_segment'],
    ['...', null],
    ['../x', null],
    ['x/..', null],
    ['k'.repeat(256), 'too_long'],
    ['ab\n', 'bad_characters'],
    ['\u{1F600}', 'bad_characters'],
  ])('keyProblem(%j) is %j', (key, expected) => {
    expect(keyProblem(key)).toBe(expected);
  });
});

describe('message text rules', () => {
  it.each([
    ['2 characters', 'ok', true],
    ['1 character', 'x', false],
    ['exactly 256 KiB of ASCII', 'a'.repeat(256 * 1024), true],
    ['256 KiB + 1 byte', 'a'.repeat(256 * 1024 + 1), false],
    ['256 KiB of 2-byte characters', '\u00e9'.repeat(128 * 1024), true],
    ['a NUL', 'a\u0000b', false],
    ['a lone high surrogate', 'a\ud800b', false],
    ['a lone low surrogate', 'ab\udc00', false],
    ['an emoji (a proper pair)', 'a\u{1F600}', true],
  ])('%s: valid is %s', (_, text, valid) => {
    expect(MessageTextSchema.safeParse(text).success).toBe(valid);
  });
});

/** A LIKE pattern as tokens: literal characters, `%` (any run) and `_` (any one), with `\` escaping. */
type Token = { literal: string } | { wildcard: '%' | '_' };
function tokenize(pattern: string): Token[] {
  const tokens: Token[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      if (i + 1 >= pattern.length) throw new Error(`dangling escape in ${JSON.stringify(pattern)}`);
      tokens.push({ literal: pattern[++i]! });
    } else if (c === '%' || c === '_') tokens.push({ wildcard: c });
    else tokens.push({ literal: c });
  }
  return tokens;
}

/** ILIKE semantics over the tokens (ASCII case folding), by dynamic programming. */
function ilike(text: string, tokens: Token[]): boolean {
  const t = text.toLowerCase();
  let states = new Set([0]);
  for (const token of tokens) {
    const next = new Set<number>();
    for (const s of states) {
      if ('wildcard' in token && token.wildcard === '%') for (let j = s; j <= t.length; j++) next.add(j);
      else if ('wildcard' in token) {
        if (s < t.length) next.add(s + 1);
      } else if (s < t.length && t[s] === token.literal.toLowerCase()) next.add(s + 1);
    }
    states = next;
  }
  return states.has(t.length);
}

describe('likeSubstring', () => {
  const text = fc.string({ unit: fc.constantFrom('a', 'B', '%', '_', '\\', '.', 'x', '/'), maxLength: 12 });

  it('leaves unescaped wildcards only at the two ends, and the literal text between is the search', () => {
    fc.assert(
      fc.property(text, (search) => {
        const tokens = tokenize(likeSubstring(search));
        expect(tokens[0]).toEqual({ wildcard: '%' });
        expect(tokens[tokens.length - 1]).toEqual({ wildcard: '%' });
        const middle = tokens.slice(1, -1);
        expect(middle.every((t) => 'literal' in t)).toBe(true);
        expect(middle.map((t) => ('literal' in t ? t.literal : '')).join('')).toBe(search);
      }),
      { numRuns: 1_000 },
    );
  });

  it('matches exactly the texts that contain the search, case-insensitively', () => {
    fc.assert(
      fc.property(text, text, (search, key) => {
        expect(ilike(key, tokenize(likeSubstring(search)))).toBe(key.toLowerCase().includes(search.toLowerCase()));
      }),
      { numRuns: 2_000 },
    );
  });

  it.each([
    ['%', '%\\%%'],
    ['_', '%\\_%'],
    ['\\', '%\\\\%'],
    ['a_b%c', '%a\\_b\\%c%'],
  ])('escapes %j as %j', (search, pattern) => {
    expect(likeSubstring(search)).toBe(pattern);
  });
});
