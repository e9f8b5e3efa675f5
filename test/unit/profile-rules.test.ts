/** The profile's text and image rules (src/profile/rules.ts), as PUT …/profile applies them. */
import { describe, expect, it } from 'vitest';
import { isPlainText, isProfileImage } from '../../src/profile/rules';

describe('profile rules', () => {
  it('an image is a plain https URL or a small raster data URI', () => {
    for (const good of [
      'https://example.com/a.png',
      'https://[2001:db8::1]/a.png',
      'https://cdn.example/x?size=2#y',
      'data:image/webp;base64,UklGRg==',
    ]) {
      expect(isProfileImage(good), good).toBe(true);
    }
    for (const bad of [
      'http://example.com/a.png',
      'https://u:p@example.com/a.png',
      'https://user@example.com/a.png',
      'ipfs://bafy',
      'https://example.com/a b.png',
      'https://example.com/\u0007',
      'data:image/svg+xml;base64,PHN2Zy8+',
      'data:image/png,notbase64',
      'data:text/html;base64,PGgxPg==',
      `data:image/png;base64,${'A'.repeat(16_400)}`,
      `https://example.com/${'a'.repeat(2_030)}`,
      'not a url',
    ]) {
      expect(isProfileImage(bad), bad).toBe(false);
    }
  });

  it('text is well-formed and not blank; only a description has line breaks and tabs', () => {
    expect(isPlainText('Warranty desk', false)).toBe(true);
    expect(isPlainText('two\nlines', false)).toBe(false);
    expect(isPlainText('two\nlines\tand a tab', true)).toBe(true);
    expect(isPlainText('bell \u0007', true)).toBe(false);
    expect(isPlainText(' \n\t', true)).toBe(false);
    expect(isPlainText('lone \ud800 surrogate', true)).toBe(false);
  });

  it('refuses C1 controls, line and paragraph separators and bidi controls in a name and a description', () => {
    for (const c of [
      '\u0080',
      '\u0085',
      '\u009f',
      '\u2028',
      '\u2029',
      '\u202a',
      '\u202b',
      '\u202c',
      '\u202d',
      '\u202e',
      '\u2066',
      '\u2067',
      '\u2068',
      '\u2069',
    ]) {
      for (const multiline of [false, true])
        expect(isPlainText(`desk${c}pdf.exe`, multiline), `${c.codePointAt(0)?.toString(16)}`).toBe(false);
    }
    // Letters and marks of other scripts, and the marks LRM/RLM, stay.
    for (const ok of ['Café Ünïcode', 'مكتب الضمان', 'desk \u200e mark', '\u00a0no-break space'])
      expect(isPlainText(ok, false), ok).toBe(true);
  });
});
