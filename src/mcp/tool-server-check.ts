/** The check registration runs on a tool server: its tool list, and every tool's input schema. */
import { checkToolSchema } from './schema-check';
import { McpError, type McpClient, type Tool } from './types';

export type CheckToolServerResult = { ok: true; tools: Tool[] } | { ok: false; error: McpError };

/**
 * What registration runs: tools/list (with the session handshake when the server needs one) and
 * a JSON Schema check of every tool. Never throws an McpError: a failure comes back as `error`,
 * `invalid_schema` naming the first bad tool in `error.tool`.
 */
export async function checkToolServer(client: Pick<McpClient, 'listTools'>): Promise<CheckToolServerResult> {
  let tools: Tool[];
  try {
    tools = await client.listTools();
  } catch (err) {
    if (err instanceof McpError) return { ok: false, error: err };
    throw err;
  }
  const names = new Set<string>();
  for (const tool of tools) {
    if (names.has(tool.name)) {
      return {
        ok: false,
        error: new McpError('invalid_schema', `Invalid tool schema: tool name ${tool.name.slice(0, 100)} appears twice`, {
          tool: tool.name,
        }),
      };
    }
    names.add(tool.name);
    const check = checkToolSchema(tool.inputSchema);
    if (!check.ok) {
      return {
        ok: false,
        error: new McpError('invalid_schema', `Invalid tool schema: tool ${tool.name.slice(0, 100)}: ${check.problem}`, {
          tool: tool.name,
        }),
      };
    }
  }
  return { ok: true, tools };
}
