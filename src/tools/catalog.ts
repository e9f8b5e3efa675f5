/**
 * The one catalog of the agent's tools, asked by both surfaces: a reply (src/replies/reply-prepare.ts)
 * and the agent's MCP server (src/mcp-server/agent-mcp.handlers.ts). Every source's tools, in the
 * sources' order, each named once, with the caller's surface, rights and tool allowlist applied
 * here and nowhere else. A tool left out is neither listed nor callable: it is not in the catalog.
 *
 * The built-ins' names are reserved alike on every surface (a tool server's `ask` is offered as
 * `<connection>_ask` in a reply too, where `ask` itself is not offered). The allowlist is matched
 * against each tool's source and real name (./tool-entry.ts), never against the name it is offered
 * under: a renamed tool-server tool's offered name matches nothing, and which tool takes which
 * offered name (it depends on the connections' order) does not change what a key may call.
 */
import { allows, type ToolCaller, type ToolEnv, type ToolSource } from './source';
import { TOOL_SOURCES } from './sources';
import type { AgentTool } from './tool';

/** The caller's tools by offered name, in listing order. Ask after the owner check. */
export async function toolCatalog(
  env: ToolEnv,
  caller: ToolCaller,
  sources: readonly ToolSource[] = TOOL_SOURCES,
): Promise<Map<string, AgentTool>> {
  const reserved = new Set(sources.flatMap((s) => s.reserved));
  // Every source's reserved names are kept from the others, on every surface alike.
  const offers = await Promise.all(
    sources.map((source) => source.tools(env, caller, new Set(sources.filter((s) => s !== source).flatMap((s) => s.reserved)))),
  );
  const catalog = new Map<string, AgentTool>();
  // A name belongs to the first tool that offers it, whether or not this caller may have that
  // tool: a later tool of the same name never stands in for one the filters below left out.
  const named = new Set<string>();
  for (const tool of offers.flat()) {
    if (named.has(tool.name)) continue;
    named.add(tool.name);
    if (!tool.surfaces.includes(caller.surface)) continue;
    if (tool.needs !== undefined && !caller.rights.has(tool.needs)) continue;
    if (!allows(caller, tool, reserved)) continue;
    catalog.set(tool.name, tool);
  }
  return catalog;
}
