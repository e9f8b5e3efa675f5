/**
 * One acceptance rule (src/tool-servers/tool-rules.ts), two sides that can never disagree: the gateway's
 * registration check (`checkToolServer`, what POST …/mcp/connection runs, and its URL rule under
 * the policy in force) and `agent-gateway mcp check`, run here over the same cases.
 */
import { describe, expect, it } from 'vitest';
import { runMcpCheck } from '../../src/cli/mcp-check';
import { checkToolServer, createMcpClient } from '../../src/tool-servers/client';
import { canonicalToolServerUrl } from '../../src/tool-servers/url';

const SCHEMA = { type: 'object', properties: { q: { type: 'string' } } };

/** A tool server (as a fetch function) that lists `tools` and answers calls with a text. */
function serverListing(tools: unknown[]): typeof fetch {
  return async (_input, init) => {
    const body = JSON.parse(String(init?.body)) as { id: number; method: string };
    const result = body.method === 'tools/list' ? { tools } : { content: [{ type: 'text', text: 'ok' }] };
    return new Response(JSON.stringify({ jsonrpc: '2.0', id: body.id, result }), { headers: { 'content-type': 'application/json' } });
  };
}

const TOOL_CASES: [string, unknown[], boolean][] = [
  ['a tool without a description', [{ name: 'quiet', inputSchema: SCHEMA }], true],
  [
    'every field of the MCP tool shape',
    [
      {
        name: 'full',
        title: 'Full',
        description: 'd',
        inputSchema: SCHEMA,
        outputSchema: SCHEMA,
        annotations: { readOnlyHint: true },
        execution: { taskSupport: 'optional' },
        icons: [{ src: 'https://e.example/i.png' }],
        _meta: { a: 1 },
      },
    ],
    true,
  ],
  [
    'a duplicate name',
    [
      { name: 'a', inputSchema: SCHEMA },
      { name: 'a', inputSchema: SCHEMA },
    ],
    false,
  ],
  ['an input schema with a typo', [{ name: 't', inputSchema: { type: 'object', properties: { n: { type: 'integr' } } } }], false],
  ['an input schema that is not an object', [{ name: 's', inputSchema: { type: 'string' } }], false],
  ['an invalid output schema', [{ name: 'o', inputSchema: SCHEMA, outputSchema: { type: 'strin' } }], false],
  ['a title over 200 characters', [{ name: 'l', title: 'x'.repeat(201), inputSchema: SCHEMA }], false],
  ['a description over 16384 characters', [{ name: 'd', description: 'x'.repeat(16_385), inputSchema: SCHEMA }], false],
  ['a non-boolean hint', [{ name: 'h', inputSchema: SCHEMA, annotations: { destructiveHint: 'no' } }], false],
  ['an unknown taskSupport', [{ name: 'e', inputSchema: SCHEMA, execution: { taskSupport: 'maybe' } }], false],
  ['nine icons', [{ name: 'i', inputSchema: SCHEMA, icons: Array.from({ length: 9 }, () => ({ src: 'https://e.example/i.png' })) }], false],
  ['a _meta over 4 KiB', [{ name: 'm', inputSchema: SCHEMA, _meta: { x: 'y'.repeat(5000) } }], false],
  ['201 tools', Array.from({ length: 201 }, (_, i) => ({ name: `t${i}`, inputSchema: SCHEMA })), false],
];

async function gatewayAccepts(tools: unknown[]): Promise<boolean> {
  const client = createMcpClient({ url: 'https://tools.example.com/mcp', auth: { type: 'none' }, fetch: serverListing(tools) });
  const checked = await checkToolServer(client);
  // Registration's next step: the snapshot limits (200 tools, 512 KiB).
  return checked.ok && checked.tools.length <= 200;
}

async function mcpCheck(url: string, tools: unknown[]) {
  const lines: string[] = [];
  const result = await runMcpCheck({ url, headers: {}, log: (line) => lines.push(line), fetch: serverListing(tools) });
  return { result, output: lines.join('\n') };
}

describe('tool acceptance: the gateway and mcp check agree', () => {
  it.each(TOOL_CASES)('%s', async (_, tools, accepted) => {
    expect(await gatewayAccepts(tools)).toBe(accepted);
    const { result, output } = await mcpCheck('https://tools.example.com/mcp', tools);
    const definitions = result.checks.find((c) => c.name === 'tool definitions');
    expect(definitions?.ok, output).toBe(accepted);
  });
});

const URL_CASES: [string, { deployed: boolean; local: boolean }][] = [
  ['https://tools.example.com/mcp', { deployed: true, local: true }],
  ['http://127.0.0.1:8787/mcp', { deployed: false, local: true }],
  ['http://localhost:8787/mcp', { deployed: false, local: true }],
  ['http://tools.example.com/mcp', { deployed: false, local: false }],
  ['https://10.0.0.5/mcp', { deployed: false, local: false }],
  ['https://user:pw@tools.example.com/mcp', { deployed: false, local: false }],
  ['https://metadata.google.internal/mcp', { deployed: false, local: false }],
];

describe('URL acceptance: the gateway and mcp check agree', () => {
  it.each(URL_CASES)('%s', async (url, expected) => {
    expect(canonicalToolServerUrl(url, { loopbackTargets: false }).ok).toBe(expected.deployed);
    expect(canonicalToolServerUrl(url, { loopbackTargets: true }).ok).toBe(expected.local);
    const { result, output } = await mcpCheck(url, [{ name: 'ok', inputSchema: SCHEMA }]);
    const urlCheck = result.checks.find((c) => c.name === 'URL');
    // Refused by every gateway: a failing URL check. Accepted by the local stack only: a note saying so.
    expect(urlCheck === undefined, output).toBe(expected.local);
    expect(result.ok, output).toBe(expected.local);
    expect(output.includes('the local stack (npm run dev, DEV_LOOPBACK_TARGETS=1) registers it'), output).toBe(
      expected.local && !expected.deployed,
    );
    expect(output).not.toContain('https:// URLs only');
  });
});
