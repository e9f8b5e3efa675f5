/**
 * How big a tool schema is once its local `$ref`s are followed (a bound on validation work): the subschemas and
 * regexes the validator may apply to one value, counting each use, not each place it is written.
 * `{"allOf": [{"$ref": "#/$defs/p"} x5000]}` is 5001 subschemas and, if `p` holds a pattern, 5000
 * pattern uses; a chain of `$defs` each referring twice to the next doubles with every link.
 * Counted with memoisation, so the count itself is linear in the schema; counts saturate just
 * past the cap. A `$ref` back into a subschema being counted (a recursive schema) counts one:
 * recursion is bounded by the nesting of the arguments, and the validation budget
 * (./validation-budget) bounds the work at call time whatever this count says.
 */
import { SUBSCHEMA_KEYWORDS } from './schema-patterns';
import { MAX_SCHEMA_ENUM_BYTES, MAX_SCHEMA_VALUE_BYTES } from './tool-limits';
import { isObject } from './types';

export interface SchemaSize {
  /** Subschemas, `$ref` targets counted once per `$ref`. */
  subschemas: number;
  /** `pattern` and `patternProperties` regexes, counted once per use. */
  patternUses: number;
}

/** The subschema a local `$ref` (`#` or `#/json/pointer`) points to, if any. */
function resolve(root: unknown, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    let token: string;
    try {
      token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      return undefined;
    }
    if (Array.isArray(node)) node = node[Number(token)];
    else if (isObject(node) && Object.hasOwn(node, token)) node = node[token];
    else return undefined;
  }
  return node;
}

/** The expanded size of a schema; each count stops growing once past `cap`. */
export function schemaSize(schema: unknown, cap: number): SchemaSize {
  const memo = new Map<object, SchemaSize>();
  const active = new Set<object>();
  const limit = (n: number) => Math.min(n, cap + 1);
  const size = (node: unknown): SchemaSize => {
    if (!isObject(node)) return { subschemas: 1, patternUses: 0 };
    const known = memo.get(node);
    if (known) return known;
    if (active.has(node)) return { subschemas: 1, patternUses: 0 };
    active.add(node);
    let subschemas = 1;
    let patternUses =
      (typeof node.pattern === 'string' ? 1 : 0) + (isObject(node.patternProperties) ? Object.keys(node.patternProperties).length : 0);
    const add = (child: unknown) => {
      const inner = size(child);
      subschemas = limit(subschemas + inner.subschemas);
      patternUses = limit(patternUses + inner.patternUses);
    };
    if (typeof node.$ref === 'string') add(resolve(schema, node.$ref));
    for (const child of SUBSCHEMA_KEYWORDS.one) if (node[child] !== undefined) add(node[child]);
    for (const keyword of SUBSCHEMA_KEYWORDS.many) {
      const list = node[keyword];
      if (Array.isArray(list)) list.forEach(add);
    }
    for (const keyword of SUBSCHEMA_KEYWORDS.maps) {
      // `$defs` are not applied where they are written, only through a `$ref`.
      if (keyword === '$defs' || keyword === 'definitions') continue;
      const map = node[keyword];
      if (isObject(map)) Object.values(map).forEach(add);
    }
    active.delete(node);
    const result = { subschemas, patternUses };
    memo.set(node, result);
    return result;
  };
  return size(schema);
}

const utf8Bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value) ?? '').byteLength;

/**
 * The first `const` or `enum` over its size cap (./tool-limits), as a sentence naming where it is,
 * or null. Walks subschemas only, as written (a `$ref` target is walked where it is written).
 */
export function oversizedValue(schema: unknown): string | null {
  const seen = new Set<object>();
  const walk = (node: unknown, at: string): string | null => {
    if (!isObject(node) || seen.has(node)) return null;
    seen.add(node);
    if (node.const !== undefined && utf8Bytes(node.const) > MAX_SCHEMA_VALUE_BYTES) {
      return `has a const of more than ${MAX_SCHEMA_VALUE_BYTES} bytes at ${at}/const`;
    }
    if (Array.isArray(node.enum)) {
      if (node.enum.some((value) => utf8Bytes(value) > MAX_SCHEMA_VALUE_BYTES)) {
        return `has an enum value of more than ${MAX_SCHEMA_VALUE_BYTES} bytes at ${at}/enum`;
      }
      if (utf8Bytes(node.enum) > MAX_SCHEMA_ENUM_BYTES) return `has an enum of more than ${MAX_SCHEMA_ENUM_BYTES} bytes at ${at}/enum`;
    }
    const children: [string, unknown][] = [];
    for (const keyword of SUBSCHEMA_KEYWORDS.one) children.push([keyword, node[keyword]]);
    for (const keyword of SUBSCHEMA_KEYWORDS.many) {
      const list = node[keyword];
      if (Array.isArray(list)) for (const [i, sub] of list.entries()) children.push([`${keyword}/${i}`, sub]);
    }
    for (const keyword of SUBSCHEMA_KEYWORDS.maps) {
      const map = node[keyword];
      if (isObject(map)) for (const [name, sub] of Object.entries(map)) children.push([`${keyword}/${name.slice(0, 50)}`, sub]);
    }
    for (const [path, child] of children) {
      const found = walk(child, `${at}/${path}`);
      if (found) return found;
    }
    return null;
  };
  return walk(schema, '#');
}
