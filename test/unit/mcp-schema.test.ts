import { Validator } from '@cfworker/json-schema';
import { describe, expect, it } from 'vitest';
import { checkToolSchema, validateArguments } from '../../src/tool-servers/schema-check';
import { schemaSize } from '../../src/tool-servers/schema-size';

function passes(schema: unknown): void {
  expect(checkToolSchema(schema), JSON.stringify(schema)).toEqual({ ok: true });
}

function fails(schema: unknown, problem?: RegExp): void {
  const result = checkToolSchema(schema);
  expect(result.ok, JSON.stringify(schema)).toBe(false);
  if (!result.ok && problem) expect(result.problem).toMatch(problem);
}

describe('checkToolSchema: schemas that pass', () => {
  it('accepts the usual MCP input schemas', () => {
    passes({ type: 'object', properties: { q: { type: 'string' } }, required: ['q'] });
    passes({});
    passes({ type: 'object' });
    passes({ type: ['object'] });
    passes({ type: 'object', properties: {}, additionalProperties: false });
  });

  it('accepts what the MCP SDK emits (draft-07 $schema, nested objects, enums, arrays)', () => {
    passes({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: {
        text: { type: 'string', minLength: 1, description: 'the text' },
        mode: { type: 'string', enum: ['a', 'b'] },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 10 },
        opts: { type: 'object', properties: { n: { type: 'integer', minimum: 0 } }, additionalProperties: false },
        either: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      },
      required: ['text'],
      additionalProperties: false,
    });
  });

  it('accepts 2020-12 keywords: $defs and $ref, prefixItems, unevaluatedProperties, dependentRequired', () => {
    passes({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { point: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }], items: false } },
      properties: { p: { $ref: '#/$defs/point' }, name: { type: 'string', pattern: '^[a-z]+$' } },
      dependentRequired: { name: ['p'] },
      unevaluatedProperties: false,
    });
  });
});

describe('checkToolSchema: schemas that fail', () => {
  it('rejects typos the naive validator lets through', () => {
    fails({ type: 'strin' }, /type/);
    fails({ type: 'object', properties: [] }, /properties/);
    fails({ required: 'x' }, /required/);
  });

  it('rejects typos deep inside (dynamic refs resolved)', () => {
    fails({ type: 'object', properties: { q: { type: 'strin' } } }, /properties\/q\/type/);
    fails({ type: 'object', properties: { q: { type: 'array', items: { type: 'nmber' } } } }, /items\/type/);
    fails({ type: 'object', $defs: { x: { type: 'strin' } } }, /\$defs\/x/);
    fails({ type: 'object', properties: { a: { anyOf: [{ type: 'sting' }] } } });
    fails({ type: 'object', properties: { a: { not: { required: 'x' } } } });
    fails({ type: 'object', definitions: { x: { type: 'strin' } } });
  });

  it('rejects bad values of validation keywords', () => {
    fails({ type: 'object', minProperties: -1 });
    fails({ type: 'object', anyOf: [] });
    fails({ type: 'object', required: ['a', 'a'] });
    fails({ type: 'object', properties: { a: { pattern: '(' } } }, /regex/);
    fails({ type: 'object', properties: { a: { maxLength: 1.5 } } });
    fails({ type: 'object', properties: { a: true, b: 5 } });
  });

  it('rejects what is not an object schema', () => {
    fails({ type: 'string' }, /object/);
    fails({ type: ['object', 'null'] }, /object/);
    fails(true, /JSON object/);
    fails(null);
    fails([]);
    fails('{"type":"object"}');
    fails(undefined);
  });

  it('is not fooled by cfworker without the rewrite (why the meta-schema is embedded)', () => {
    // The plain 2020-12 meta-schema relies on $dynamicRef, which cfworker ignores.
    const naive = new Validator(
      {
        $id: 'https://example.test/naive',
        type: 'object',
        properties: { properties: { type: 'object', additionalProperties: { $dynamicRef: '#meta' } } },
      },
      '2020-12',
    );
    expect(naive.validate({ properties: { q: { type: 'strin' } } }).valid).toBe(true);
    fails({ properties: { q: { type: 'strin' } } });
  });

  it('does not change the schema it checks', () => {
    const schema = { type: 'object', properties: { q: { $ref: '#/$defs/q' } }, $defs: { q: { type: 'string' } } };
    const copy = structuredClone(schema);
    checkToolSchema(schema);
    validateArguments(schema, { q: 'x' });
    expect(schema).toEqual(copy);
    expect(Object.getOwnPropertyNames(schema)).toEqual(Object.getOwnPropertyNames(copy));
  });
});

describe('validateArguments', () => {
  const schema = {
    type: 'object',
    properties: { q: { type: 'string', minLength: 1 }, n: { type: 'integer', minimum: 0 } },
    required: ['q'],
    additionalProperties: false,
  };

  it('accepts matching arguments', () => {
    expect(validateArguments(schema, { q: 'x' })).toEqual({ ok: true });
    expect(validateArguments(schema, { q: 'x', n: 3 })).toEqual({ ok: true });
    expect(validateArguments({}, { anything: [1, 2] })).toEqual({ ok: true });
    expect(validateArguments({ type: 'object' }, {})).toEqual({ ok: true });
  });

  it('lists what is wrong', () => {
    const result = validateArguments(schema, { n: -1, extra: true });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const text = result.problems.join('\n');
    expect(text).toMatch(/required property "q"/);
    expect(text).toMatch(/#\/n/);
    expect(text).toMatch(/extra/);
  });

  it('checks types', () => {
    expect(validateArguments(schema, { q: 5 }).ok).toBe(false);
    expect(validateArguments(schema, { q: 'x', n: 1.5 }).ok).toBe(false);
    expect(validateArguments(schema, { q: '' }).ok).toBe(false);
  });

  it('requires an arguments object', () => {
    for (const args of [null, [], 'x', 5, undefined]) {
      expect(validateArguments(schema, args)).toMatchObject({ ok: false, problems: ['arguments must be a JSON object'] });
    }
  });

  it('follows local $refs', () => {
    const withRef = { type: 'object', properties: { a: { $ref: '#/$defs/a' } }, $defs: { a: { type: 'number' } } };
    expect(validateArguments(withRef, { a: 1 })).toEqual({ ok: true });
    expect(validateArguments(withRef, { a: 'x' }).ok).toBe(false);
  });

  it('reports a schema it cannot use instead of throwing', () => {
    const remote = { type: 'object', properties: { a: { $ref: 'https://schemas.example.com/a' } } };
    const result = validateArguments(remote, { a: 1 });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problems[0]).toMatch(/cannot be checked/);
    expect(validateArguments('nope', {}).ok).toBe(false);
  });
});

describe('schemas that multiply work', () => {
  const refs = (n: number) => Array.from({ length: n }, () => ({ $ref: '#/$defs/p' }));
  const chain = (n: number) => ({
    ...Object.fromEntries(
      Array.from({ length: n }, (_, i) => [`d${i}`, { anyOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] }]),
    ),
    [`d${n}`]: { type: 'number' },
  });

  it('counts each use of a $ref target, memoised, saturating past the cap', () => {
    expect(schemaSize({ $defs: { p: { pattern: 'a' } }, allOf: refs(3) }, 100)).toEqual({ subschemas: 7, patternUses: 3 });
    const started = Date.now();
    expect(schemaSize({ $defs: chain(60), $ref: '#/$defs/d0' }, 1_000).subschemas).toBe(1_001);
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('refuses at registration a schema over the expanded caps, naming why', () => {
    const patterns = checkToolSchema({
      type: 'object',
      $defs: { p: { pattern: '(a|b)+$' } },
      properties: { a: { items: { allOf: refs(5_000) } } },
    });
    expect(patterns).toMatchObject({ ok: false, problem: expect.stringContaining('once its $refs are followed') });
    expect(checkToolSchema({ type: 'object', $defs: chain(20), properties: { x: { $ref: '#/$defs/d0' } } })).toMatchObject({
      ok: false,
      problem: expect.stringContaining('subschemas'),
    });
  });

  it('accepts and validates a recursive schema (a tree)', () => {
    const tree = {
      type: 'object',
      $defs: {
        node: {
          type: 'object',
          properties: { name: { type: 'string', pattern: '^[a-z]+$' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } },
        },
      },
      properties: { root: { $ref: '#/$defs/node' } },
    };
    expect(checkToolSchema(tree)).toEqual({ ok: true });
    expect(validateArguments(tree, { root: { name: 'a', children: [{ name: 'b', children: [{ name: 'c' }] }] } })).toEqual({ ok: true });
    expect(validateArguments(tree, { root: { name: 'a', children: [{ name: 'B' }] } }).ok).toBe(false);
  });

  it('stops a validation past its work budget, quickly, and says so', () => {
    const schema = {
      type: 'object',
      $defs: { p: { pattern: '(a|b|c|d|e|f|g|h)+z?$' } },
      properties: { a: { type: 'array', items: { allOf: refs(150) } } },
    };
    expect(checkToolSchema(schema)).toEqual({ ok: true });
    const started = Date.now();
    expect(validateArguments(schema, { a: Array.from({ length: 30_000 }, () => 'a') })).toEqual({
      ok: false,
      problems: ["the arguments take too much work to check against this tool's schema"],
      tooCostly: true,
    });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(validateArguments(schema, { a: ['abc', 'h'] })).toEqual({ ok: true });
    // The budget is per validation, and the global RegExp is restored.
    expect(validateArguments(schema, { a: ['abc'] })).toEqual({ ok: true });
    expect(globalThis.RegExp.name).toBe('RegExp');
  });
});

describe('const, enum and uniqueItems cannot make one call costly (issue 18)', () => {
  const big = (bytes: number) => 'k'.repeat(bytes - 2); // JSON adds two quotes

  it('refuses at registration a const or an enum value over 1 KiB, or an enum over 16 KiB; 1 KiB values pass', () => {
    passes({ type: 'object', properties: { a: { const: big(1024) }, b: { enum: [big(1024), 'x'] } } });
    fails({ type: 'object', properties: { a: { const: big(1025) } } }, /const of more than 1024 bytes at #\/properties\/a\/const/);
    fails({ type: 'object', properties: { a: { items: { enum: ['x', big(1025)] } } } }, /enum value of more than 1024 bytes/);
    fails({ type: 'object', properties: { a: { enum: Array.from({ length: 20 }, (_, i) => `${i}${big(1000)}`) } } }, /enum of more than/);
    fails({ type: 'object', $defs: { c: { const: { deep: big(2000) } } } }, /\$defs\/c\/const/);
  });

  it('a 1 KiB const failed by 60000 items: a few short problems, within a second', () => {
    for (const keyword of ['const', 'enum'] as const) {
      const value = keyword === 'const' ? big(1024) : [big(1024)];
      const schema = { type: 'object', properties: { list: { type: 'array', items: { [keyword]: value } } } };
      expect(checkToolSchema(schema)).toEqual({ ok: true });
      const started = performance.now();
      const result = validateArguments(schema, { list: Array.from({ length: 60_000 }, () => 0) });
      const ms = performance.now() - started;
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.problems.length).toBeGreaterThan(0);
      expect(result.problems.length).toBeLessThanOrEqual(5);
      expect(result.problems[0]).toMatch(/^#\/list\/0: Instance does not match/);
      expect(JSON.stringify(result.problems).length).toBeLessThan(2_000);
      expect(ms).toBeLessThan(1_000);
    }
  });

  it('a failing call lists at most 5 problems of at most 200 characters', () => {
    const schema = { type: 'object', properties: { list: { type: 'array', items: { const: big(600) } } } };
    const result = validateArguments(schema, { list: [1, 2, 3, 4, 5, 6, 7, 8] });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toHaveLength(5);
    for (const problem of result.problems) expect(problem.length).toBeLessThanOrEqual(200);
  });

  it('uniqueItems is charged its comparison work: 3800 arrays of 31 numbers differing in the last are refused quickly', () => {
    const schema = { type: 'object', properties: { list: { type: 'array', uniqueItems: true } } };
    const list = Array.from({ length: 3_800 }, (_, i) => [...Array.from({ length: 30 }, () => 7), i]);
    const started = performance.now();
    expect(validateArguments(schema, { list })).toMatchObject({ ok: false, tooCostly: true });
    expect(performance.now() - started).toBeLessThan(1_000);
    // Ordinary unique lists still pass, and duplicates are still found.
    expect(validateArguments(schema, { list: list.slice(0, 200) })).toEqual({ ok: true });
    expect(
      validateArguments(schema, {
        list: [
          [1, 2],
          [1, 2],
        ],
      }).ok,
    ).toBe(false);
  });
});
