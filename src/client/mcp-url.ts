/**
 * Where an agent's MCP server is (docs/tools.md, "The agent as an MCP server") and how MCP
 * clients are pointed at it: the endpoint and ready config blocks for Claude Desktop, Cursor and
 * the MCP Inspector. Pure functions: the CLI's `agent-gateway mcp url` prints them, a page or a
 * script can show them.
 */

/** `{baseUrl}/agent/{collection}/{tokenId}/mcp`: the agent's MCP endpoint (Streamable HTTP). */
export function agentMcpUrl(baseUrl: string, collection: string, tokenId: string | bigint): string {
  return `${baseUrl.replace(/\/+$/, '')}/agent/${collection}/${tokenId.toString()}/mcp`;
}

/** How a config names the agent key: a placeholder, an environment variable, or the key itself (only when asked). */
export type McpKeyRef = { placeholder: string } | { env: string } | { literal: string };

export interface McpClientConfigs {
  endpoint: string;
  /** `claude_desktop_config.json`: Claude Desktop reaches remote servers through `mcp-remote`. */
  claudeDesktop: Record<string, unknown>;
  /** `~/.cursor/mcp.json` (or `.cursor/mcp.json` in a project). */
  cursor: Record<string, unknown>;
  /** The MCP Inspector, in its CLI mode (its UI takes the same URL, transport and header). */
  inspector: string;
}

/** Config blocks naming the agent key as `key` says (never a real key unless `{ literal }`). */
export function mcpClientConfigs(endpoint: string, name: string, key: McpKeyRef): McpClientConfigs {
  const cursorValue = 'env' in key ? `\${env:${key.env}}` : 'literal' in key ? key.literal : key.placeholder;
  const shellValue = 'env' in key ? `$${key.env}` : 'literal' in key ? key.literal : key.placeholder;
  // mcp-remote expands ${VAR} in its arguments from its env block, where Claude Desktop (which
  // does not read the shell's environment) holds the key: never in `args`.
  const claudeVar = 'env' in key ? key.env : 'AGENT_GATEWAY_API_KEY';
  const claudeKey = 'literal' in key ? key.literal : 'placeholder' in key ? key.placeholder : 'agk_YOUR_AGENT_KEY';
  return {
    endpoint,
    claudeDesktop: {
      mcpServers: {
        [name]: {
          command: 'npx',
          args: ['-y', 'mcp-remote', endpoint, '--header', `Authorization:Bearer \${${claudeVar}}`],
          env: { [claudeVar]: claudeKey },
        },
      },
    },
    cursor: { mcpServers: { [name]: { url: endpoint, headers: { Authorization: `Bearer ${cursorValue}` } } } },
    inspector: `npx @modelcontextprotocol/inspector --cli ${endpoint} --transport http --header "Authorization: Bearer ${shellValue}" --method tools/list`,
  };
}
