import { Validator, type Schema } from '@cfworker/json-schema';
import type { JsonResponse } from './http';

/**
 * Checks real responses against the OpenAPI 3.1 document the gateway serves: the status is
 * documented for the operation (405 for a method the path does not serve: documented on the
 * path's operations), every required header of that response is present and valid, every API
 * header sent is declared, and the body validates (JSON Schema 2020-12, @cfworker/json-schema)
 * against the documented schema, or is empty when none is documented.
 */

interface HeaderObject {
  required?: boolean;
  schema: Schema;
  $ref?: string;
}
interface ResponseObject {
  headers?: Record<string, HeaderObject>;
  content?: Record<string, { schema: Schema }>;
}
interface OperationObject {
  operationId: string;
  responses: Record<string, ResponseObject>;
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, OperationObject>>;
  components: { schemas: Record<string, Schema>; headers: Record<string, HeaderObject> };
}

/** One request and its answer, as recorded by the test. */
export interface Exchange {
  method: string;
  path: string;
  res: JsonResponse;
}

/** Headers of the API that must be declared on every response that carries them. */
const API_HEADERS = ['x-request-id', 'retry-after', 'idempotent-replayed', 'allow'];

export function contractChecker(doc: OpenApiDocument) {
  // `example` is no validation keyword, but the validator reads an `id` inside one (a JSON-RPC
  // example's `"id": 1`) as a schema URI, and two such examples collide: drop them.
  const withoutExamples = (key: string, value: unknown) => (key === 'example' ? undefined : value);
  const defs = JSON.parse(
    JSON.stringify(doc.components.schemas).replaceAll('#/components/schemas/', '#/$defs/'),
    withoutExamples,
  ) as Record<string, Schema>;
  const validators = new Map<Schema, Validator>();
  const validate = (schema: Schema, value: unknown): string[] => {
    let validator = validators.get(schema);
    if (!validator) {
      const rooted = JSON.parse(JSON.stringify(schema).replaceAll('#/components/schemas/', '#/$defs/'), withoutExamples) as Schema;
      validator = new Validator({ ...rooted, $defs: defs }, '2020-12', false);
      validators.set(schema, validator);
    }
    const result = validator.validate(value);
    return result.valid ? [] : result.errors.slice(0, 5).map((e) => `${e.instanceLocation} ${e.keyword}: ${e.error}`);
  };
  const templates = Object.keys(doc.paths).map((template) => ({
    template,
    pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
  }));
  const header = (h: HeaderObject): HeaderObject => (h.$ref ? doc.components.headers[h.$ref.split('/').pop()!]! : h);

  /** The operation answering `method path` (none when the path serves another method). */
  function operationFor(method: string, path: string): { template: string; operation: OperationObject | undefined } | undefined {
    const bare = path.split('?')[0]!;
    const found = templates.find((t) => t.pattern.test(bare));
    if (!found) return undefined;
    const verb = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
    return { template: found.template, operation: doc.paths[found.template]![verb] };
  }

  /** Every way the exchange departs from the document; empty when it conforms. */
  function problems({ method, path, res }: Exchange): string[] {
    const where = `${method} ${path.slice(0, 120)} -> ${res.status}`;
    const match = operationFor(method, path);
    if (!match) return [`${where}: no documented path`];
    const operations = match.operation ? [match.operation] : Object.values(doc.paths[match.template]!);
    if (!match.operation && res.status !== 405) return [`${where}: method not documented and the answer is not 405`];
    const out: string[] = [];
    for (const operation of operations) {
      const response = operation.responses[String(res.status)];
      if (!response) {
        out.push(`${where}: status not documented for ${operation.operationId}`);
        continue;
      }
      const declared = Object.fromEntries(Object.entries(response.headers ?? {}).map(([name, h]) => [name.toLowerCase(), header(h)]));
      for (const [name, h] of Object.entries(declared)) {
        const value = res.headers.get(name);
        if (value === null) {
          if (h.required) out.push(`${where}: required header ${name} missing`);
          continue;
        }
        const typed = (h.schema as { type?: string }).type === 'integer' ? Number(value) : value;
        for (const p of validate(h.schema, typed)) out.push(`${where}: header ${name}: ${p}`);
      }
      for (const name of API_HEADERS) {
        if (res.headers.has(name) && !declared[name]) out.push(`${where}: header ${name} sent but not declared`);
      }
      const json = response.content?.['application/json'];
      if (method === 'HEAD') continue; // no body to check
      if (json) {
        if (!(res.headers.get('content-type') ?? '').startsWith('application/json'))
          out.push(`${where}: not JSON (${res.headers.get('content-type')})`);
        else for (const p of validate(json.schema, res.body)) out.push(`${where}: body ${p}`);
      } else if (res.text !== '' && !documentedType(response.content, res.headers.get('content-type'))) {
        out.push(`${where}: a body where none is documented: ${res.text.slice(0, 100)}`);
      }
    }
    return out;
  }

  return { operationFor, problems };
}

/** A body of a documented non-JSON type (the OAuth authorize page's HTML). */
function documentedType(content: Record<string, unknown> | undefined, type: string | null): boolean {
  return Object.keys(content ?? {}).some((declared) => (type ?? '').startsWith(declared));
}
