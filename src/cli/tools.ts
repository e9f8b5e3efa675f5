/**
 * `agent-gateway tools add|list|remove|check|call`: an agent's tool-server (MCP) connections,
 * through the gateway (`check` talks to the server directly: it is `mcp check`). OAuth servers'
 * authorization and its wait are in ./tools-oauth.
 */
import type { McpConnection, McpToolResult, ToolServerAuthInput } from '../client/types';
import { GatewayError, toolAuthorizationUrl } from '../client/errors';
import { jsonObjectOption, stringValue, type Command, type OptionValues } from './command';
import { headerFromEnv, mcpCheckCommand } from './mcp';
import { CliError, registerSecret, UsageError, type Io } from './output';
import { agentOf, gatewayFailure, openSession, type GlobalValues } from './session';
import { authorizeAndWait, OAUTH_OPTIONS_HELP, oauthAuthFromOptions, waitSeconds } from './tools-oauth';

const AGENT_NOTE = 'Needs a login and the agent (--collection, --token-id, or AGENT_COLLECTION, AGENT_TOKEN_ID).';

/** `--auth-env VAR` (bearer token in VAR) or `--auth-env NAME=VAR` (header NAME, value in VAR). */
export function authFromEnv(raw: string | undefined, env: NodeJS.ProcessEnv): ToolServerAuthInput {
  if (raw === undefined) return { type: 'none' };
  if (raw.includes('=')) {
    const [headerName, value] = headerFromEnv(raw, env);
    registerSecret(value);
    return { type: 'header', headerName, value };
  }
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(raw))
    throw new UsageError('--auth-env must be VARIABLE (a bearer token) or NAME=VARIABLE (a header NAME with the value of VARIABLE)');
  const value = env[raw]?.trim() ?? '';
  if (value === '') throw new UsageError(`--auth-env: the environment variable ${raw} is not set or empty`);
  registerSecret(value);
  return { type: 'bearer', value };
}

/** The auth of `tools add`: `--oauth` (and its options), `--auth-env`, or none; never both kinds. */
function addAuth(values: OptionValues, env: NodeJS.ProcessEnv): ToolServerAuthInput {
  const oauthOnly = ['scope', 'client-id', 'client-secret-env'].filter((name) => values[name] !== undefined);
  if (values.oauth !== true) {
    if (oauthOnly.length > 0) throw new UsageError(`--${oauthOnly[0]} needs --oauth`);
    return authFromEnv(stringValue(values, 'auth-env'), env);
  }
  if (values['auth-env'] !== undefined)
    throw new UsageError('--oauth and --auth-env do not go together: the server takes one or the other');
  waitSeconds(values);
  return oauthAuthFromOptions(values, env);
}

/** The id of the connection a 400 `mcp_connection_exists` names (`details.id`), if any. */
export function existingConnectionId(err: unknown): string | undefined {
  if (!(err instanceof GatewayError) || err.code !== 'mcp_connection_exists') return undefined;
  const id = (err.details as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' ? id : undefined;
}

/** One line per connection: name, URL, tools, then its credential (or OAuth) and status. */
export function describeConnection(c: McpConnection): string {
  const tools = c.tools.map((t) => t.name);
  const shown = tools.length > 5 ? `${tools.slice(0, 5).join(', ')}, …` : tools.join(', ');
  const scopes = c.authorization?.scopes.length ? ` (scopes ${c.authorization.scopes.join(' ')})` : '';
  const auth = c.auth.type === 'oauth' ? `OAuth${scopes}` : `credential ${c.credential}`;
  return `${c.name ? `"${c.name}" ` : ''}${c.url}: ${tools.length} tool${tools.length === 1 ? '' : 's'}${shown ? ` (${shown})` : ''}, ${auth}, ${c.status}`;
}

/**
 * A failed call of a connection's tools: 424 `tool_authorization_required` says how to authorize
 * again (the URL the gateway sent, and the command for a fresh one); anything else as usual.
 */
function toolCallFailure(err: unknown, what: string, id: string): never {
  if (err instanceof GatewayError && err.code === 'tool_authorization_required') {
    const url = toolAuthorizationUrl(err);
    throw new CliError(
      `${what}: 424 tool_authorization_required: the tool server needs you to authorize the gateway (again). Run agent-gateway tools authorize ${id}${url === undefined ? '' : `, or open this URL in a browser: ${url}`}`,
    );
  }
  return gatewayFailure(err, what);
}

async function agentFor(values: OptionValues, env: NodeJS.ProcessEnv, io: Io) {
  const session = await openSession(values as GlobalValues, env, io);
  return agentOf(session, values as GlobalValues, env);
}

export const toolsAddCommand: Command = {
  path: ['tools', 'add'],
  usage:
    'agent-gateway tools add --url URL [--name NAME] [--auth-env VAR | --auth-env NAME=VAR | --oauth [--scope S]... [--client-id ID [--client-secret-env VAR]] [--wait-seconds N]] [--json]',
  help: `Registers a tool server (MCP) with the agent: the gateway runs the handshake and tools/list
and checks every tool's schema. Prints the connection id on stdout (alone, for scripts:
CONNECTION_ID=$(agent-gateway tools add ...)) and what was registered on stderr.

When the agent already has a connection for this URL (any spelling of it), that connection is
reused as it is, credential unchanged: the command prints its id and succeeds, so a script that
adds its tool server can run again. Replace a credential by removing the connection and adding it.

Options:
  --url URL             the tool server's URL (https://; the local stack also accepts
                        http://127.0.0.1:PORT)
  --name NAME           a name for the connection
  --auth-env VAR        the server's bearer token is in the environment variable VAR
  --auth-env NAME=VAR   the server's credential header NAME, its value in VAR
                        (e.g. --auth-env x-api-key=TOOL_SERVER_API_KEY)
  --oauth               the server asks its users to authorize through OAuth: the gateway finds
                        its authorization server and prints (on stderr) a URL to open in a
                        browser, then waits until you approved there and the connection is ready
  --scope S             with --oauth: a scope to ask for (repeat or comma-separate; default the
                        server's own choice)
  --client-id ID        with --oauth: a client you registered at the authorization server
                        beforehand (default: the gateway's own client document, else it registers)
  --client-secret-env VAR
                        with --client-id: that client's secret is in the environment variable VAR
${OAUTH_OPTIONS_HELP}
  --json                print the connection as JSON instead of its id

Credentials come from the environment only, never the command line, and are never printed.
With --oauth: exit code 1 when the wait runs out (then agent-gateway tools authorize ID prints
a fresh URL), 130 after Ctrl-C; either way the connection stays registered.
${AGENT_NOTE}`,
  options: {
    url: { type: 'string' },
    name: { type: 'string' },
    'auth-env': { type: 'string' },
    oauth: { type: 'boolean' },
    scope: { type: 'string', multiple: true },
    'client-id': { type: 'string' },
    'client-secret-env': { type: 'string' },
    'wait-seconds': { type: 'string' },
    json: { type: 'boolean' },
  },
  args: { min: 0, max: 0 },
  async run({ values, env, io }) {
    const url = stringValue(values, 'url');
    if (!url) throw new UsageError('--url is required');
    const name = stringValue(values, 'name');
    const auth = addAuth(values, env);
    const agent = await agentFor(values, env, io);
    let connection: McpConnection | undefined;
    try {
      connection = await agent.addMcpConnection({ url, auth, ...(name === undefined ? {} : { name }) });
      io.err(`tools add: registered ${describeConnection(connection)}`);
      if (connection.authorizeUrl !== undefined) {
        io.out(values.json === true ? JSON.stringify(connection, null, 2) : connection.id);
        return authorizeAndWait(agent, connection.id, connection.authorizeUrl, values, io, { command: 'tools add', urlOn: 'err' });
      }
    } catch (err) {
      const existing = existingConnectionId(err);
      if (existing === undefined) gatewayFailure(err, `registering ${url}`);
      io.err(`tools add: the agent already has a connection for ${url}: reusing ${existing} (its credential unchanged)`);
      if (values.json !== true && values.oauth !== true) {
        io.out(existing);
        return 0;
      }
      const { connections } = await agent.listMcpConnections().catch((e: unknown) => gatewayFailure(e, 'listing connections'));
      connection = connections.find((c) => c.id === existing);
      if (!connection) throw new UsageError(`connection ${existing} vanished while it was read; run the command again`);
    }
    if (connection.status === 'authorization_required' && values.oauth === true) {
      // An OAuth connection already registered but not authorized: a fresh URL, and the same wait.
      io.out(values.json === true ? JSON.stringify(connection, null, 2) : connection.id);
      const id = connection.id;
      const { authorizeUrl } = await agent.authorizeMcpConnection(id).catch((e: unknown) => gatewayFailure(e, `authorizing ${id}`));
      return authorizeAndWait(agent, id, authorizeUrl, values, io, { command: 'tools add', urlOn: 'err' });
    }
    io.out(values.json === true ? JSON.stringify(connection, null, 2) : connection.id);
    return 0;
  },
};

export const toolsListCommand: Command = {
  path: ['tools', 'list'],
  usage: 'agent-gateway tools list [ID] [--json]',
  help: `Without ID: the agent's tool-server connections (id, name, URL, the tools of the snapshot
taken at registration, credential state or OAuth and its scopes, status: ready, or
authorization_required for an OAuth server not authorized yet: agent-gateway tools authorize ID). With ID: that server's live tools (tools/list now,
through the gateway, with the stored credential) and its latency.

Options:
  --json   print the gateway's answer as JSON

${AGENT_NOTE}`,
  options: { json: { type: 'boolean' } },
  args: { min: 0, max: 1 },
  async run({ values, args, env, io }) {
    const agent = await agentFor(values, env, io);
    const id = args[0];
    if (id !== undefined) {
      const live = await agent.listMcpTools(id).catch((err: unknown) => toolCallFailure(err, `listing the tools of ${id}`, id));
      if (values.json === true) io.out(JSON.stringify(live, null, 2));
      else {
        for (const tool of live.tools) io.out(`${tool.name}${tool.description ? `  ${tool.description}` : ''}`);
        io.err(`tools list: ${live.tools.length} tools, tools/list took ${live.health.latencyMs} ms`);
      }
      return 0;
    }
    const { connections } = await agent.listMcpConnections().catch((err: unknown) => gatewayFailure(err, 'listing connections'));
    if (values.json === true) io.out(JSON.stringify(connections, null, 2));
    else if (connections.length === 0)
      io.err('tools list: the agent has no tool-server connections (add one with agent-gateway tools add)');
    else for (const c of connections) io.out(`${c.id}  ${describeConnection(c)}`);
    return 0;
  },
};

export const toolsRemoveCommand: Command = {
  path: ['tools', 'remove'],
  usage: 'agent-gateway tools remove ID',
  help: `Removes a tool-server connection and destroys its stored credential.
Exit code 1 when the agent has no connection ID (404 mcp_connection_not_found).

${AGENT_NOTE}`,
  options: {},
  args: { min: 1, max: 1 },
  async run({ values, args, env, io }) {
    const agent = await agentFor(values, env, io);
    const id = args[0]!;
    await agent.removeMcpConnection(id).catch((err: unknown) => gatewayFailure(err, `removing ${id}`));
    io.out(`removed ${id}`);
    return 0;
  },
};

export const toolsCheckCommand: Command = {
  ...mcpCheckCommand,
  path: ['tools', 'check'],
  usage: mcpCheckCommand.usage.replace('agent-gateway mcp check', 'agent-gateway tools check'),
  help: `${mcpCheckCommand.help}\n\nThe same as agent-gateway mcp check.`,
};

/** A tool result for people: its text items as they are, any other item as JSON. */
function printResult(result: McpToolResult, io: Io): void {
  const content = (result as { content?: unknown }).content;
  for (const item of Array.isArray(content) ? content : []) {
    const text = (item as { type?: unknown; text?: unknown }).type === 'text' ? (item as { text?: unknown }).text : undefined;
    io.out(typeof text === 'string' ? text : JSON.stringify(item));
  }
  const structured = (result as { structuredContent?: unknown }).structuredContent;
  if (structured !== undefined) io.out(JSON.stringify(structured, null, 2));
}

export const toolsCallCommand: Command = {
  path: ['tools', 'call'],
  usage: 'agent-gateway tools call ID TOOL [--args JSON] [--json]',
  help: `Calls a tool of a connection through the gateway (argument caps and schema check, the
stored credential, the outbound policy: as the agent's replies call it). Prints the result's text
items (others as JSON); the gateway's answer whole, as one line of JSON, with --json.

Options:
  --args JSON   the tool's arguments, a JSON object (default {}), e.g. --args '{"text":"one two"}'
  --json        print the gateway's answer as JSON

Exit code 1 when the call fails or the tool reports an error (isError: true).
${AGENT_NOTE}`,
  options: { args: { type: 'string' }, json: { type: 'boolean' } },
  args: { min: 2, max: 2 },
  async run({ values, args, env, io }) {
    const [id, name] = args as [string, string];
    const callArgs = jsonObjectOption(values, 'args', {});
    const agent = await agentFor(values, env, io);
    const result = await agent
      .callMcpTool(id, { name, arguments: callArgs })
      .catch((err: unknown) => toolCallFailure(err, `calling ${name} of ${id}`, id));
    // One line: a script can read it with jq or JSON.parse line by line.
    if (values.json === true) io.out(JSON.stringify(result));
    else printResult(result, io);
    if (result.isError === true) {
      io.err(`tools call: ${name} reported an error (isError: true)`);
      return 1;
    }
    return 0;
  },
};
