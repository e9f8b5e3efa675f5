/**
 * Code samples of an operation: curl and the typed client `agent-gateway/client` (its method
 * names are the operationIds). Tokens never appear in samples: they read $AGENT_GATEWAY_TOKEN.
 * Serialized into the page like dom.ts: no module-level values.
 */
import { isObj, type Obj } from './dom';
import type { Operation } from './operations';
import { deref, jsonMedia, mediaExample, sample } from './schema';

export interface SampleInput {
  baseUrl: string;
  path: string;
  query: [string, string][];
  body: unknown;
  /** Path parameters in path order, with example values. */
  pathParams: [string, string][];
}

export function paramExample(spec: Obj, p: Obj): string {
  const s = deref(spec, p.schema).s;
  const ex = p.example !== undefined ? p.example : s.example !== undefined ? s.example : sample(spec, p.schema, []);
  return typeof ex === 'string' ? ex : JSON.stringify(ex);
}

/** The example request of an operation: path and required query parameters filled in, body example. */
export function sampleInput(spec: Obj, entry: Operation, baseUrl: string): SampleInput {
  const pathParams: [string, string][] = [];
  let path = entry.path;
  for (const name of (entry.path.match(/\{[^}]+\}/g) ?? []).map((m) => m.slice(1, -1))) {
    const p = entry.params.find((x) => x.in === 'path' && x.name === name);
    const value = p ? paramExample(spec, p) : name;
    pathParams.push([name, value]);
    path = path.split(`{${name}}`).join(encodeURIComponent(value));
  }
  const query = entry.params
    .filter((p) => p.in === 'query' && p.required === true)
    .map((p): [string, string] => [String(p.name), paramExample(spec, p)]);
  const rb = isObj(entry.op.requestBody) ? deref(spec, entry.op.requestBody).s : null;
  const body = rb ? mediaExample(spec, jsonMedia(spec, rb.content)) : undefined;
  return { baseUrl, path, query, body, pathParams };
}

export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, "'\\''")}'`;
}

export function curlSample(entry: Operation, input: SampleInput): string {
  const qs = input.query.length ? `?${new URLSearchParams(input.query).toString()}` : '';
  const lines = [`curl -X ${entry.method.toUpperCase()} ${shellQuote(input.baseUrl + input.path + qs)}`];
  if (entry.secured) lines.push('-H "Authorization: Bearer $AGENT_GATEWAY_TOKEN"');
  if (input.body !== undefined)
    lines.push("-H 'Content-Type: application/json'", `--data ${shellQuote(JSON.stringify(input.body, null, 2))}`);
  return lines.join(' \\\n  ');
}

/** A value as a TypeScript literal (single quotes, bare keys), continuation lines indented by `indent`. */
export function literal(value: unknown, indent = ''): string {
  const json = JSON.stringify(value, null, 2) ?? 'undefined';
  const ts = json.replace(/"((?:[^"\\]|\\.)*)"(:?)/g, (_m: string, text: string, colon: string) => {
    const plain = JSON.parse(`"${text}"`) as string;
    return (
      (colon && /^[A-Za-z_$][\w$]*$/.test(plain)
        ? plain
        : `'${plain.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n').replace(/\r/g, '\\r')}'`) + colon
    );
  });
  return ts.replace(/\n/g, `\n${indent}`);
}

/** TypeScript with agent-gateway/client; a fetch call when the operation has no operationId. */
export function clientSample(entry: Operation, input: SampleInput): string {
  const agentScoped =
    input.pathParams.length >= 2 && input.pathParams[0]?.[0] === 'agentCollectionAddress' && input.pathParams[1]?.[0] === 'agentTokenId';
  const tokenOption = entry.secured ? ', token: process.env.AGENT_GATEWAY_TOKEN' : '';
  if (!entry.operationId) {
    const qs = input.query.length ? `?${new URLSearchParams(input.query).toString()}` : '';
    const headers: string[] = [];
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the text of a TypeScript sample, not a template
    if (entry.secured) headers.push('authorization: `Bearer ${process.env.AGENT_GATEWAY_TOKEN}`');
    if (input.body !== undefined) headers.push("'content-type': 'application/json'");
    return [
      '// No operationId, so no agent-gateway/client method: plain fetch.',
      `const res = await fetch(${literal(input.baseUrl + input.path + qs)}, {`,
      `  method: '${entry.method.toUpperCase()}',`,
      headers.length ? `  headers: { ${headers.join(', ')} },` : null,
      input.body !== undefined ? `  body: JSON.stringify(${literal(input.body, '  ')}),` : null,
      '});',
      'console.log(res.status, await res.text());',
    ]
      .filter((l) => l !== null)
      .join('\n');
  }
  const args = input.pathParams.slice(agentScoped ? 2 : 0).map(([, v]) => literal(v));
  if (input.body !== undefined) args.push(literal(input.body));
  if (input.query.length) args.push(literal(Object.fromEntries(input.query)));
  const lines = [
    "import { createGatewayClient } from 'agent-gateway/client';",
    '',
    `const client = createGatewayClient({ baseUrl: ${literal(input.baseUrl)}${tokenOption} });`,
  ];
  let target = 'client';
  if (agentScoped) {
    lines.push(`const agent = client.agent(${literal(input.pathParams[0]?.[1])}, ${literal(input.pathParams[1]?.[1])});`);
    target = 'agent';
  }
  lines.push(`const result = await ${target}.${entry.operationId}(${args.join(', ')});`, 'console.log(result);');
  return lines.join('\n');
}
