/** Agent keys' pure parts: the key's form and hash, the route-to-scope table, the CLI's lifetime. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { expiresInSeconds, toolsOf } from '../../src/cli/keys';
import { compileKeyAccess, KEY_ROUTE_SCOPES } from '../../src/keys/scopes';
import { AGENT_KEY_PATTERN, hashAgentKey, newAgentKey } from '../../src/keys/secret';

const route = (method: string, path: string, operationId: string) => ({ type: 'route', route: { method, path, operationId } });
const AGENT = '/agent/{agentCollectionAddress}/{agentTokenId}';

describe('agent key secrets', () => {
  it('are agk_ + 32 base32 characters (160 bits), never repeating; the stored hash is the hex SHA-256 of the text', async () => {
    const keys = Array.from({ length: 200 }, newAgentKey);
    for (const key of keys) expect(key).toMatch(AGENT_KEY_PATTERN);
    expect(new Set(keys).size).toBe(keys.length);
    // Every character of the alphabet turns up: the encoding does not waste bits.
    expect(new Set(keys.join('').slice(0, 4000).replaceAll('agk_', '')).size).toBe(32);
    const key = keys[0]!;
    expect(await hashAgentKey(key)).toBe(createHash('sha256').update(key).digest('hex'));
  });
});

describe('the route-to-scope table', () => {
  const access = compileKeyAccess([
    route('get', AGENT, 'getAgent'),
    route('get', `${AGENT}/contexts/keys`, 'listContextKeys'),
    route('post', `${AGENT}/context/{contextKey}/message`, 'appendMessage'),
    route('get', `${AGENT}/context/{contextKey}/messages`, 'readMessages'),
    route('post', `${AGENT}/context/{contextKey}/messages`, 'appendMessages'),
    route('post', `${AGENT}/context/{contextKey}/reply`, 'replyToContext'),
    route('post', `${AGENT}/mcp`, 'agentMcp'),
    route('post', `${AGENT}/mcp/connection`, 'addMcpConnection'),
    route('get', `${AGENT}/keys`, 'listAgentKeys'),
    route('post', `${AGENT}/llm/settings`, 'saveLlmSettings'),
    { type: 'schema' },
  ]);
  const A = '/agent/0x5FbDB2315678afecb367f032d93F642f64180aa3/7';

  it('gives each route in the table its scope, by method and concrete path', () => {
    expect(access.scopeFor('GET', `${A}/contexts/keys`)).toBe('contexts:read');
    expect(access.scopeFor('HEAD', `${A}/contexts/keys`)).toBe('contexts:read');
    expect(access.scopeFor('GET', `${A}/context/a%2Fb/messages`)).toBe('contexts:read');
    expect(access.scopeFor('POST', `${A}/context/a%2Fb/messages`)).toBe('contexts:write');
    expect(access.scopeFor('POST', `${A}/context/k/message`)).toBe('contexts:write');
    expect(access.scopeFor('POST', `${A}/context/k/reply`)).toBe('reply');
    expect(access.scopeFor('POST', `${A}/mcp`)).toBe('mcp');
    expect(access.scopeFor('GET', `${A}/mcp`)).toBeUndefined();
    expect(access.scopeFor('POST', `${A}/mcp/connection`)).toBeUndefined();
    expect(access.scopeFor('GET', A)).toBe('any');
  });

  it('denies by default: routes outside the table, other methods, unknown paths', () => {
    expect(access.scopeFor('GET', `${A}/keys`)).toBeUndefined();
    expect(access.scopeFor('POST', `${A}/llm/settings`)).toBeUndefined();
    expect(access.scopeFor('DELETE', `${A}/contexts/keys`)).toBeUndefined();
    expect(access.scopeFor('GET', `${A}/somewhere`)).toBeUndefined();
  });

  it('names no administrative operation', () => {
    const admin = /Key$|Keys$|Llm|PromptTemplate|Database|Mcp/;
    // agentMcp is the agent's own MCP server (scope mcp), not the administration of its tool servers.
    const notAdmin = new Set(['listContextKeys', 'agentMcp']);
    expect(Object.keys(KEY_ROUTE_SCOPES).filter((id) => admin.test(id) && !notAdmin.has(id))).toEqual([]);
  });
});

describe('keys create --expires-in', () => {
  it('takes seconds or a unit s, m, h, d; nothing else', () => {
    expect(expiresInSeconds(undefined)).toBeUndefined();
    expect(expiresInSeconds('90')).toBe(90);
    expect(expiresInSeconds('15m')).toBe(900);
    expect(expiresInSeconds('12h')).toBe(43_200);
    expect(expiresInSeconds('30d')).toBe(2_592_000);
    for (const bad of ['', '0', '-5', '1.5h', '3w', 'd', '01d']) expect(() => expiresInSeconds(bad), bad).toThrow('--expires-in');
  });
});

describe('keys create --tools', () => {
  it("reads the gateway's entries (a name alone, <connectionId>/<name>) and refuses what the route would refuse", () => {
    const id = '0b7f1f5e-5c0e-4a57-9a43-2f8d3b1c6e21';
    expect(toolsOf(undefined, ['mcp'])).toBeUndefined();
    expect(toolsOf(` ask, ${id}/ask ,search.v2`, ['mcp'])).toEqual(['ask', `${id}/ask`, 'search.v2']);
    expect(() => toolsOf('notes/ask', ['mcp'])).toThrow(/<connectionId>\/<name>/);
    expect(() => toolsOf(`${id}/`, ['mcp'])).toThrow(/<connectionId>\/<name>/);
    expect(() => toolsOf('x'.repeat(238), ['mcp'])).toThrow(/1-237 characters/);
    expect(() => toolsOf(',', ['mcp'])).toThrow('--tools takes 1 to 100');
    expect(() => toolsOf('ask', ['reply'])).toThrow('--tools needs --scope mcp');
  });
});
