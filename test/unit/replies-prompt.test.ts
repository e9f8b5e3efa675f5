import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors';
import { renderTemplate } from '../../src/replies/template';
import { countTokens, MESSAGE_OVERHEAD_TOKENS, messageTokens } from '../../src/replies/tokens';

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
