/**
 * What a caller may be offered beyond reaching a surface, and who may: the rights the tools need,
 * derived from the credential in one place. The owner has every right. An agent key's scopes give
 * them per surface: inside a reply `contexts:read` reads memory and `contexts:write` writes it; on
 * the agent's MCP server the scope `mcp` (which the route requires) is alone enough for every tool
 * there, narrowed only by the key's tool allowlist.
 */
import type { KeyScope } from '../identity/key-scopes';

/** Where a tool is offered: the model's tools inside a reply, or the agent's MCP server's `tools/list`. */
export type Surface = 'reply' | 'server';

export type ToolRight = 'memory:read' | 'memory:write';

export type ToolRights = ReadonlySet<ToolRight>;

export const ALL_RIGHTS: ToolRights = new Set<ToolRight>(['memory:read', 'memory:write']);

/** The rights of a caller on a surface: `scopes` null for the owner, an agent key's scopes otherwise. */
export function callerRights(scopes: readonly string[] | null, surface: Surface): ToolRights {
  if (scopes === null) return ALL_RIGHTS;
  const has = (scope: KeyScope) => scopes.includes(scope);
  if (surface === 'server' && has('mcp')) return ALL_RIGHTS;
  const rights = new Set<ToolRight>();
  if (has('contexts:read')) rights.add('memory:read');
  if (has('contexts:write')) rights.add('memory:write');
  return rights;
}

/** `rights` without `right`. */
export function withoutRight(rights: ToolRights, right: ToolRight): ToolRights {
  return new Set([...rights].filter((r) => r !== right));
}
