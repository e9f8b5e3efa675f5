/**
 * The operations of an OpenAPI document as the /docs page lists them, and the search over them.
 * Serialized into the page like dom.ts: no module-level values.
 */
import { isObj, type Obj } from './dom';
import { deref } from './schema';

export interface Operation {
  path: string;
  method: string;
  op: Obj;
  /** The element id of its section: from operationId when there is one. */
  id: string;
  operationId: string | null;
  summary: string;
  tag: string;
  secured: boolean;
  /** The security schemes it accepts, any one of them (e.g. `bearer`, `agentKey`). */
  schemes: string[];
  params: Obj[];
}

export function collectOperations(spec: Obj): Operation[] {
  const ops: Operation[] = [];
  const used = new Set<string>();
  const paths = isObj(spec.paths) ? spec.paths : {};
  for (const [path, rawItem] of Object.entries(paths)) {
    const item = deref(spec, rawItem).s;
    for (const method of ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']) {
      const op = item[method];
      if (!isObj(op)) continue;
      const params = new Map<string, Obj>();
      const list = (Array.isArray(item.parameters) ? item.parameters : []).concat(Array.isArray(op.parameters) ? op.parameters : []);
      for (const p of list) {
        const param = deref(spec, p).s;
        params.set(`${String(param.in)}:${String(param.name)}`, param);
      }
      const operationId = typeof op.operationId === 'string' && op.operationId !== '' ? op.operationId : null;
      let id = `op-${(operationId ?? `${method}-${path}`).replace(/[^A-Za-z0-9]+/g, '-').replace(/^-+|-+$/g, '')}`;
      while (used.has(id)) id += '-x';
      used.add(id);
      const security = Array.isArray(op.security) ? op.security : Array.isArray(spec.security) ? spec.security : [];
      const secured = security.some((req) => isObj(req) && Object.keys(req).length > 0);
      const schemes = Array.from(new Set(security.flatMap((req) => (isObj(req) ? Object.keys(req) : []))));
      const tag = Array.isArray(op.tags) && op.tags.length ? String(op.tags[0]) : 'Other';
      const summary = typeof op.summary === 'string' && op.summary !== '' ? op.summary : `${method.toUpperCase()} ${path}`;
      ops.push({ path, method, op, id, operationId, summary, tag, secured, schemes, params: Array.from(params.values()) });
    }
  }
  return ops;
}

/** Tag names in the document's order, then any others, 'Other' last; only tags that have operations. */
export function tagOrder(spec: Obj, ops: Operation[]): string[] {
  const declared = Array.isArray(spec.tags) ? spec.tags.map((t) => (isObj(t) ? String(t.name) : '')) : [];
  return Array.from(
    new Set(
      declared.concat(
        ops.map((o) => o.tag),
        'Other',
      ),
    ),
  ).filter((t) => ops.some((o) => o.tag === t));
}

export function tagDescription(spec: Obj, tag: string): string {
  const found = Array.isArray(spec.tags) ? spec.tags.find((t) => isObj(t) && t.name === tag) : undefined;
  return isObj(found) && typeof found.description === 'string' ? found.description : '';
}

/** Every word of the query (case-insensitive) occurs in summary, path, operationId, tag or method. */
export function matchesSearch(entry: Operation, query: string): boolean {
  const hay = [entry.summary, entry.path, entry.operationId ?? '', entry.tag, entry.method].join(' ').toLowerCase();
  return query
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== '')
    .every((w) => hay.includes(w));
}
