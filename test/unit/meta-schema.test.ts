import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { META_SCHEMA_ID, META_SCHEMAS, staticMetaRefs } from '../../src/tool-servers/meta-schema';

const DIR = resolve(__dirname, '../../src/tool-servers/json-schema-2020-12');

/** sha256 of json-schema-spec branch 2020-12 at 769daad (see the folder's README.md). */
const UPSTREAM_SHA256: Record<string, string> = {
  'schema.json': '41da76f5afb7ce062d248f762463a92f7ca47e4e0f905b224ba6afeef91ded0f',
  'meta/core.json': 'c2d12a8e4dd11d336dfc83a3f663aa4c69f0b49b3beb094ffeb25b5316f4803d',
  'meta/applicator.json': 'c4a6e4147b91fef7fea6dc058cb1bf93402f7414b76578a8b16aaf1dad6aacef',
  'meta/unevaluated.json': '2dbfbcb73994b670b0976492adee1fffb46c21682784d2f5a4ca561f9e2d0cb4',
  'meta/validation.json': '7010a31e541f32d2be721e2de348df75c9b36876a3ed304877fc0abda1d37a58',
  'meta/meta-data.json': '8f76d6e14f41b9b92ef933b708cdc5144c8b5268651ad11918485fb1754f1c76',
  'meta/format-annotation.json': 'abc775adfefd89d22358170d9bf93f4ebd2349563bbbedd60f02bef7c812bcc0',
  'meta/content.json': '08343747764e4a5814262793cf4d652057a7913863c5950d43297e8e1fdac5b6',
};

describe('vendored 2020-12 meta-schema', () => {
  it('files are byte-identical to upstream (never edited in place)', () => {
    for (const [file, sha] of Object.entries(UPSTREAM_SHA256)) {
      expect(
        createHash('sha256')
          .update(readFileSync(resolve(DIR, file)))
          .digest('hex'),
        file,
      ).toBe(sha);
    }
  });

  it('loads the top meta-schema first, then the vocabularies of its allOf in order', () => {
    const ids = META_SCHEMAS.map((schema) => (schema as { $id: string }).$id);
    expect(ids[0]).toBe(META_SCHEMA_ID);
    const top = JSON.parse(readFileSync(resolve(DIR, 'schema.json'), 'utf8')) as { allOf: { $ref: string }[] };
    expect(ids.slice(1)).toEqual(top.allOf.map((entry) => new URL(entry.$ref, META_SCHEMA_ID).href));
  });

  it('has every "$dynamicRef": "#meta" rewritten at load, in place of the key', () => {
    const raw = readFileSync(resolve(DIR, 'meta/applicator.json'), 'utf8');
    expect(raw).toContain('"$dynamicRef": "#meta"');
    const loaded = JSON.stringify(META_SCHEMAS);
    expect(loaded).not.toContain('"$dynamicRef":"#meta"');
    expect(staticMetaRefs({ a: [{ $dynamicRef: '#meta', x: 1 }], $dynamicRef: '#other' })).toEqual({
      a: [{ $ref: META_SCHEMA_ID, x: 1 }],
      $dynamicRef: '#other',
    });
    expect(Object.keys(staticMetaRefs({ x: 1, $dynamicRef: '#meta', y: 2 }) as object)).toEqual(['x', '$ref', 'y']);
  });
});
