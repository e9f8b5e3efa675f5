/**
 * The one tool seam (src/tools/): one catalog for both surfaces, with the sources' reserved names
 * kept from each other on every surface (a tool-server tool named `ask` or `memory_append` is
 * `<connection>_<name>` in a reply too), each tool offered only on its surfaces, with the caller's
 * rights and allowlist (by source and own name, never by offered name) applied in that one place; and a memory tool's result within 16 KiB with
 * each text verbatim up to its cut.
 */
import { describe, expect, it } from 'vitest';
import type { Agent } from '../../src/identity/agent';
import type { ConnectionTools } from '../../src/tool-servers/agent-tools';
import { toolCatalog } from '../../src/tools/catalog';
import { fitResult, MAX_MEMORY_RESULT_BYTES } from '../../src/tools/memory-result';
import { ALL_RIGHTS, callerRights } from '../../src/tools/rights';
import type { Conversation, ToolCaller, ToolEnv, ToolSource } from '../../src/tools/source';
import { nameTools } from '../../src/tools/tool-servers';
import { type AgentTool, type Surface, textOutcome } from '../../src/tools/tool';
import { MAX_TOOL_ENTRY_CHARS, parseToolEntry, toolEntryProblem } from '../../src/tools/tool-entry';

const agent: Agent = {
  chainId: 31337,
  collection: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  tokenId: 7n,
  kind: 'internal',
  owner: '0x70997970C51812dc3A010C7d01b50e720d7c79C8',
};

const builtIn = (name: string, surfaces: readonly Surface[] = ['reply', 'server']): AgentTool => ({
  name,
  realName: name,
  source: 'test',
  connectionId: null,
  inputSchema: { type: 'object' },
  surfaces,
  audited: true,
  call: async () => textOutcome(name),
});

const connection = (name: string, tools: string[]) =>
  ({
    connectionId: `id-${name}`,
    name,
    tools: tools.map((t) => ({ name: t, inputSchema: { type: 'object' } })),
    row: { createdByWallet: agent.owner.toLowerCase() },
    entry: null,
  }) as unknown as ConnectionTools;

const conversation: Conversation = {
  defaultContextKey: 'mcp/key',
  reply: async () => ({ text: 'hi', answer: {} }),
};

/** An environment whose connections are `connections`, counting each read of them. */
function envWith(connections: ConnectionTools[]) {
  const reads = { count: 0 };
  const env: ToolEnv = {
    agent,
    store: {} as ToolEnv['store'],
    mcp: {} as ToolEnv['mcp'],
    connections: async () => {
      reads.count++;
      return connections;
    },
    conversation,
  };
  return { env, reads };
}

const owner = (surface: Surface, allowedTools: readonly string[] | null = null): ToolCaller => ({
  surface,
  rights: ALL_RIGHTS,
  allowedTools,
});

const names = async (env: ToolEnv, caller: ToolCaller) => [...(await toolCatalog(env, caller)).keys()];

describe('toolCatalog over the sources', () => {
  it("keeps the sources' order and withholds each source's reserved names from the others", async () => {
    const seen: string[][] = [];
    const other: ToolSource = {
      reserved: [],
      tools: (_env, _caller, taken) => {
        seen.push([...taken]);
        return [builtIn('echo')];
      },
    };
    const memory: ToolSource = { reserved: ['memory_search'], tools: () => [builtIn('memory_search')] };
    const { env } = envWith([]);
    expect([...(await toolCatalog(env, owner('reply'), [other, memory])).keys()]).toEqual(['echo', 'memory_search']);
    expect(seen).toEqual([['memory_search']]);
  });

  it('never gives a name twice', async () => {
    const a: ToolSource = { reserved: [], tools: () => [builtIn('x')] };
    const { env } = envWith([]);
    expect([...(await toolCatalog(env, owner('server'), [a, a])).keys()]).toEqual(['x']);
  });

  it('lets no later tool of a name stand in for the first one the filters left out', async () => {
    const first: ToolSource = { reserved: [], tools: () => [builtIn('x', ['server'])] };
    const second: ToolSource = { reserved: [], tools: () => [{ ...builtIn('x', ['reply']), source: 'second' }] };
    const { env } = envWith([]);
    expect([...(await toolCatalog(env, owner('reply'), [first, second])).keys()]).toEqual([]);
    expect([...(await toolCatalog(env, owner('server'), [first, second])).keys()]).toEqual(['x']);
  });

  it('offers each tool on its surfaces: ask and memory_append on the MCP server only', async () => {
    const { env } = envWith([connection('notes', ['echo'])]);
    expect(await names(env, owner('server'))).toEqual(['echo', 'memory_search', 'memory_read', 'memory_append', 'ask']);
    expect(await names(env, owner('reply'))).toEqual(['echo', 'memory_search', 'memory_read']);
  });

  it('renames a tool-server tool that takes a built-in name the same way on both surfaces', async () => {
    const { env } = envWith([connection('notes', ['ask', 'memory_append', 'memory_read', 'echo'])]);
    const renamed = ['notes_ask', 'notes_memory_append', 'notes_memory_read', 'echo'];
    expect(await names(env, owner('reply'))).toEqual([...renamed, 'memory_search', 'memory_read']);
    const server = await toolCatalog(env, owner('server'));
    expect([...server.keys()]).toEqual([...renamed, 'memory_search', 'memory_read', 'memory_append', 'ask']);
    expect(server.get('notes_ask')).toMatchObject({ realName: 'ask', source: 'tool-servers', connectionId: 'id-notes' });
    expect(server.get('ask')).toMatchObject({ source: 'ask', audited: false, reportsProgress: true });
  });

  it("applies the caller's rights: a key without contexts:read gets no memory tools in a reply", async () => {
    const { env } = envWith([connection('notes', ['echo'])]);
    const replyOnly = { surface: 'reply' as const, rights: callerRights(['reply'], 'reply'), allowedTools: null };
    expect(await names(env, replyOnly)).toEqual(['echo']);
    const reader = { surface: 'reply' as const, rights: callerRights(['reply', 'contexts:read'], 'reply'), allowedTools: null };
    expect(await names(env, reader)).toEqual(['echo', 'memory_search', 'memory_read']);
    // On the MCP server the scope `mcp` is alone enough for every tool.
    const mcpKey = { surface: 'server' as const, rights: callerRights(['mcp'], 'server'), allowedTools: null };
    expect(await names(env, mcpKey)).toEqual(['echo', 'memory_search', 'memory_read', 'memory_append', 'ask']);
  });

  it("applies the key's allowlist by source and own name, and reads no connection when it names only built-ins", async () => {
    const { env, reads } = envWith([connection('notes', ['echo', 'ask'])]);
    // `echo` alone is the tool server's echo; `notes_ask` is an offered name, not an own name: it matches nothing.
    expect(await names(env, owner('server', ['memory_search', 'echo', 'notes_ask']))).toEqual(['echo', 'memory_search']);
    expect(reads.count).toBe(1);
    // `ask` alone is the built-in, never the tool server's `ask` (offered as notes_ask).
    expect(await names(env, owner('server', ['ask', 'memory_read']))).toEqual(['memory_read', 'ask']);
    expect(reads.count).toBe(1);
    expect(await names(env, owner('reply', ['ask', 'memory_read']))).toEqual(['memory_read']);
  });

  it("matches `<connectionId>/<name>` to that connection's tool only, whatever name it is offered under and in any order", async () => {
    const a = { ...connection('a', ['ask', 'search']), connectionId: '0b7f1f5e-5c0e-4a57-9a43-2f8d3b1c6e21' } as ConnectionTools;
    const b = { ...connection('b', ['search', 'a_search']), connectionId: '1c8f2f6e-6d1f-4b68-8b54-3f9e4c2d7f32' } as ConnectionTools;
    const entries = ['0B7F1F5E-5C0E-4A57-9A43-2F8D3B1C6E21/ask', `${b.connectionId}/search`];
    for (const order of [
      [a, b],
      [b, a],
    ]) {
      const catalog = await toolCatalog(envWith(order).env, owner('reply', entries));
      const picked = [...catalog.values()].map((t) => `${t.connectionId}/${t.realName}`).sort();
      expect(picked).toEqual([`${a.connectionId}/ask`, `${b.connectionId}/search`].sort());
      expect(catalog.has('ask')).toBe(false);
    }
    // A name alone reaches that own name on every connection; the built-in names alone reach none of them.
    const any = await toolCatalog(envWith([a, b]).env, owner('server', ['search', 'memory_append']));
    expect([...any.values()].map((t) => `${t.source}:${t.realName}`)).toEqual([
      'tool-servers:search',
      'tool-servers:search',
      'memory:memory_append',
    ]);
  });
});

describe('parseToolEntry', () => {
  it('reads a name alone or <connectionId>/<name>, and refuses anything else', () => {
    expect(parseToolEntry('ask')).toEqual({ connectionId: null, name: 'ask' });
    expect(parseToolEntry('search.v2')).toEqual({ connectionId: null, name: 'search.v2' });
    expect(parseToolEntry('0B7F1F5E-5C0E-4A57-9A43-2F8D3B1C6E21/a/b')).toEqual({
      connectionId: '0b7f1f5e-5c0e-4a57-9a43-2f8d3b1c6e21',
      name: 'a/b',
    });
    for (const bad of ['', 'notes/ask', '0b7f1f5e-5c0e-4a57-9a43-2f8d3b1c6e21/', 'a\nb', ' ask', 'x'.repeat(MAX_TOOL_ENTRY_CHARS + 1)]) {
      expect(toolEntryProblem(bad)).toEqual(expect.any(String));
    }
    expect(toolEntryProblem('x'.repeat(MAX_TOOL_ENTRY_CHARS))).toBeNull();
  });
});

describe('callerRights', () => {
  it("gives the owner every right, and a key its scopes' per surface", () => {
    const direct = 'tool-servers:direct';
    expect([...callerRights(null, 'reply')]).toEqual(['memory:read', 'memory:write', direct]);
    expect([...callerRights(['reply'], 'reply')]).toEqual([direct]);
    expect([...callerRights(['reply', 'mcp'], 'reply')]).toEqual([direct]);
    expect([...callerRights(['contexts:read', 'contexts:write'], 'reply')]).toEqual([direct, 'memory:read', 'memory:write']);
    expect([...callerRights(['mcp'], 'server')]).toEqual(['memory:read', 'memory:write', direct]);
  });

  it("keeps a delegate's or a renter's `use` from the tool servers' tools called directly; admin keeps them", () => {
    expect([...callerRights(null, 'server', 'use')]).toEqual(['memory:read', 'memory:write']);
    expect([...callerRights(['mcp'], 'server', 'use')]).toEqual(['memory:read', 'memory:write']);
    expect([...callerRights(null, 'server', 'admin')]).toContain('tool-servers:direct');
  });
});

describe('nameTools', () => {
  it('renames a tool-server tool that takes a reserved name, as on a clash', () => {
    const named = nameTools([connection('notes', ['memory_search', 'echo'])], new Set(['memory_search', 'memory_read']));
    expect([...named.keys()]).toEqual(['notes_memory_search', 'echo']);
    expect(named.get('notes_memory_search')?.tool.name).toBe('memory_search');
  });
});

describe('fitResult', () => {
  const bytes = (text: string) => new TextEncoder().encode(text).length;

  it('keeps whole entries while they fit, then cuts the next at its end, within 16 KiB', () => {
    const big = `${'é'.repeat(5_000)}${'𝄞'.repeat(3_000)}`;
    const json = fitResult(() => ({}), 'hits', [{ message: 'first' }, { message: big }, { message: 'never' }]);
    expect(bytes(json)).toBeLessThanOrEqual(MAX_MEMORY_RESULT_BYTES);
    expect(bytes(json)).toBeGreaterThan(MAX_MEMORY_RESULT_BYTES - 64);
    const result = JSON.parse(json) as { hits: { message: string; cut?: true }[]; truncated: boolean };
    expect(result.truncated).toBe(true);
    expect(result.hits).toHaveLength(2);
    expect(result.hits[0]).toEqual({ message: 'first' });
    expect(result.hits[1]?.cut).toBe(true);
    expect(big.startsWith(result.hits[1]!.message)).toBe(true);
    expect(result.hits[1]!.message.isWellFormed()).toBe(true);
  });

  it('leaves a result that fits as it is', () => {
    expect(JSON.parse(fitResult(() => ({ n: 1 }), 'messages', [{ message: 'a' }]))).toEqual({
      n: 1,
      messages: [{ message: 'a' }],
      truncated: false,
    });
  });
});
