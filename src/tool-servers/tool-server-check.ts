/** The check registration runs on a tool server: its tool list, under the shared rule (./tool-rules). */
import { toolListProblems } from './tool-rules';
import { McpError, type McpClient, type Tool } from './types';

export type CheckToolServerResult = { ok: true; tools: Tool[] } | { ok: false; error: McpError };

/**
 * What registration runs: tools/list (with the session handshake when the server needs one) and
 * the acceptance rule on every tool (./tool-rules, which `mcp check` runs too). Never throws an
 * McpError: a failure comes back as `error`, `invalid_schema` naming the first bad tool in
 * `error.tool`.
 */
export async function checkToolServer(client: Pick<McpClient, 'listTools'>): Promise<CheckToolServerResult> {
  let tools: Tool[];
  try {
    tools = await client.listTools();
  } catch (err) {
    if (err instanceof McpError) return { ok: false, error: err };
    throw err;
  }
  const [first] = toolListProblems(tools, 1);
  if (first !== undefined) {
    const message = `Invalid tool schema: tool ${first.tool.slice(0, 100)}: ${first.problem}`;
    return { ok: false, error: new McpError('invalid_schema', message, { tool: first.tool }) };
  }
  return { ok: true, tools };
}
