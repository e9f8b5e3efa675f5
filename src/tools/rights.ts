/**
 * What a caller may be offered beyond reaching a surface, and who may: the rights the tools need,
 * derived from the credential in one place. The owner has every right. An agent key's scopes give
 * them per surface: inside a reply `contexts:read` reads memory and `contexts:write` writes it; on
 * the agent's MCP server the scope `mcp` (which the route requires) is alone enough for every tool
 * there, narrowed only by the key's tool allowlist. A delegate or a renter the owner lets `use` the
 * agent (not administer it) is not offered the tool servers' tools directly on the MCP server: only
 * `ask` and the memory tools (a reply, where the model sits between, still has them).
 */
import type { KeyScope } from '../identity/key-scopes';

/** Where a tool is offered: the model's tools inside a reply, or the agent's MCP server's `tools/list`. */
export type Surface = 'reply' | 'server';

/** `tool-servers:direct`: calling a tool server's tool on the agent's MCP server, with no model between. */
export type ToolRight = 'memory:read' | 'memory:write' | 'tool-servers:direct';

export type ToolRights = ReadonlySet<ToolRight>;

export const ALL_RIGHTS: ToolRights = new Set<ToolRight>(['memory:read', 'memory:write', 'tool-servers:direct']);

/**
 * The rights of a caller on a surface: `scopes` null for a wallet's token, an agent key's scopes
 * otherwise; `guest` the owner's leave for a delegate or a renter (undefined: the owner, or a key the
 * owner made).
 */
export function callerRights(scopes: readonly string[] | null, surface: Surface, guest?: 'none' | 'use' | 'admin'): ToolRights {
  const rights = keyRights(scopes, surface);
  return guest === undefined || guest === 'admin' ? rights : withoutRight(rights, 'tool-servers:direct');
}

function keyRights(scopes: readonly string[] | null, surface: Surface): ToolRights {
  if (scopes === null) return ALL_RIGHTS;
  const has = (scope: KeyScope) => scopes.includes(scope);
  if (surface === 'server' && has('mcp')) return ALL_RIGHTS;
  const rights = new Set<ToolRight>(['tool-servers:direct']);
  if (has('contexts:read')) rights.add('memory:read');
  if (has('contexts:write')) rights.add('memory:write');
  return rights;
}

/** `rights` without `right`. */
export function withoutRight(rights: ToolRights, right: ToolRight): ToolRights {
  return new Set([...rights].filter((r) => r !== right));
}
