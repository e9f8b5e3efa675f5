import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors';
import { renderTemplate } from '../../src/replies/template';
import { countTokens, MESSAGE_OVERHEAD_TOKENS, messageTokens, trimToBudget } from '../../src/replies/tokens';

describe('countTokens', () => {
  it('counts ceil(UTF-8 bytes / 3)', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('abc')).toBe(1);
    expect(countTokens('abcd')).toBe(2);
    expect(countTokens('é')).toBe(1); // 2 bytes
    expect(countTokens('😀😀')).toBe(3); // 8 bytes
  });

  it('adds the per-message overhead', () => {
    expect(messageTokens('abc')).toBe(1 + MESSAGE_OVERHEAD_TOKENS);
  });
});

describe('trimToBudget', () => {
  const msgs = (n: number, bytes: number) => Array.from({ length: n }, (_, i) => ({ id: i, message: 'x'.repeat(bytes) }));

  it('keeps the newest messages that fit, oldest first', () => {
    // each: 30 bytes = 10 + 8 = 18 tokens
    const { kept, dropped } = trimToBudget(msgs(5, 30), 40);
    expect(kept.map((m) => m.id)).toEqual([3, 4]);
    expect(dropped).toBe(3);
  });

  it('keeps everything when it fits', () => {
    expect(trimToBudget(msgs(3, 30), 1000).kept).toHaveLength(3);
  });

  it('always keeps the newest message, even over the budget or with none', () => {
    expect(trimToBudget(msgs(3, 3000), 10).kept.map((m) => m.id)).toEqual([2]);
    expect(trimToBudget(msgs(2, 30), -5).kept.map((m) => m.id)).toEqual([1]);
    expect(trimToBudget([], 100).kept).toEqual([]);
  });
});

describe('renderTemplate', () => {
  it('fills {{name}} placeholders, spaces allowed, values not re-expanded', () => {
    expect(renderTemplate('Hi {{ who }}, {{what}}!', { who: 'Ada', what: '{{who}}' })).toBe('Hi Ada, {{who}}!');
  });

  it('leaves text without placeholders as it is', () => {
    expect(renderTemplate('plain { text }', {})).toBe('plain { text }');
  });

  it('names every missing variable in a 400 prompt_variable_missing', () => {
    try {
      renderTemplate('{{a}} {{b}} {{a}} {{c}}', { b: 'x' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).status).toBe(400);
      expect((err as AppError).code).toBe('prompt_variable_missing');
      expect((err as AppError).details).toEqual({ missing: ['a', 'c'] });
    }
  });

  it('does not take inherited properties for variables', () => {
    expect(() => renderTemplate('{{constructor}}', {})).toThrow(AppError);
  });
});
