/**
 * The agent as an MCP server, driven by the MCP SDK's own client against the worker
 * in workerd: the stand-in model behind `https://llm.tools.example`, a real tool server behind
 * `https://tools.tools.example` that counts its calls and the credentials it is sent.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type StandinLlm, startStandinLlm } from '../../scripts/lib/standin-llm';
import { freshAgent, seg, type TestAgent } from '../support/agent';
import { createKey, eventually } from '../support/agent-keys';
import { connectMcp, mcpRpc, mcpUrl as agentMcpUrl, resultText } from '../support/agent-mcp';
import { newWallet, transferFreshAgent } from '../support/chain';
import { call, expectError } from '../support/http';
import { login } from '../support/login';
import { replyAgent, replyWorker, startSwitchableTools } from '../support/replies';
import { toolServerUrl } from '../support/tool-routing';

const stack = inject('stack');
const API_KEY = `sk-standin-${crypto.randomUUID()}`;
const TOOL_SECRET = `tool-secret-${crypto.randomUUID()}`;
let llm: StandinLlm;
let tools: Awaited<ReturnType<typeof startSwitchableTools>>;
let worker: Awaited<ReturnType<typeof replyWorker>>;

beforeAll(async () => {
  [llm, tools] = await Promise.all([
    startStandinLlm({ apiKey: API_KEY }),
    startSwitchableTools({ title: 'Echo it', annotations: { readOnlyHint: true, openWorldHint: false } }),
  ]);
  worker = await replyWorker(stack, llm, { tools: tools.url });
});

afterAll(async () => {
  await worker?.dispose();
  await Promise.all([llm?.close(), tools?.close()]);
});

const mcpUrl = (agent: TestAgent) => agentMcpUrl(worker.url, agent);
const connect = (agent: TestAgent, credential: string) => connectMcp(mcpUrl(agent), credential);
const rpc = (agent: TestAgent, credential: string | undefined, message: unknown, headers: Record<string, string> = {}) =>
  mcpRpc(mcpUrl(agent), credential, message, headers);
const text = resultText;

/** An agent with LLM settings on the stand-in and the echo tool server (behind a bearer credential). */
async function mcpAgent() {
  const agent = await replyAgent(worker.deployment, API_KEY);
  const reg = await agent.call('/mcp/connection', {
    method: 'POST',
    json: { url: toolServerUrl('tools', tools.url), auth: { type: 'bearer', value: TOOL_SECRET } },
  });
  expect(reg.status, reg.text).toBe(200);
  return agent;
}

describe('the agent as an MCP server, with the SDK client', () => {
  it('initializes at 2025-11-25 without a session, lists every tool, and calls each of them', async () => {
    const agent = await mcpAgent();
    const key = await createKey(agent, ['mcp'], { name: 'claude desktop' });
    const { client, transport } = await connect(agent, key.key);
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    expect(client.getServerVersion()?.name).toBe(`agent-gateway/${agent.collection}/${agent.tokenId}`);
    expect(transport.sessionId).toBeUndefined();

    const listed = await client.listTools();
    const byName = new Map(listed.tools.map((t) => [t.name, t]));
    // One catalog for both surfaces, in its sources' order: the agent's tool servers, memory, then `ask`.
    expect([...byName.keys()]).toEqual(['echo', 'memory_search', 'memory_read', 'memory_append', 'ask']);
    expect(byName.get('memory_search')?.annotations?.readOnlyHint).toBe(true);
    expect(byName.get('memory_read')?.annotations?.readOnlyHint).toBe(true);
    // The agent's own tool: its title and annotations kept.
    expect(byName.get('echo')?.title).toBe('Echo it');
    expect(byName.get('echo')?.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });

    // memory_append creates the missing context; search and read find the message.
    const appended = await client.callTool({
      name: 'memory_append',
      arguments: { contextKey: 'notes', message: 'invoice INV-2024-0042 is paid' },
    });
    expect(appended.isError, text(appended)).toBeFalsy();
    expect(JSON.parse(text(appended))).toMatchObject({ contextKey: 'notes', messages: [{ role: 'user' }] });
    const found = await client.callTool({ name: 'memory_search', arguments: { query: 'INV-2024-0042' } });
    expect(found.isError, text(found)).toBeFalsy();
    expect(JSON.parse(text(found)).hits.map((h: { message: string }) => h.message)).toEqual(['invoice INV-2024-0042 is paid']);
    const read = await client.callTool({ name: 'memory_read', arguments: { contextKey: 'notes' } });
    expect(JSON.parse(text(read)).messages.map((m: { message: string }) => m.message)).toEqual(['invoice INV-2024-0042 is paid']);

    // The agent's tool, called with the owner's credential from the vault, never the caller's key.
    const before = tools.state.calls;
    tools.state.authorizations.length = 0;
    const echoed = await client.callTool({ name: 'echo', arguments: { text: 'over mcp' } });
    expect(echoed.isError, text(echoed)).toBeFalsy();
    expect(text(echoed)).toBe('echo: over mcp');
    expect(tools.state.calls).toBe(before + 1);
    expect(tools.state.authorizations.every((a) => a === `Bearer ${TOOL_SECRET}`)).toBe(true);
    expect(JSON.stringify(echoed)).not.toContain(TOOL_SECRET);

    // ask: a reply in the key's own context, created on first use, with the agent's tools.
    const asked = await client.callTool({ name: 'ask', arguments: { message: 'please use tool echo from ask' } });
    expect(asked.isError, text(asked)).toBeFalsy();
    expect(text(asked)).toContain('stand-in model');
    expect(asked.structuredContent).toMatchObject({ contextKey: `mcp/${key.id}`, finishReason: 'stop' });
    const stored = await agent.call(`/context/${seg(`mcp/${key.id}`)}/messages`);
    expect(stored.status, stored.text).toBe(200);
    expect(stored.body.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant']);
    // Its model calls are counted for the key, as a reply's are.
    const usage = await agent.call('/usage?groupBy=credential');
    expect(usage.status, usage.text).toBe(200);
    const forKey = usage.body.groups.find((g: { credential?: string }) => g.credential === `key:${key.id}`);
    expect(forKey?.modelCalls, usage.text).toBeGreaterThanOrEqual(2);

    // ask with progress asked for: answered as server-sent events, the reply's steps as progress, then the result.
    const progress: string[] = [];
    const streamed = await client.callTool({ name: 'ask', arguments: { message: 'please use tool echo streamed' } }, undefined, {
      onprogress: (p) => progress.push(p.message ?? ''),
    });
    expect(streamed.isError, text(streamed)).toBeFalsy();
    expect(progress[0]).toBe('calling echo');
    expect(progress).toContain('echo answered');
    expect(progress.slice(2).join('')).toBe(text(streamed));
    const raw = await rpc(agent, key.key, {
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: { name: 'ask', arguments: { message: 'hello' }, _meta: { progressToken: 'p1' } },
    });
    expect(raw.status).toBe(200);
    expect(raw.headers.get('content-type')).toContain('text/event-stream');
    expect(raw.headers.get('mcp-session-id')).toBeNull();
    expect(raw.text).toContain('notifications/progress');
    expect(raw.text).toContain('"id":9');

    // A tool's failure is a result with isError, not an HTTP error.
    tools.state.mode = '500';
    try {
      const failed = await client.callTool({ name: 'echo', arguments: { text: 'down' } });
      expect(failed.isError).toBe(true);
      expect(text(failed)).toContain('upstream HTTP 500');
    } finally {
      tools.state.mode = 'good';
    }
    const bad = await client.callTool({ name: 'memory_append', arguments: { contextKey: 'x', message: 'too short key' } });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/^validation_failed: /);

    // Audited for the key (written after each answer): the tool-server tool and memory_append; the asks' own tool calls too.
    // The memory reads (memory_search, memory_read) are no entry.
    const expected = ['echo', 'echo', 'echo', 'echo', 'memory_append', 'memory_append'].sort();
    const toolCalls = async () => {
      const audit = await agent.call('/audit');
      expect(audit.status, audit.text).toBe(200);
      return audit.body.entries.filter((e: { action: string }) => e.action === 'tool.call') as {
        actor: { keyId?: string };
        target: { tool: string };
      }[];
    };
    await eventually(async () => (await toolCalls()).length === expected.length);
    const calls = await toolCalls();
    expect(calls.every((e) => e.actor.keyId === key.id)).toBe(true);
    expect(calls.map((e) => e.target.tool).sort()).toEqual(expected);
    await client.close();
  });

  it("answers a 2025-06-18 client's initialize, and a fresh client's tools/list and tools/call without initialize; no Mcp-Session-Id", async () => {
    const agent = await mcpAgent();
    const init = await rpc(agent, agent.token, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'old', version: '1' } },
    });
    expect(init.status, init.text).toBe(200);
    expect(init.body.result.protocolVersion).toBe('2025-06-18');
    expect(init.headers.get('mcp-session-id')).toBeNull();

    const list = await rpc(
      agent,
      agent.token,
      { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
      { 'mcp-protocol-version': '2025-06-18' },
    );
    expect(list.status, list.text).toBe(200);
    expect(list.headers.get('mcp-session-id')).toBeNull();
    expect(list.body.result.tools.map((t: { name: string }) => t.name)).toContain('echo');

    const fresh = await rpc(agent, agent.token, {
      jsonrpc: '2.0',
      id: 'a',
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'cold' } },
    });
    expect(fresh.status, fresh.text).toBe(200);
    expect(fresh.body.result.content[0].text).toBe('echo: cold');
    // A notification is accepted without a body.
    const note = await rpc(agent, agent.token, { jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(note.status).toBe(202);
    // An unknown tool is a JSON-RPC error.
    const unknown = await rpc(agent, agent.token, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'nope', arguments: {} } });
    expect(unknown.body.error.code).toBe(-32602);
  });

  it('a key allowlist filters tools/list and refuses tools/call before the model or the tool server hears of it', async () => {
    const agent = await mcpAgent();
    const narrow = await createKey(agent, ['mcp'], { name: 'search only', tools: ['memory_search', 'echo'] });
    expect(narrow.tools).toEqual(['memory_search', 'echo']);
    const { client } = await connect(agent, narrow.key);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo', 'memory_search']);
    const completions = llm.completions().length;
    await expect(client.callTool({ name: 'ask', arguments: { message: 'please use tool echo hi' } })).rejects.toThrow(/Unknown tool: ask/);
    expect(llm.completions().length).toBe(completions);
    await client.close();

    const askOnly = await createKey(agent, ['mcp'], { name: 'ask only', tools: ['ask'] });
    const raw = await rpc(agent, askOnly.key, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(raw.body.result.tools.map((t: { name: string }) => t.name)).toEqual(['ask']);
    const calls = tools.state.calls;
    const refused = await rpc(agent, askOnly.key, {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'x' } },
    });
    expect(refused.status).toBe(200);
    expect(refused.body.error.code).toBe(-32602);
    expect(tools.state.calls).toBe(calls);

    // Nor through ask: the model is offered only the tools the key may call, and the key converses
    // in its own contexts (another context's history would reach it through the answer).
    const before = llm.completions().length;
    const asked = await rpc(agent, askOnly.key, {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'ask', arguments: { message: 'please use tool echo hi' } },
    });
    expect(asked.status, asked.text).toBe(200);
    expect(asked.body.result.isError, asked.text).toBeFalsy();
    const offered = llm
      .completions()
      .slice(before)
      .flatMap((r) => (r.body.tools ?? []).map((t) => t.function.name));
    expect(offered).toEqual([]);
    expect(tools.state.calls).toBe(calls);
    const elsewhere = await rpc(agent, askOnly.key, {
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/call',
      params: { name: 'ask', arguments: { message: 'what was said here?', contextKey: 'notes' } },
    });
    expect(elsewhere.body.result.isError).toBe(true);
    expect(elsewhere.body.result.content[0].text).toMatch(/^validation_failed: contextKey/);
    const own = await rpc(agent, askOnly.key, {
      jsonrpc: '2.0',
      id: 5,
      method: 'tools/call',
      params: { name: 'ask', arguments: { message: 'hello', contextKey: `mcp/${askOnly.id}/side` } },
    });
    expect(own.body.result.isError, own.text).toBeFalsy();

    // The allowlist belongs to the scope mcp.
    const withoutMcp = await agent.call('/keys', { method: 'POST', json: { name: 'x', scopes: ['reply'], tools: ['ask'] } });
    expectError(withoutMcp, 400, 'validation_failed');
  });

  it('an MCP path naming no agent: 401 without a challenge built from its text, an OAuth-shaped token 401, never 500', async () => {
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    const wallet = `0x${'a'.repeat(40)}`;
    for (const collection of ['x%22%2C%20error%3D%22y', 'x%0D%0ASet-Cookie%3A%20a%3Db', 'x%20y']) {
      const path = `/agent/${collection}/1/mcp`;
      const none = await call(worker.url, path, { method: 'POST', json: body, headers: { accept: 'application/json, text/event-stream' } });
      expect(none.status, `${path}: ${none.text}`).toBe(401);
      expect(none.headers.get('www-authenticate') ?? '').not.toContain('resource_metadata');
      expect(none.headers.get('set-cookie')).toBeNull();
      const token = `${wallet}.${wallet}.1:grant:secret`;
      const oauthShaped = await call(worker.url, path, {
        method: 'POST',
        json: body,
        token,
        headers: { accept: 'application/json, text/event-stream' },
      });
      expect(oauthShaped.status, `${path}: ${oauthShaped.text}`).toBe(401);
    }
  });

  it('refuses: no credential 401 with the resource metadata, a stranger 403, a key without mcp 403, a wrong Accept 406, GET and DELETE 405', async () => {
    const agent = await freshAgent(worker.deployment);
    const url = mcpUrl(agent);
    const none = await rpc(agent, undefined, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expectError(none, 401, 'unauthorized');
    expect(none.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${url.origin}/.well-known/oauth-protected-resource${url.pathname}"`,
    );
    const badKey = await rpc(agent, 'agk_0000000000000000000000000000000000', { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(badKey.status).toBe(401);
    expect(badKey.headers.get('www-authenticate')).toContain('resource_metadata=');

    const stranger = await login(worker.deployment, newWallet());
    expectError(await rpc(agent, stranger, { jsonrpc: '2.0', id: 1, method: 'tools/list' }), 403, 'not_owner');
    const reader = await createKey(agent, ['contexts:read', 'reply']);
    expectError(await rpc(agent, reader.key, { jsonrpc: '2.0', id: 1, method: 'tools/list' }), 403, 'key_scope_missing');

    expectError(
      await rpc(agent, agent.token, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { accept: 'application/json' }),
      406,
      'not_acceptable',
    );
    const get = await call(worker.url, url.pathname, { token: agent.token, headers: { accept: 'text/event-stream' } });
    expectError(get, 405, 'method_not_allowed');
    expect(get.headers.get('allow')).toBe('POST');
    expectError(await call(worker.url, url.pathname, { method: 'DELETE', token: agent.token }), 405, 'method_not_allowed');
  });

  it("after a transfer the seller's mcp key is refused (403, then 401 once revoked on sight), and the seller's token 403", async () => {
    const agent = await freshAgent(worker.deployment);
    const key = await createKey(agent, ['mcp']);
    expect((await rpc(agent, key.key, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status).toBe(200);
    await transferFreshAgent(worker.deployment, agent.owner, newWallet().address, agent.tokenId);
    expectError(await rpc(agent, key.key, { jsonrpc: '2.0', id: 1, method: 'tools/list' }), 403, 'not_owner');
    expectError(await rpc(agent, agent.token, { jsonrpc: '2.0', id: 1, method: 'tools/list' }), 403, 'not_owner');
    await eventually(async () => (await rpc(agent, key.key, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status === 401);
    const revoked = await rpc(agent, key.key, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expectError(revoked, 401, 'key_revoked');
    expect(revoked.headers.get('www-authenticate')).toContain('resource_metadata=');
  });
});
