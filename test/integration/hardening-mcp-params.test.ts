/**
 * Malformed `tools/call` params on the agent's MCP server (issue 33, item 11): `arguments: null`,
 * a numeric or missing `name`, arguments that are not an object are invalid params (-32602) with
 * a short message, in both eras, never -32603 "Internal error" with a validation dump.
 */
import { describe, expect, it } from 'vitest';
import { freshAgent } from '../support/agent';
import { createKey } from '../support/agent-keys';
import { mcpRpc, mcpUrl } from '../support/agent-mcp';
import { deployment } from '../support/http';

const MODERN = '2026-07-28';
const envelope = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'params-test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

const BAD_PARAMS: [string, Record<string, unknown>][] = [
  ['arguments: null', { name: 'memory_search', arguments: null }],
  ['a numeric name', { name: 42, arguments: {} }],
  ['no name', { arguments: {} }],
  ['a null name', { name: null }],
  ['arguments as an array', { name: 'memory_search', arguments: ['x'] }],
  ['arguments as a string', { name: 'memory_search', arguments: 'query' }],
];

interface RpcError {
  error?: { code: number; message: string; data?: unknown };
}

function expectInvalidParams(body: RpcError, text: string) {
  expect(body.error?.code, text).toBe(-32602);
  expect(body.error?.message.length, text).toBeLessThanOrEqual(200);
  // No raw validation dump (zod issue lists, JSON of the schema) in the answer.
  expect(text).not.toMatch(/Internal error|"expected"|"code":"invalid_type"|\\"path\\"/);
}

describe('tools/call with malformed params', () => {
  it.each(BAD_PARAMS)('a 2025-era call with %s is -32602 invalid params with a short message', async (_, params) => {
    const agent = await freshAgent(deployment('testnet'));
    const key = await createKey(agent, ['mcp']);
    const res = await mcpRpc(mcpUrl(agent.deployment.baseUrl, agent), key.key, { jsonrpc: '2.0', id: 7, method: 'tools/call', params });
    expect(res.status, res.text).toBeLessThan(500);
    expectInvalidParams(res.body as RpcError, res.text);
  });

  it.each(BAD_PARAMS)('a 2026-07-28 call with %s is -32602 invalid params with a short message', async (_, params) => {
    const agent = await freshAgent(deployment('testnet'));
    const key = await createKey(agent, ['mcp']);
    const headers: Record<string, string> = { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call' };
    if (typeof params.name === 'string') headers['mcp-name'] = params.name;
    const message = { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { ...params, _meta: envelope } };
    const res = await mcpRpc(mcpUrl(agent.deployment.baseUrl, agent), key.key, message, headers);
    expect(res.status, res.text).toBeLessThan(500);
    expectInvalidParams(res.body as RpcError, res.text);
  });

  it('a well-formed call still runs (missing arguments are an empty object)', async () => {
    const agent = await freshAgent(deployment('testnet'));
    const key = await createKey(agent, ['mcp']);
    const res = await mcpRpc(mcpUrl(agent.deployment.baseUrl, agent), key.key, {
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: { name: 'memory_read' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.text).toContain('"isError":true');
    expect(res.text).toContain('validation_failed');
  });
});
