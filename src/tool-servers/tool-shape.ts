/**
 * Reading one tool of a tools/list reply into MCP's tool shape: every field MCP defines is kept
 * (`name`, `title`, `description`, `inputSchema`, `outputSchema`, `annotations`, `execution`,
 * `icons`, `_meta`), each checked for its JSON type here. Sizes and schemas are judged by the one
 * acceptance rule (./tool-rules), shared by registration and `mcp check`.
 */
import { isObject, McpError, type Tool, type ToolIcon } from './types';

const OBJECT_FIELDS = ['outputSchema', 'annotations', 'execution', '_meta'] as const;

export function parseTool(raw: unknown): Tool {
  if (!isObject(raw) || typeof raw.name !== 'string' || raw.name === '') {
    throw new McpError('bad_response', 'tools/list holds a tool without a name');
  }
  const name = raw.name;
  const label = name.slice(0, 100);
  const text = (field: 'title' | 'description'): string | undefined => {
    const value = raw[field];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') throw new McpError('bad_response', `tool ${label} has a ${field} that is not a string`);
    return value;
  };
  if (!isObject(raw.inputSchema)) {
    throw new McpError('invalid_schema', `Invalid tool schema: tool ${label}: inputSchema must be a JSON object`, { tool: name });
  }
  const tool: Tool = { name, inputSchema: raw.inputSchema };
  const title = text('title');
  const description = text('description');
  if (title !== undefined) tool.title = title;
  if (description !== undefined) tool.description = description;
  for (const field of OBJECT_FIELDS) {
    const value = raw[field];
    if (value === undefined || value === null) continue;
    if (!isObject(value)) {
      if (field === 'outputSchema') {
        throw new McpError('invalid_schema', `Invalid tool schema: tool ${label}: outputSchema must be a JSON object`, { tool: name });
      }
      throw new McpError('bad_response', `tool ${label} has ${field} that is not an object`);
    }
    tool[field] = value;
  }
  if (raw.icons !== undefined && raw.icons !== null) {
    if (!Array.isArray(raw.icons) || !raw.icons.every((icon) => isObject(icon) && typeof icon.src === 'string')) {
      throw new McpError('bad_response', `tool ${label} has icons that are not a list of objects with a src`);
    }
    tool.icons = raw.icons as ToolIcon[];
  }
  return tool;
}
