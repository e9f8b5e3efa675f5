/** `agent-gateway mcp url`: the agent's MCP endpoint and ready config blocks for MCP clients. */
import { agentMcpUrl, type McpKeyRef, mcpClientConfigs } from '../client/mcp-url';
import { type Command, stringValue } from './command';
import { registerSecret, UsageError } from './output';
import { type GlobalValues, resolveBaseUrl } from './session';

const PLACEHOLDER = 'agk_YOUR_AGENT_KEY';
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const CLIENTS = ['claude', 'cursor', 'inspector'] as const;

export const mcpUrlCommand: Command = {
  path: ['mcp', 'url'],
  usage: 'agent-gateway mcp url [--key-env NAME [--embed-key]] [--client claude|cursor|inspector] [--json]',
  help: `Prints the agent's MCP endpoint (POST {gateway}/agent/{collection}/{token-id}/mcp) and config
blocks for Claude Desktop (claude_desktop_config.json, through mcp-remote), Cursor (~/.cursor/mcp.json)
and the MCP Inspector. Offline: it asks the gateway nothing.

The blocks hold the placeholder ${PLACEHOLDER} where the agent key goes (make one with
agent-gateway keys create --scope mcp). With --key-env NAME they read the key from the environment
variable NAME instead (Cursor: \${env:NAME}; Claude Desktop: mcp-remote's env; the Inspector: $NAME).
Only --embed-key writes the key itself (the value of NAME) into them: keep such a file private.

Options:
  --key-env NAME     the environment variable that holds the agent key
  --embed-key        write the key of --key-env into the blocks (asked for, never by default)
  --client C         only this client's block: claude, cursor or inspector
  --json             { endpoint, claudeDesktop, cursor, inspector } as one JSON object

Needs the agent (--collection, --token-id) and the gateway (--base-url, AGENT_GATEWAY_URL or the dev stack).`,
  options: {
    'key-env': { type: 'string' },
    'embed-key': { type: 'boolean' },
    client: { type: 'string' },
    json: { type: 'boolean' },
  },
  args: { min: 0, max: 0 },
  async run({ values, env, io }) {
    const g = values as GlobalValues;
    const collection = g.collection || env.AGENT_COLLECTION;
    const tokenId = g['token-id'] || env.AGENT_TOKEN_ID;
    if (!collection || !tokenId) {
      throw new UsageError('which agent? pass --collection ADDRESS and --token-id ID (or set AGENT_COLLECTION and AGENT_TOKEN_ID)');
    }
    if (!/^0x[0-9a-fA-F]{40}$/.test(collection)) throw new UsageError('--collection must be 0x + 40 hex');
    if (!/^(0|[1-9]\d*)$/.test(tokenId)) throw new UsageError('--token-id must be a decimal number without sign or leading zeros');
    const client = stringValue(values, 'client');
    if (client !== undefined && !(CLIENTS as readonly string[]).includes(client)) {
      throw new UsageError(`--client must be one of ${CLIENTS.join(', ')}`);
    }
    const key = keyRef(stringValue(values, 'key-env'), values['embed-key'] === true, env);
    const endpoint = agentMcpUrl(resolveBaseUrl(g, env), collection, tokenId);
    const configs = mcpClientConfigs(endpoint, `agent-${tokenId}`, key);
    const blocks = {
      claude: ['Claude Desktop (claude_desktop_config.json)', JSON.stringify(configs.claudeDesktop, null, 2)],
      cursor: ['Cursor (~/.cursor/mcp.json)', JSON.stringify(configs.cursor, null, 2)],
      inspector: ['MCP Inspector (CLI; in its UI: transport Streamable HTTP, this URL, header Authorization)', configs.inspector],
    } as const;
    if (values.json === true) {
      io.rawOut(`${JSON.stringify(configs, null, 2)}\n`);
      return 0;
    }
    // The blocks go out whole (rawOut): a key embedded on request is what the user asked to print.
    const chosen = client === undefined ? CLIENTS : [client as (typeof CLIENTS)[number]];
    const text = chosen.map((c) => `# ${blocks[c][0]}\n${blocks[c][1]}\n`).join('\n');
    io.rawOut(`${endpoint}\n\n${text}`);
    if (!('literal' in key))
      io.err(`mcp url: the blocks hold ${'env' in key ? `the variable ${key.env}` : `the placeholder ${PLACEHOLDER}`}, not a key`);
    return 0;
  },
};

function keyRef(name: string | undefined, embed: boolean, env: NodeJS.ProcessEnv): McpKeyRef {
  if (name === undefined) {
    if (embed) throw new UsageError('--embed-key needs --key-env NAME (the variable holding the key)');
    return { placeholder: PLACEHOLDER };
  }
  if (!ENV_NAME.test(name)) throw new UsageError('--key-env must name an environment variable (A-Z a-z 0-9 _)');
  if (!embed) return { env: name };
  const value = env[name]?.trim();
  if (!value) throw new UsageError(`--embed-key: the environment variable ${name} is not set`);
  registerSecret(value);
  return { literal: value };
}
