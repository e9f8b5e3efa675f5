/**
 * The one seam for a reply's tools (src/replies/tool-sources/): sources gathered in order with
 * their reserved names kept from the others, an MCP tool renamed when it takes a reserved name,
 * and a memory tool's result kept within 16 KiB with each text verbatim up to its cut.
 */
import { describe, expect, it } from 'vitest';
import type { ConnectionTools } from '../../src/tool-servers/agent-tools';
import { nameTools } from '../../src/replies/tool-sources/mcp';
import { fitResult, MAX_MEMORY_RESULT_BYTES } from '../../src/replies/tool-sources/memory';
import { gatherTools, type SourcedTool, type ToolSource } from '../../src/replies/tool-sources/source';

const builtIn = (name: string): SourcedTool => ({
  name,
  inputSchema: { type: 'object' },
  connectionId: null,
  call: async () => ({ text: name, isError: false }),
});

const connection = (name: string, tools: string[]) =>
  ({
    connectionId: `id-${name}`,
    name,
    tools: tools.map((t) => ({ name: t, inputSchema: { type: 'object' } })),
  }) as unknown as ConnectionTools;

describe('gatherTools', () => {
  it("keeps the sources' order and withholds each source's reserved names from the others", () => {
    const seen: string[][] = [];
    const other: ToolSource = {
      reserved: [],
      tools: (taken) => {
        seen.push([...taken]);
        return [builtIn('echo')];
      },
    };
    const memory: ToolSource = { reserved: ['memory_search'], tools: () => [builtIn('memory_search')] };
    expect(gatherTools([other, memory]).map((t) => t.name)).toEqual(['echo', 'memory_search']);
    expect(seen).toEqual([['memory_search']]);
  });

  it('never gives a name twice', () => {
    const a: ToolSource = { reserved: [], tools: () => [builtIn('x')] };
    expect(gatherTools([a, a]).map((t) => t.name)).toEqual(['x']);
  });
});

describe('nameTools', () => {
  it('renames an MCP tool that takes a reserved name, as on a clash', () => {
    const named = nameTools([connection('notes', ['memory_search', 'echo'])], new Set(['memory_search', 'memory_read']));
    expect([...named.keys()]).toEqual(['notes_memory_search', 'echo']);
    expect(named.get('notes_memory_search')?.toolName).toBe('memory_search');
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
