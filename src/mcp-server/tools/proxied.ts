/**
 * The agent's own MCP tools, served again: named as in a reply (src/replies/tool-sources/mcp.ts:
 * the tool's name, prefixed by its connection's only on a clash), title, annotations and output
 * schema kept. Each call takes the `/tools/call` path (argument caps, schema check, outbound
 * policy) with the current owner's credential opened from the vault for the tool server: the
 * caller's own credential never goes there, and the tool server's never comes back.
 */
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { Agent } from '../../identity/agent';
import type { ConnectionTools } from '../../tool-servers/agent-tools';
import { callConnectionTool, type McpDeps } from '../../tool-servers/connections.service';
import { connectionAuth } from '../../tool-servers/tool-session';
import { failedCall, nameTools } from '../../replies/tool-sources/mcp';
import { type ServedTool, textResult } from '../served-tool';

export function proxiedTools(
  deps: McpDeps,
  agent: Agent,
  connections: readonly ConnectionTools[],
  reserved: ReadonlySet<string>,
): ServedTool[] {
  return [...nameTools(connections, reserved)].map(([name, offered]): ServedTool => {
    const tool = offered.connection.tools.find((t) => t.name === offered.toolName);
    const definition: McpTool = {
      name,
      ...(tool?.title !== undefined ? { title: tool.title } : {}),
      ...(offered.description !== undefined ? { description: offered.description } : {}),
      inputSchema: offered.inputSchema as McpTool['inputSchema'],
      ...(tool?.outputSchema !== undefined ? { outputSchema: tool.outputSchema as McpTool['outputSchema'] } : {}),
      ...(tool?.annotations !== undefined ? { annotations: tool.annotations } : {}),
    };
    return {
      definition,
      audit: { connectionId: offered.connection.connectionId },
      async call(args, signal) {
        try {
          const auth = await connectionAuth(deps, agent, offered.connection.row, offered.connection.entry);
          const result = await callConnectionTool(
            deps,
            agent,
            offered.connection.row,
            { name: offered.toolName, arguments: args },
            auth,
            signal,
          );
          const { content, structuredContent, isError } = result;
          return {
            result: { content, ...(structuredContent !== undefined ? { structuredContent } : {}), ...(isError ? { isError: true } : {}) },
            outcome: isError === true ? 'tool_error' : 'ok',
          } as Awaited<ReturnType<ServedTool['call']>>;
        } catch (err) {
          const failed = failedCall(err);
          return { result: textResult(failed.text, true), outcome: failed.code ?? 'tool_error' };
        }
      },
    };
  });
}
