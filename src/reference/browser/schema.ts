/**
 * JSON Schema views of the /docs page script: $ref resolution, type labels, the schema tree and
 * example values. Serialized into the page like dom.ts: no module-level values.
 */
import { h, isObj, md, show, type Child, type Obj } from './dom';

export interface Resolved {
  s: Obj;
  ref: string | null;
}

export function pointer(spec: Obj, ref: unknown): unknown {
  if (typeof ref !== 'string' || ref.indexOf('#/') !== 0) return undefined;
  let cur: unknown = spec;
  for (const part of ref.slice(2).split('/')) {
    if (!isObj(cur) && !Array.isArray(cur)) return undefined;
    cur = (cur as Obj)[decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return cur;
}

/** Follows a $ref chain; keywords next to $ref override the target (OpenAPI 3.1). */
export function deref(spec: Obj, node: unknown): Resolved {
  let s: Obj = isObj(node) ? node : {};
  let ref: string | null = null;
  for (let hops = 0; typeof s.$ref === 'string' && hops < 20; hops++) {
    const target = s.$ref;
    ref = ref ?? target;
    const rest: Obj = Object.assign({}, s);
    delete rest.$ref;
    const found = pointer(spec, target);
    s = Object.assign({}, isObj(found) ? found : { description: `Unresolved reference ${target}` }, rest);
  }
  return { s, ref };
}

export function refName(ref: unknown): string {
  return typeof ref === 'string' ? (ref.split('/').pop() ?? '') : '';
}

export function typeLabel(spec: Obj, s: Obj): string {
  let t = Array.isArray(s.type) ? s.type.join(' | ') : typeof s.type === 'string' ? s.type : '';
  if (!t)
    t = s.properties ? 'object' : s.items ? 'array' : s.allOf ? 'allOf' : s.anyOf ? 'anyOf' : s.oneOf ? 'oneOf' : s.enum ? 'enum' : 'any';
  if (t === 'array' && isObj(s.items)) t = `array<${refName(s.items.$ref) || typeLabel(spec, deref(spec, s.items).s)}>`;
  return t + (typeof s.format === 'string' ? ` (${s.format})` : '');
}

/** Constraint chips: enum, const, bounds, pattern, default, example. */
export function facts(s: Obj, withExample: boolean): HTMLElement[] {
  const out: string[] = [];
  if (Array.isArray(s.enum)) out.push(`enum: ${s.enum.map(show).join(' | ')}`);
  if (s.const !== undefined) out.push(`const: ${show(s.const)}`);
  for (const k of [
    'minimum',
    'maximum',
    'exclusiveMinimum',
    'exclusiveMaximum',
    'minLength',
    'maxLength',
    'minItems',
    'maxItems',
    'pattern',
    'default',
  ]) {
    if (s[k] !== undefined) out.push(`${k}: ${show(s[k])}`);
  }
  const ex = s.example !== undefined ? s.example : Array.isArray(s.examples) ? s.examples[0] : undefined;
  if (withExample && ex !== undefined) out.push(`example: ${show(ex)}`);
  return out.map((f) => h('span', { class: 'chip' }, f));
}

export function schemaTree(spec: Obj, node: unknown, name: string | null, required: boolean, stack: string[]): HTMLElement {
  const { s, ref } = deref(spec, node);
  const row = h(
    'span',
    { class: 'srow' },
    name !== null ? h('code', { class: 'pname' }, name) : null,
    required ? h('span', { class: 'req', title: 'required' }, 'required') : null,
    h('span', { class: 'type' }, ref ? `${refName(ref)}: ${typeLabel(spec, s)}` : typeLabel(spec, s)),
    facts(s, true),
  );
  const desc = s.description ? h('div', { class: 'sdesc' }, md(s.description)) : null;
  if (ref && stack.includes(ref)) return h('div', { class: 'snode' }, row, h('span', { class: 'note' }, ' (recursive, see above)'));
  const next = ref ? stack.concat(ref) : stack;
  const kids: Child[] = [];
  const req = Array.isArray(s.required) ? s.required : [];
  if (isObj(s.properties)) for (const [k, v] of Object.entries(s.properties)) kids.push(schemaTree(spec, v, k, req.includes(k), next));
  if (isObj(s.items)) kids.push(schemaTree(spec, s.items, '[item]', false, next));
  if (isObj(s.additionalProperties)) kids.push(schemaTree(spec, s.additionalProperties, '{key}', false, next));
  for (const kw of ['allOf', 'anyOf', 'oneOf']) {
    const list = s[kw];
    if (Array.isArray(list)) {
      for (const [i, v] of list.entries()) kids.push(schemaTree(spec, v, `${kw} #${i + 1}`, false, next));
    }
  }
  if (!kids.length) return h('div', { class: 'snode' }, row, desc);
  return h('details', { class: 'snode', open: next.length < 2 }, h('summary', {}, row), desc, kids);
}

/** An example value for a schema: its own example first, else one built from the schema. */
export function sample(spec: Obj, node: unknown, stack: string[]): unknown {
  const { s, ref } = deref(spec, node);
  if (s.example !== undefined) return s.example;
  if (Array.isArray(s.examples) && s.examples.length) return s.examples[0];
  if (s.default !== undefined) return s.default;
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
  if (ref && stack.includes(ref)) return null;
  const next = ref ? stack.concat(ref) : stack;
  if (Array.isArray(s.allOf)) return Object.assign({}, ...s.allOf.map((v) => sample(spec, v, next)).filter(isObj));
  const alt = Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : null;
  if (alt) return sample(spec, alt.find((v) => deref(spec, v).s.type !== 'null') ?? alt[0], next);
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  if (type === 'object' || isObj(s.properties)) {
    const out: Obj = {};
    for (const [k, v] of Object.entries(isObj(s.properties) ? s.properties : {})) out[k] = sample(spec, v, next);
    return out;
  }
  if (type === 'array') return s.items ? [sample(spec, s.items, next)] : [];
  if (type === 'integer' || type === 'number') return typeof s.minimum === 'number' ? s.minimum : 0;
  if (type === 'boolean') return false;
  if (type === 'null') return null;
  return type === 'string' || !type ? 'string' : null;
}

/** The JSON media type of a content map (else the first one). */
export function jsonMedia(spec: Obj, content: unknown): Obj | null {
  if (!isObj(content)) return null;
  const key = Object.keys(content).find((k) => /json/i.test(k)) ?? Object.keys(content)[0];
  return key ? deref(spec, content[key]).s : null;
}

/** A media type's example: `example`, the first of `examples`, else one built from its schema. */
export function mediaExample(spec: Obj, media: Obj | null): unknown {
  if (!media) return undefined;
  if (media.example !== undefined) return media.example;
  if (isObj(media.examples)) {
    for (const e of Object.values(media.examples)) {
      const value = deref(spec, e).s.value;
      if (value !== undefined) return value;
    }
  }
  return media.schema === undefined ? undefined : sample(spec, media.schema, []);
}
