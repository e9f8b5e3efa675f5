/**
 * The JSON Schema 2020-12 meta-schema and its vocabularies, loaded from the vendored upstream
 * files in ./json-schema-2020-12 (byte-identical to json-schema.org's; see its README.md), with
 * every `"$dynamicRef": "#meta"` rewritten here to a plain `$ref` to the top meta-schema, because
 * `@cfworker/json-schema` does not implement `$dynamicRef`.
 */
import type { Schema } from '@cfworker/json-schema';
import applicator from './json-schema-2020-12/meta/applicator.json';
import content from './json-schema-2020-12/meta/content.json';
import core from './json-schema-2020-12/meta/core.json';
import formatAnnotation from './json-schema-2020-12/meta/format-annotation.json';
import metaData from './json-schema-2020-12/meta/meta-data.json';
import unevaluated from './json-schema-2020-12/meta/unevaluated.json';
import validation from './json-schema-2020-12/meta/validation.json';
import top from './json-schema-2020-12/schema.json';

export const META_SCHEMA_ID = 'https://json-schema.org/draft/2020-12/schema';

/** A copy of `value` with each `"$dynamicRef": "#meta"` replaced, in place, by `"$ref": META_SCHEMA_ID`. */
export function staticMetaRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(staticMetaRefs);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) =>
      key === '$dynamicRef' && inner === '#meta' ? ['$ref', META_SCHEMA_ID] : [key, staticMetaRefs(inner)],
    ),
  );
}

/** The top meta-schema first, then its vocabularies in the order of its `allOf`; dynamic refs made static. */
export const META_SCHEMAS: Schema[] = [top, core, applicator, unevaluated, validation, metaData, formatAnnotation, content].map(
  (schema) => staticMetaRefs(schema) as Schema,
);
