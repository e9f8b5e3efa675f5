/**
 * The agent's MCP server answers both eras of the protocol, on the testnet worker in workerd:
 * 2026-07-28 requests without `initialize` (protocol version, client info and capabilities in each
 * request's `_meta`; `server/discover`; `Mcp-Method`/`Mcp-Name` checked against the body; `ttlMs`
 * on list results), driven raw and by the SDK's v2 client pinned to 2026-07-28, and 2025-era
 * clients with `initialize`.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { freshAgent, type TestAgent } from '../support/agent';
import { createKey } from '../support/agent-keys';
import { mcpRpc, mcpUrl } from '../support/agent-mcp';
import { deployment } from '../support/http';

const MODERN = '2026-07-28';
const CLIENT_INFO = { name: 'era-test', version: '1.0.0' };

/** The per-request envelope of a 2026-07-28 request. */
const envelope = (version = MODERN) => ({
  'io.modelcontextprotocol/protocolVersion': version,
  'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
  'io.modelcontextprotocol/clientCapabilities': {},
});

/** A 2026-07-28 request: the envelope in `_meta`, and the headers that restate the body. */
function modern(
  agent: TestAgent,
  key: string,
  id: number,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) {
  const name: Record<string, string> = typeof params.name === 'string' ? { 'mcp-name': params.name } : {};
  const message = { jsonrpc: '2.0', id, method, params: { ...params, _meta: envelope() } };
  return mcpRpc(mcpUrl(agent.deployment.baseUrl, agent), key, message, {
    'mcp-protocol-version': MODERN,
    'mcp-method': method,
    ...name,
    ...headers,
  });
}

async function keyedAgent() {
  const agent = await freshAgent(deployment('testnet'));
  const key = await createKey(agent, ['mcp']);
  return { agent, key: key.key };
}

describe('2026-07-28 requests, without initialize', () => {
  it('lists tools with ttlMs, calls a tool and answers server/discover', async () => {
    const { agent, key } = await keyedAgent();
    const listed = await modern(agent, key, 1, 'tools/list');
    expect(listed.status, listed.text).toBe(200);
    expect(listed.headers.get('mcp-session-id')).toBeNull();
    const tools = listed.body.result.tools.map((t: { name: string }) => t.name);
    expect(tools).toEqual(expect.arrayContaining(['memory_search', 'memory_read', 'memory_append']));
    expect(typeof listed.body.result.ttlMs).toBe('number');

    const appended = await modern(agent, key, 2, 'tools/call', {
      name: 'memory_append',
      arguments: { contextKey: 'era-notes', message: 'the modern era works' },
    });
    expect(appended.status, appended.text).toBe(200);
    expect(appended.body.result.isError, appended.text).toBeFalsy();
    const read = await agent.call('/context/era-notes/messages');
    expect(read.body.messages.map((m: { message: string }) => m.message)).toEqual(['the modern era works']);

    const discovered = await modern(agent, key, 3, 'server/discover');
    expect(discovered.status, discovered.text).toBe(200);
    expect(discovered.body.result.supportedVersions).toContain(MODERN);
    expect(discovered.body.result._meta['io.modelcontextprotocol/serverInfo'].name).toBe(
      `agent-gateway/${agent.collection}/${agent.tokenId}`,
    );
    expect(discovered.body.result.capabilities.tools).toBeDefined();
    expect(discovered.body.result.ttlMs).toBe(0);
  });

  it('refuses a Mcp-Method header that disagrees with the body: 400', async () => {
    const { agent, key } = await keyedAgent();
    const res = await modern(agent, key, 1, 'tools/list', {}, { 'mcp-method': 'tools/call' });
    expect(res.status, res.text).toBe(400);
    // The SDK's header/body mismatch error (-32020), as a JSON-RPC error body.
    expect(res.body.error.code).toBe(-32020);
    const named = await modern(agent, key, 2, 'tools/call', { name: 'memory_read', arguments: { contextKey: 'x' } }, { 'mcp-name': 'ask' });
    expect(named.status, named.text).toBe(400);
  });

  it('an unknown tool is a JSON-RPC error, as in the 2025 era', async () => {
    const { agent, key } = await keyedAgent();
    const res = await modern(agent, key, 1, 'tools/call', { name: 'no_such_tool', arguments: {} });
    expect(res.status, res.text).toBe(200);
    expect(res.body.error.code).toBe(-32602);
  });

  it('the SDK v2 client pinned to 2026-07-28 lists and calls tools', async () => {
    const { agent, key } = await keyedAgent();
    const transport = new StreamableHTTPClientTransport(mcpUrl(agent.deployment.baseUrl, agent), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    });
    const client = new Client(CLIENT_INFO, { versionNegotiation: { mode: { pin: MODERN } } });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()?.name).toBe(`agent-gateway/${agent.collection}/${agent.tokenId}`);
      const listed = await client.listTools();
      expect(listed.tools.map((t) => t.name)).toContain('memory_append');
      const result = await client.callTool({ name: 'memory_append', arguments: { contextKey: 'v2-client', message: 'pinned' } });
      expect(result.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });
});

describe('2025-era clients, with initialize', () => {
  it.each(['2025-11-25', '2025-06-18'])('initialize at %s negotiates that revision, then tools/list', async (version) => {
    const { agent, key } = await keyedAgent();
    const url = mcpUrl(agent.deployment.baseUrl, agent);
    const init = await mcpRpc(url, key, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: version, capabilities: {}, clientInfo: CLIENT_INFO },
    });
    expect(init.status, init.text).toBe(200);
    expect(init.body.result.protocolVersion).toBe(version);
    expect(init.headers.get('mcp-session-id')).toBeNull();
    const listed = await mcpRpc(url, key, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-protocol-version': version });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.result.tools.length).toBeGreaterThan(0);
    // The 2025 era's list results carry no cache fields.
    expect(listed.body.result.ttlMs).toBeUndefined();
  });
});
