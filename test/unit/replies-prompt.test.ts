import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors';
import { MAX_PROMPT_BYTES, renderTemplate } from '../../src/replies/template';
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

  it('caps the rendered prompt at 256 KiB of UTF-8: at the cap it renders, a byte over is 400 prompt_too_large', () => {
    expect(MAX_PROMPT_BYTES).toBe(262_144);
    const at = renderTemplate('ab{{v}}', { v: 'x'.repeat(MAX_PROMPT_BYTES - 2) });
    expect(at).toHaveLength(MAX_PROMPT_BYTES);
    const err = caught(() => renderTemplate('ab{{v}}', { v: 'x'.repeat(MAX_PROMPT_BYTES - 1) }));
    expect(err.status).toBe(400);
    expect(err.code).toBe('prompt_too_large');
    expect(err.details).toEqual({ bytes: MAX_PROMPT_BYTES + 1, maxBytes: MAX_PROMPT_BYTES });
  });

  it('counts UTF-8 bytes of the text and of every value, not UTF-16 units', () => {
    expect(renderTemplate('é{{v}}', { v: '😀' }, 6)).toBe('é😀'); // 2 + 4 bytes
    expect(caught(() => renderTemplate('é{{v}}', { v: '😀' }, 5)).details).toEqual({ bytes: 6, maxBytes: 5 });
    expect(caught(() => renderTemplate('{{ v }}{{v}}{{v}}', { v: 'ab' }, 5)).details).toEqual({ bytes: 6, maxBytes: 5 });
  });

  it('refuses 13,000 placeholders of a 64 KiB variable by counting, without building the string', () => {
    const template = '{{a}}'.repeat(13_000);
    const err = caught(() => renderTemplate(template, { a: 'x'.repeat(65_536) }));
    expect(err.code).toBe('prompt_too_large');
    expect(err.details).toEqual({ bytes: 13_000 * 65_536, maxBytes: MAX_PROMPT_BYTES });
  });

  it('names missing variables before it weighs the size', () => {
    const err = caught(() => renderTemplate(`{{a}}${'{{big}}'.repeat(100)}{{b}}`, { big: 'x'.repeat(65_536) }));
    expect(err.code).toBe('prompt_variable_missing');
    expect(err.details).toEqual({ missing: ['a', 'b'] });
  });
});

function caught(render: () => unknown): AppError {
  try {
    render();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an AppError');
}
