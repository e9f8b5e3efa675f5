/**
 * The tools the agent's MCP server offers one caller (DESIGN §14): `ask`, the memory tools and the
 * agent's own MCP tools, narrowed to the caller's allowlist (an agent key's `tools`). A tool outside
 * it is neither listed nor callable: it is not in the catalog at all.
 */
import type { Agent } from '../identity/agent';
import { agentTools, type ConnectionTools, usableBy } from '../tool-servers/agent-tools';
import { MEMORY_READ, MEMORY_SEARCH } from '../replies/tool-sources/memory';
import type { ReplyDeps } from '../replies/reply.service';
import type { McpCaller, ServedTool } from './served-tool';
import { ASK, askTool } from './tools/ask';
import { MEMORY_APPEND, memoryAppendTool, memoryReadTools } from './tools/memory';
import { proxiedTools } from './tools/proxied';

/** Names the built-in tools take: an MCP tool of the same name is renamed (as on a clash). */
export const BUILT_IN_TOOLS: ReadonlySet<string> = new Set([ASK, MEMORY_SEARCH, MEMORY_READ, MEMORY_APPEND]);

/**
 * The caller's tools, by name, in listing order; call after the owner check. `snapshot`: the
 * agent's connections (their tools as registered, no network), already being read (started while
 * the owner check was on its way); read here when absent.
 */
export async function toolCatalog(
  deps: ReplyDeps,
  agent: Agent,
  caller: McpCaller,
  snapshot?: Promise<ConnectionTools[]>,
): Promise<Map<string, ServedTool>> {
  const allowed = (name: string) => caller.allowedTools === null || caller.allowedTools.includes(name);
  // `ask`'s reply offers the memory tools only to a caller that may use both of them here.
  const mayReadMemory = allowed(MEMORY_SEARCH) && allowed(MEMORY_READ);
  const builtIn = [askTool(deps, agent, caller, mayReadMemory), ...memoryReadTools(deps.store, agent), memoryAppendTool(deps.store, agent)];
  // The tools of the connections' registration snapshots: only when a listed tool could be one of them.
  const wantsMcpTools = caller.allowedTools === null || caller.allowedTools.some((name) => !BUILT_IN_TOOLS.has(name));
  const connections = wantsMcpTools ? usableBy(await (snapshot ?? agentTools(deps.mcp, agent)), agent.owner) : [];
  const all = [...builtIn, ...proxiedTools(deps.mcp, agent, connections, BUILT_IN_TOOLS)];
  return new Map(all.filter((t) => allowed(t.definition.name)).map((t) => [t.definition.name, t]));
}
