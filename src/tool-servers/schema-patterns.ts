/**
 * Every regex a JSON Schema makes the validator run: `pattern` values and `patternProperties`
 * keys, in the schema and every subschema (`propertyNames` is a subschema, so its `pattern` is
 * found too). Walks only the keywords that hold subschemas, so a `pattern` inside `const`,
 * `enum`, `default` or `examples` (data, not schema) is not taken for one.
 */
import { isObject } from './types';

export interface SchemaPattern {
  /** JSON Pointer of the keyword in the schema. */
  at: string;
  pattern: string;
}

/** Keywords whose value is one subschema. */
const ONE = [
  'additionalProperties',
  'unevaluatedProperties',
  'items',
  'additionalItems',
  'unevaluatedItems',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
];
/** Keywords whose value is an array of subschemas. */
const MANY = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'];
/** Keywords whose value maps names to subschemas. */
const MAPS = ['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions', 'dependencies'];

/** The keywords above, for other walks over subschemas (./schema-size). */
export const SUBSCHEMA_KEYWORDS = { one: ONE, many: MANY, maps: MAPS } as const;

const pointer = (token: string) => token.replace(/~/g, '~0').replace(/\//g, '~1');

/** The regexes of a schema, depth first; stops collecting after `limit + 1` (the caller refuses). */
export function schemaPatterns(schema: unknown, limit: number): SchemaPattern[] {
  const found: SchemaPattern[] = [];
  const seen = new Set<object>();
  const walk = (node: unknown, at: string): void => {
    if (!isObject(node) || seen.has(node) || found.length > limit) return;
    seen.add(node);
    if (typeof node.pattern === 'string') found.push({ at: `${at}/pattern`, pattern: node.pattern });
    if (isObject(node.patternProperties)) {
      for (const key of Object.keys(node.patternProperties)) found.push({ at: `${at}/patternProperties/${pointer(key)}`, pattern: key });
    }
    for (const keyword of ONE) walk(node[keyword], `${at}/${keyword}`);
    for (const keyword of MANY) {
      const list = node[keyword];
      if (Array.isArray(list)) {
        for (const [i, sub] of list.entries()) walk(sub, `${at}/${keyword}/${i}`);
      }
    }
    for (const keyword of MAPS) {
      const map = node[keyword];
      if (isObject(map)) for (const [name, sub] of Object.entries(map)) walk(sub, `${at}/${keyword}/${pointer(name)}`);
    }
  };
  walk(schema, '#');
  return found;
}
