/**
 * Bundle stub for `zod-to-json-schema` (wrangler.*.toml `[alias]`): the MCP SDK loads it to turn zod 3
 * schemas of `McpServer.registerTool` into JSON Schema; the agent's MCP server lists its tools as
 * JSON Schema on the low-level `Server`, so it is never called; throws if it were.
 */
export function zodToJsonSchema(): never {
  throw new Error('zod-to-json-schema is not bundled: the agent MCP server lists tools as JSON Schema');
}
