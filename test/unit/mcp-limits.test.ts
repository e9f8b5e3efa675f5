/**
 * Tool calls that cannot pin the gateway: schema regexes on the linear-time engine (refused at
 * registration when it cannot run them), format checks that never backtrack, argument caps, the
 * regex walker, the snapshot limit.
 */
import { format } from '@cfworker/json-schema';
import { describe, expect, it } from 'vitest';
import { checkLinearPattern, MAX_PATTERN_CHARS } from '../../src/tool-servers/linear-regexp';
import { FORMAT_MAX_CHARS } from '../../src/tool-servers/safe-formats';
import { checkToolSchema, validateArguments } from '../../src/tool-servers/schema-check';
import { schemaPatterns } from '../../src/tool-servers/schema-patterns';
import {
  checkArguments,
  checkSnapshot,
  MAX_ARGUMENT_STRING_CHARS,
  MAX_ARGUMENTS_BYTES,
  MAX_SCHEMA_PATTERNS,
  MAX_SNAPSHOT_TOOLS,
} from '../../src/tool-servers/tool-limits';

const EVIL = `${'a'.repeat(40)}!`;

function timed<T>(run: () => T): { value: T; ms: number } {
  const started = performance.now();
  const value = run();
  return { value, ms: performance.now() - started };
}

describe('schema regexes run in linear time', () => {
  it.each([
    ['pattern', { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } }, { s: EVIL }, false],
    ['patternProperties', { type: 'object', patternProperties: { '^(a|a)*$': { type: 'number' } } }, { [EVIL]: 'x', aaaa: 'y' }, false],
    ['propertyNames', { type: 'object', propertyNames: { pattern: '^(a+)+$' } }, { [EVIL]: 1 }, false],
    [
      'pattern in items',
      { type: 'object', properties: { l: { type: 'array', items: { type: 'string', pattern: '(x+x+)+y' } } } },
      { l: Array(50).fill('x'.repeat(5_000)) },
      false,
    ],
    ['a matching value', { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } }, { s: 'a'.repeat(30_000) }, true],
  ])('%s: an exponential regex against an evil string answers at once', (_, schema, args, valid) => {
    expect(checkToolSchema(schema)).toEqual({ ok: true });
    const { value, ms } = timed(() => validateArguments(schema, args));
    expect(value.ok).toBe(valid);
    expect(ms).toBeLessThan(1_000);
  });

  it('matches as ECMAScript would for ordinary patterns', () => {
    const schema = {
      type: 'object',
      properties: {
        id: { type: 'string', pattern: '^[A-Z]{2}-\\d{4}$' },
        u: { type: 'string', pattern: '^\\p{L}+$' },
        e: { type: 'string', pattern: '[\\u{1F600}-\\u{1F64F}]' },
      },
    };
    expect(validateArguments(schema, { id: 'AB-1234', u: 'héllo', e: 'hi 😀' })).toEqual({ ok: true });
    expect(validateArguments(schema, { id: 'ab-1234' }).ok).toBe(false);
    expect(validateArguments(schema, { u: 'h3llo' }).ok).toBe(false);
  });

  it('restores the native RegExp after every validation, also after a failure', () => {
    validateArguments({ type: 'object', properties: { s: { pattern: '^a$' } } }, { s: 'b' });
    expect(/(?<=a)b/.test('ab')).toBe(true);
    expect(RegExp.name).toBe('RegExp');
  });

  it('refuses at registration what the linear engine cannot run, naming the pattern', () => {
    for (const pattern of ['^(?=a)a+$', '(a)\\1', '(?<!x)y', '(a{1000}){1000}']) {
      const check = checkToolSchema({ type: 'object', properties: { s: { type: 'string', pattern } } });
      expect(check.ok, pattern).toBe(false);
      if (!check.ok) expect(check.problem).toContain(JSON.stringify(pattern));
    }
    const keyed = checkToolSchema({ type: 'object', patternProperties: { '^(?!x)': {} } });
    expect(keyed.ok).toBe(false);
    if (!keyed.ok) expect(keyed.problem).toContain('#/patternProperties/^(?!x)');
    expect(checkLinearPattern('a'.repeat(MAX_PATTERN_CHARS + 1)).ok).toBe(false);
    expect(checkLinearPattern('^[a-z]{1,1000}[a-z]{1,1000}$').ok).toBe(false); // program too large
  });

  it('refuses a schema with more than the allowed number of regexes', () => {
    const properties = Object.fromEntries(
      Array.from({ length: MAX_SCHEMA_PATTERNS + 1 }, (_, i) => [`p${i}`, { type: 'string', pattern: `^${i}$` }]),
    );
    expect(checkToolSchema({ type: 'object', properties })).toMatchObject({ ok: false });
  });
});

describe('schemaPatterns', () => {
  it('finds pattern and patternProperties in every subschema, not in data keywords', () => {
    const schema = {
      type: 'object',
      properties: { a: { pattern: 'A' }, pattern: { type: 'string' } },
      patternProperties: { '^k': { pattern: 'B' } },
      propertyNames: { pattern: 'C' },
      items: [{ pattern: 'D' }],
      anyOf: [{ not: { pattern: 'E' } }],
      $defs: { x: { pattern: 'F' } },
      const: { pattern: 'not-a-regex' },
      default: { pattern: 'not-a-regex' },
    };
    expect(
      schemaPatterns(schema, 100)
        .map((p) => p.pattern)
        .sort(),
    ).toEqual(['A', 'B', 'C', 'D', 'E', 'F', '^k']);
  });
});

describe('format checks cannot backtrack', () => {
  const n = 100_000;
  const evils = [
    `${'a'.repeat(n)}!`,
    `${'a-'.repeat(n / 2)}!`,
    `http://${'a-'.repeat(n / 2)}!`,
    `http://${'a'.repeat(n)}.!`,
    `a:${'/'.repeat(n)}\u0000`,
    `a@${'a.'.repeat(n / 2)}!`,
    `"${'\\a'.repeat(n / 2)}`,
    `${'1'.repeat(n)}!`,
    `${'0:'.repeat(n / 2)}!`,
    `P${'1Y'.repeat(n / 2)}`,
    `http://a.b/${'%aa'.repeat(n / 3)}\n`,
    `x:/${'a/'.repeat(n / 2)} `,
    `/${'~0'.repeat(n / 2)}~`,
    `https://a${'.a'.repeat(n / 2)}!`,
    `a@${'-a'.repeat(n / 2)}.`,
  ];

  it.each(Object.keys(format))('%s answers at once for long evil strings, also just under its cap', (name) => {
    const check = (format as Record<string, (s: string) => boolean>)[name]!;
    const cap = FORMAT_MAX_CHARS[name] ?? 2_048;
    for (const evil of evils) {
      for (const input of [evil, `${evil.slice(0, cap - 1)}!`, evil.slice(0, cap)]) {
        const { ms } = timed(() => check(input));
        expect(ms, `${name}: ${input.slice(0, 30)}... (${input.length})`).toBeLessThan(100);
      }
    }
  });

  it('url: the exponential regex is replaced, valid URLs still pass', () => {
    const schema = { type: 'object', properties: { u: { type: 'string', format: 'url' } } };
    const { value, ms } = timed(() => validateArguments(schema, { u: `http://${'a-'.repeat(20)}! x` }));
    expect(ms).toBeLessThan(100);
    expect(value.ok).toBe(false);
    expect(validateArguments(schema, { u: 'https://tools.example.com/a?b=c' })).toEqual({ ok: true });
  });

  it('still checks formats: email, uri, date-time', () => {
    const schema = { type: 'object', properties: { e: { format: 'email' }, u: { format: 'uri' }, d: { format: 'date-time' } } };
    expect(validateArguments(schema, { e: 'a@example.com', u: 'https://x.example/y', d: '2026-11-22T10:00:00Z' })).toEqual({ ok: true });
    expect(validateArguments(schema, { e: 'not an email' }).ok).toBe(false);
    expect(validateArguments(schema, { e: `${'a'.repeat(400)}@example.com` }).ok).toBe(false);
  });
});

describe('argument and snapshot caps', () => {
  it('caps strings, property names, depth and the whole object', () => {
    expect(checkArguments({ text: 'x'.repeat(MAX_ARGUMENT_STRING_CHARS) })).toEqual({ ok: true });
    expect(checkArguments({ text: 'x'.repeat(MAX_ARGUMENT_STRING_CHARS + 1) })).toMatchObject({ ok: false });
    expect(checkArguments({ ['k'.repeat(MAX_ARGUMENT_STRING_CHARS + 1)]: 1 })).toMatchObject({ ok: false });
    expect(checkArguments({ list: ['y'.repeat(MAX_ARGUMENT_STRING_CHARS + 1)] })).toMatchObject({ ok: false });
    let deep: unknown = 1;
    for (let i = 0; i < 40; i++) deep = { d: deep };
    expect(checkArguments(deep)).toMatchObject({ ok: false });
    const many = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, 'z'.repeat(MAX_ARGUMENTS_BYTES / 16)]));
    expect(checkArguments(many)).toMatchObject({ ok: false });
  });

  it('caps the number of tools and the snapshot bytes', () => {
    const tool = { name: 't', description: '', inputSchema: { type: 'object' } };
    expect(checkSnapshot(Array(MAX_SNAPSHOT_TOOLS).fill(tool))).toEqual({ ok: true });
    expect(checkSnapshot(Array(MAX_SNAPSHOT_TOOLS + 1).fill(tool))).toMatchObject({ ok: false });
    expect(checkSnapshot([{ ...tool, description: 'd'.repeat(600_000) }])).toMatchObject({ ok: false });
  });
});
