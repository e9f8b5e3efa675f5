import { describe, expect, it } from 'vitest';
import { storableJson, storableJsonText } from '../../src/encoding/storable-json';

describe('storableJsonText', () => {
  it('replaces NUL and lone surrogates in strings and keys, at any depth, with U+FFFD', () => {
    const value = { 'k\u0000': ['a\u0000b', { 'x\ud800': 'lone \udc00 low', ok: 'fine 😀' }], n: 1, t: true, z: null };
    expect(JSON.parse(storableJsonText(value))).toEqual({
      'k\uFFFD': ['a\uFFFDb', { 'x\uFFFD': 'lone \uFFFD low', ok: 'fine 😀' }],
      n: 1,
      t: true,
      z: null,
    });
  });

  it('writes what JSON.stringify writes when nothing needs replacing', () => {
    const value = { a: [1, 'two', { three: 3 }], b: 'é', c: new Date(0) };
    expect(storableJsonText(value)).toBe(JSON.stringify(value));
  });

  it('leaves no \\u0000 or lone surrogate escape in the text (what jsonb refuses)', () => {
    const text = storableJsonText({ '\u0000': '\u0000\ud800\udfff' });
    expect(text).not.toMatch(/\\u0000|\\ud[89a-f][0-9a-f]{2}/i);
  });
});

describe('storableJson', () => {
  it('is the value as it reads back once stored', () => {
    expect(storableJson({ args: { text: 'a\u0000\ud800' } })).toEqual({ args: { text: 'a\uFFFD\uFFFD' } });
  });
});
