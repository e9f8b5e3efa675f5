import { describe, expect, it } from 'vitest';
import { canonicalToolServerUrl, MAX_TOOL_SERVER_URL_LENGTH, type UrlProblem } from '../../src/tool-servers/url';

function rejects(input: string, reason: UrlProblem): void {
  const result = canonicalToolServerUrl(input);
  expect(result, JSON.stringify(input)).toMatchObject({ ok: false, reason });
  if (!result.ok) expect(result.message.length).toBeGreaterThan(0);
}

function canonical(input: string): string {
  const result = canonicalToolServerUrl(input);
  if (!result.ok) throw new Error(`${JSON.stringify(input)} rejected: ${result.reason}`);
  return result.url;
}

describe('canonicalToolServerUrl: accepted URLs and their canonical form', () => {
  it('keeps an ordinary https URL as it is', () => {
    expect(canonical('https://tools.example.com/mcp')).toBe('https://tools.example.com/mcp');
  });

  it('gives one spelling for case and the default port', () => {
    expect(canonical('https://Tools.Example.com:443/mcp')).toBe('https://tools.example.com/mcp');
    expect(canonical('HTTPS://TOOLS.EXAMPLE.COM/mcp')).toBe('https://tools.example.com/mcp');
    expect(canonical('https://Tools.Example.com:443/mcp')).toBe(canonical('https://tools.example.com/mcp'));
  });

  it('keeps a non-default port', () => {
    expect(canonical('https://tools.example.com:8443/mcp')).toBe('https://tools.example.com:8443/mcp');
  });

  it('keeps the path exactly: trailing slash and case are significant', () => {
    expect(canonical('https://tools.example.com/mcp/')).toBe('https://tools.example.com/mcp/');
    expect(canonical('https://tools.example.com/mcp/')).not.toBe(canonical('https://tools.example.com/mcp'));
    expect(canonical('https://tools.example.com/MCP')).toBe('https://tools.example.com/MCP');
    expect(canonical('https://tools.example.com')).toBe('https://tools.example.com/');
  });

  it('keeps the query', () => {
    expect(canonical('https://tools.example.com/mcp?tenant=a&x=1')).toBe('https://tools.example.com/mcp?tenant=a&x=1');
  });

  it('turns an IDN host into punycode', () => {
    expect(canonical('https://bücher.example/mcp')).toBe('https://xn--bcher-kva.example/mcp');
    expect(canonical('https://BÜCHER.example/mcp')).toBe('https://xn--bcher-kva.example/mcp');
    expect(canonical('https://xn--bcher-kva.example/mcp')).toBe('https://xn--bcher-kva.example/mcp');
  });

  it('accepts a hex-looking label that is not the last one', () => {
    expect(canonical('https://0x7f.example.com/mcp')).toBe('https://0x7f.example.com/mcp');
    expect(canonical('https://123.example.com/mcp')).toBe('https://123.example.com/mcp');
  });
});

describe('canonicalToolServerUrl: rejected URLs', () => {
  it('rejects http and other schemes', () => {
    rejects('http://tools.example.com/mcp', 'not_https');
    rejects('HTTP://tools.example.com/mcp', 'not_https');
    rejects('ftp://tools.example.com/mcp', 'not_https');
    rejects('ws://tools.example.com/mcp', 'not_https');
    rejects('javascript:alert(1)', 'not_https');
  });

  it('rejects what is not an absolute URL', () => {
    rejects('', 'empty');
    rejects('tools.example.com/mcp', 'invalid_url');
    rejects('/mcp', 'invalid_url');
    rejects('https:tools.example.com/mcp', 'invalid_url');
    rejects('https:/tools.example.com/mcp', 'invalid_url');
    rejects('https://tools.example.com\\@evil.example/mcp', 'invalid_url');
    rejects('https://exa mple.com/', 'whitespace');
    rejects('https://[::1/', 'invalid_url');
  });

  it('rejects userinfo, even empty', () => {
    rejects('https://user:pass@tools.example.com/mcp', 'userinfo');
    rejects('https://user@tools.example.com/mcp', 'userinfo');
    rejects('https://@tools.example.com/mcp', 'userinfo');
    rejects('https://:@tools.example.com/mcp', 'userinfo');
  });

  it('rejects a fragment, even empty', () => {
    rejects('https://tools.example.com/mcp#x', 'fragment');
    rejects('https://tools.example.com/mcp#', 'fragment');
  });

  it('rejects IPv4 literals in every spelling', () => {
    for (const host of [
      '127.0.0.1',
      '10.0.0.1',
      '169.254.169.254',
      '8.8.8.8',
      '2130706433', // decimal
      '0x7f000001', // hex
      '0x7f.1', // hex, shortened
      '017700000001', // octal
      '0177.0.0.1', // octal, dotted
      '127.1', // shortened
      '0', // zero
      '127.0.0.1.', // trailing dot
    ]) {
      rejects(`https://${host}/mcp`, 'ip_literal');
    }
    rejects('https://127.0.0.1:443/mcp', 'ip_literal');
  });

  it('rejects IPv6 literals, IPv4-mapped included', () => {
    for (const host of ['[::1]', '[::]', '[fe80::1]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[2001:db8::1]', '[::1]:8443']) {
      rejects(`https://${host}/mcp`, 'ip_literal');
    }
  });

  it('rejects localhost and internal names', () => {
    for (const host of [
      'localhost',
      'LOCALHOST',
      'localhost:8443',
      'api.localhost',
      'printer.local',
      'db.internal',
      'metadata.google.internal',
      'nas.lan',
      'router.home.arpa',
      'box.localdomain',
    ]) {
      rejects(`https://${host}/mcp`, 'local_host');
    }
  });

  it('rejects names the parser maps to localhost (percent-encoded, full-width)', () => {
    rejects('https://%6c%6f%63%61%6c%68%6f%73%74/mcp', 'local_host');
    rejects('https://ｌｏｃａｌｈｏｓｔ/mcp', 'local_host');
    rejects('https://api.ＬＯＣＡＬ/mcp', 'local_host');
  });

  it('rejects single-label hosts and a trailing dot', () => {
    rejects('https://intranet/mcp', 'single_label_host');
    rejects('https://metadata/mcp', 'local_host');
    rejects('https://tools.example.com./mcp', 'invalid_host');
  });

  it('rejects control characters anywhere in the raw input', () => {
    for (const ch of ['\u0000', '\u0001', '\r', '\n', '\u001b', '\u007f', '\u0085', '\u009b']) {
      for (const input of [
        `https://tools.example.com/mcp${ch}`,
        `https://tools.${ch}example.com/mcp`,
        `${ch}https://tools.example.com/mcp`,
      ]) {
        const result = canonicalToolServerUrl(input);
        expect(result.ok, JSON.stringify(input)).toBe(false);
        if (!result.ok) expect(['control_character', 'whitespace']).toContain(result.reason);
      }
    }
  });

  it('rejects whitespace anywhere, including leading and trailing (which URL would trim)', () => {
    rejects(' https://tools.example.com/mcp', 'whitespace');
    rejects('https://tools.example.com/mcp ', 'whitespace');
    rejects('https://tools.example.com/m cp', 'whitespace');
    rejects('https://tools.example.com/mcp?q=a b', 'whitespace');
    rejects('\u00a0https://tools.example.com/mcp', 'whitespace');
    rejects('https://tools.example.com/\u2003mcp', 'whitespace');
    rejects('https://tools.example.com/mcp\u3000', 'whitespace');
    rejects('https://tools.example.com/mcp\u2028', 'whitespace');
    // Tab, CR and LF are control characters too: either reason is a rejection.
    for (const input of ['https://tools.example.com/\tmcp', 'https://tools\t.example.com/mcp', 'https://tools.example.com/mcp\t']) {
      expect(canonicalToolServerUrl(input).ok, JSON.stringify(input)).toBe(false);
    }
  });

  it('rejects zero-width, soft-hyphen and bidi characters anywhere (URL would strip or encode them)', () => {
    const invisible = [
      '\u200b',
      '\u200c',
      '\u200d',
      '\u200e',
      '\u200f',
      '\u2060',
      '\u00ad',
      '\u202a',
      '\u202b',
      '\u202c',
      '\u202d',
      '\u202e',
      '\u2066',
      '\u2067',
      '\u2068',
      '\u2069',
    ];
    for (const ch of invisible) {
      rejects(`https://tools.example.com/mcp${ch}`, 'invisible_character');
      rejects(`https://tools${ch}.example.com/mcp`, 'invisible_character');
      rejects(`https://tools.example.com/${ch}mcp`, 'invisible_character');
    }
    // U+FEFF (byte-order mark) counts as white space in JavaScript: rejected either way.
    for (const input of [
      '\ufeffhttps://tools.example.com/mcp',
      'https://tools.example.com/mcp\ufeff',
      'https://tools\ufeff.example.com/mcp',
    ]) {
      const result = canonicalToolServerUrl(input);
      expect(result.ok, JSON.stringify(input)).toBe(false);
      if (!result.ok) expect(['whitespace', 'invisible_character']).toContain(result.reason);
    }
  });

  it('shows the host parser really does drop a zero-width character (why the raw check matters)', () => {
    expect(new URL('https://tools\u200b.example.com/mcp').hostname).toBe('tools.example.com');
  });

  it('rejects URLs over the length limit', () => {
    const base = 'https://tools.example.com/';
    const atLimit = base + 'a'.repeat(MAX_TOOL_SERVER_URL_LENGTH - base.length);
    expect(canonical(atLimit)).toBe(atLimit);
    rejects(`${atLimit}a`, 'too_long');
  });

  it('rejects hosts that are not DNS names', () => {
    rejects(`https://${'a'.repeat(64)}.example.com/mcp`, 'invalid_host');
    rejects('https://a*b.example.com/mcp', 'invalid_host');
    rejects('https://-tools.example.com/mcp', 'invalid_host');
  });
});
