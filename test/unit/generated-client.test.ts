/**
 * Generated clients work against our OpenAPI document: openapi-typescript generates types from the
 * document the worker serves at /openapi.json, and a strict consumer written with openapi-fetch
 * compiles with tsc. The consumer sends `Idempotency-Key` (canonical case) in typed headers and
 * narrows a tool result's content item by `type` (MCP's content union).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../scripts/lib/openapi-document';

const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

// Inside the checkout (ignored by git), so `openapi-fetch` resolves from its node_modules.
let dir: string | undefined;
afterAll(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

const CONSUMER = `
import createClient from 'openapi-fetch';
import type { components, paths } from './schema';

const client = createClient<paths>({ baseUrl: 'https://gateway.example.org' });
const agent = { agentCollectionAddress: '0x0000000000000000000000000000000000000001', agentTokenId: '1' };

export async function appendOnce(token: string): Promise<number | undefined> {
  const { data } = await client.POST('/agent/{agentCollectionAddress}/{agentTokenId}/context/{contextKey}/message', {
    params: { path: { ...agent, contextKey: 'notes' }, header: { 'Idempotency-Key': 'import:1-2' } },
    headers: { Authorization: \`Bearer \${token}\` },
    body: { role: 'user', message: 'hello' },
  });
  return data?.id;
}

type Content = components['schemas']['McpContent'];

export function show(item: Content): string {
  switch (item.type) {
    case 'text':
      return item.text;
    case 'image':
    case 'audio':
      return \`\${item.mimeType}, \${item.data.length} base64 characters\`;
    case 'resource_link':
      return item.uri;
    case 'resource':
      return 'text' in item.resource ? item.resource.text : item.resource.blob;
    default: {
      const never: never = item;
      return never;
    }
  }
}

export async function callTool(id: string): Promise<string[]> {
  const { data, error } = await client.POST('/agent/{agentCollectionAddress}/{agentTokenId}/mcp/connection/{id}/tools/call', {
    params: { path: { ...agent, id } },
    body: { name: 'weather', arguments: { city: 'Oslo' } },
  });
  if (error !== undefined) return [error.error.code];
  return data.content.map(show);
}
`;

const TSCONFIG = {
  compilerOptions: {
    strict: true,
    noEmit: true,
    target: 'ES2022',
    module: 'ESNext',
    moduleResolution: 'Bundler',
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: true,
    lib: ['ES2022', 'DOM'],
    types: [],
  },
  files: ['consumer.ts'],
};

describe('a client generated from the OpenAPI document', () => {
  it('compiles a strict openapi-fetch consumer: typed Idempotency-Key header, content narrowed by type', async () => {
    const doc = await openApiDocument('testnet');
    const schema = astToString(await openapiTS(JSON.stringify(doc)));
    dir = await mkdtemp(join(ROOT, 'node_modules', '.generated-client-'));
    await writeFile(join(dir, 'schema.ts'), schema);
    await writeFile(join(dir, 'consumer.ts'), CONSUMER);
    await writeFile(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    const result = await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')], {
      cwd: dir,
    }).then(
      () => ({ ok: true, output: '' }),
      (err: { stdout?: string; stderr?: string }) => ({ ok: false, output: `${err.stdout ?? ''}${err.stderr ?? ''}` }),
    );
    expect(result.output).toBe('');
    expect(result.ok).toBe(true);
    // The header keeps its canonical case in the document.
    expect(schema).toContain('"Idempotency-Key"?: string');
  }, 60_000);
});
