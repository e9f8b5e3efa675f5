/**
 * Tools keep MCP's shape through the gateway: every field of a tool (title, annotations,
 * outputSchema, execution, icons, _meta; description optional) is stored and shown, each within its
 * cap; `structuredContent` is checked against `outputSchema` (502 `tool_output_invalid`), and
 * content items outside MCP's content union are 502 `tool_server_error`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freshAgent, type TestAgent } from '../support/agent';
import { call, deployment, expectError, type JsonResponse } from '../support/http';
import { agentPath } from '../support/login';
import { toolServerUrl, workerWithToolServers } from '../support/tool-routing';

const stack = inject('stack');
const testnet = deployment('testnet');

const WEATHER = {
  name: 'weather',
  title: 'Weather now',
  inputSchema: { type: 'object', properties: { mode: { type: 'string' } } },
  outputSchema: { type: 'object', properties: { celsius: { type: 'number' } }, required: ['celsius'] },
  annotations: { title: 'Weather', readOnlyHint: true, openWorldHint: true },
  execution: { taskSupport: 'forbidden' },
  icons: [{ src: 'https://example.com/sun.png', mimeType: 'image/png', sizes: ['48x48'] }],
  _meta: { 'example.com/team': 'forecasts' },
};
const MEDIA = { name: 'media', description: 'Returns every kind of content', inputSchema: { type: 'object' } };

const CONTENT = [
  { type: 'text', text: 'sunny' },
  { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
  { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
  { type: 'resource_link', uri: 'https://example.com/forecast', name: 'forecast' },
  { type: 'resource', resource: { uri: 'file:///notes.txt', mimeType: 'text/plain', text: 'notes' } },
];

/** Plain JSON-RPC; the listed tools are `tools` (switchable); `weather` answers by its `mode` argument. */
let tools: unknown[] = [WEATHER, MEDIA];
const server = createServer((req, res) => {
  let raw = '';
  req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
  req.on('end', () => {
    const body = JSON.parse(raw) as { id: number; method: string; params?: { name?: string; arguments?: { mode?: string } } };
    const reply = (result: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: body.id, result }));
    };
    if (body.method === 'tools/list') return reply({ tools });
    if (body.params?.name === 'media') return reply({ content: CONTENT });
    const mode = body.params?.arguments?.mode;
    const text = [{ type: 'text', text: 'ok' }];
    if (mode === 'good') return reply({ content: text, structuredContent: { celsius: 21 } });
    if (mode === 'wrong') return reply({ content: text, structuredContent: { celsius: 'warm' } });
    if (mode === 'missing') return reply({ content: text });
    if (mode === 'error') return reply({ content: [{ type: 'text', text: 'no sensor' }], isError: true });
    return reply({ content: [{ type: 'hologram', beam: 1 }] });
  });
});

let worker: Awaited<ReturnType<typeof workerWithToolServers>>;
let url: string;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = toolServerUrl('shapes', `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
  worker = await workerWithToolServers(stack, { shapes: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp` });
});

afterAll(async () => {
  await worker?.dispose();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function mcp<T = any>(who: TestAgent, rest: string, init: Parameters<typeof call>[2] = {}): Promise<JsonResponse<T>> {
  return call<T>(worker.url, agentPath(who.collection, who.tokenId, rest), { token: who.token, ...init });
}

async function register(): Promise<{ who: TestAgent; res: JsonResponse<any> }> {
  const who = await freshAgent(testnet);
  const res = await mcp(who, '/mcp/connection', { method: 'POST', json: { url, auth: { type: 'none' } } });
  return { who, res };
}

describe("MCP's tool shape", () => {
  it('keeps every field in the snapshot and the API; description stays optional', async () => {
    tools = [WEATHER, MEDIA];
    const { who, res } = await register();
    expect(res.status, res.text).toBe(200);
    const { inputSchema: _i, outputSchema: _o, icons: _c, _meta: _m, ...summary } = WEATHER;
    expect(res.body.tools).toEqual([summary, { name: 'media', description: MEDIA.description }]);
    const live = await mcp(who, `/mcp/connection/${res.body.id}/tools`);
    expect(live.status, live.text).toBe(200);
    expect(live.body.tools).toEqual([WEATHER, MEDIA]);
  });

  it.each([
    ['a title over 200 characters', { ...WEATHER, title: 't'.repeat(201) }, 'title is longer than 200'],
    ['an invalid outputSchema', { ...WEATHER, outputSchema: { type: 'strin' } }, 'outputSchema is not valid JSON Schema'],
    ['annotations over 2 KiB', { ...WEATHER, annotations: { title: 'a'.repeat(3000) } }, 'annotations are over'],
    ['a hint that is not a boolean', { ...WEATHER, annotations: { readOnlyHint: 'yes' } }, 'annotations.readOnlyHint'],
    ['an unknown taskSupport', { ...WEATHER, execution: { taskSupport: 'sometimes' } }, 'execution.taskSupport'],
    ['_meta over 4 KiB', { ...WEATHER, _meta: { x: 'm'.repeat(5000) } }, '_meta is over'],
  ])('refuses %s with 400 invalid_tool_schema', async (_, tool, problem) => {
    tools = [tool];
    const { res } = await register();
    expectError(res, 400, 'invalid_tool_schema');
    expect(res.body.error.details.problem).toContain(problem);
  });
});

describe('tool results', () => {
  async function weather(): Promise<{ who: TestAgent; id: string }> {
    tools = [WEATHER, MEDIA];
    const { who, res } = await register();
    expect(res.status, res.text).toBe(200);
    return { who, id: res.body.id as string };
  }
  const run = (who: TestAgent, id: string, name: string, args: Record<string, unknown> = {}) =>
    mcp(who, `/mcp/connection/${id}/tools/call`, { method: 'POST', json: { name, arguments: args } });

  it('passes every member of the content union through', async () => {
    const { who, id } = await weather();
    const res = await run(who, id, 'media');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ content: CONTENT });
  });

  it('answers structuredContent that matches the outputSchema', async () => {
    const { who, id } = await weather();
    const res = await run(who, id, 'weather', { mode: 'good' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.structuredContent).toEqual({ celsius: 21 });
  });

  it.each([
    ['does not match', 'wrong'],
    ['is missing', 'missing'],
  ])('502 tool_output_invalid when structuredContent %s', async (_, mode) => {
    const { who, id } = await weather();
    const res = await run(who, id, 'weather', { mode });
    expectError(res, 502, 'tool_output_invalid');
    expect(res.body.error.details.problems.length).toBeGreaterThan(0);
  });

  it('a result with isError: true is not held to the outputSchema', async () => {
    const { who, id } = await weather();
    const res = await run(who, id, 'weather', { mode: 'error' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.isError).toBe(true);
  });

  it("502 tool_server_error for a content item outside MCP's union", async () => {
    const { who, id } = await weather();
    expectError(await run(who, id, 'weather', { mode: 'alien' }), 502, 'tool_server_error');
  });
});
