/**
 * The agent's tool servers as a tool source: every tool of its connections (the registration
 * snapshots) that the current owner can call, named `^[A-Za-z0-9_-]{1,64}$`, prefixed by the
 * connection's name only on a clash (with another connection's tool, or a name a built-in
 * reserved). The one call path of these tools, for a reply and for the MCP server alike: the
 * `/tools/call` path (argument caps, schema check, outbound policy) with the current owner's
 * credential opened from the vault for the tool server (a caller's own credential never goes
 * there, and the tool server's never comes back). A failure is an error result, never thrown.
 */
import type { Agent } from '../identity/agent';
import { AppError } from '../errors';
import { type ConnectionTools, usableBy } from '../tool-servers/agent-tools';
import type { McpAuth } from '../tool-servers/client';
import { callConnectionTool, type McpDeps } from '../tool-servers/connections.service';
import { connectionAuth } from '../tool-servers/tool-session';
import type { ToolCaller, ToolSource } from './source';
import { ALL_SURFACES, type AgentTool, type ToolOutcome, textOutcome } from './tool';

export const TOOL_SERVERS = 'tool-servers';

interface Offered {
  /** The connection as read: its calls reuse the row and its credential's entry. */
  connection: ConnectionTools;
  tool: ConnectionTools['tools'][number];
}

const sanitize = (name: string) => name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || 'tool';

/**
 * Offered names of the agent's tools: the tool's name; `<connection>_<tool>` on a clash with
 * another tool of the connections or a name in `reserved`. Which tool gets which offered name
 * depends on the connections' order (a renamed tool may take a name another tool really has), so
 * nothing that grants access reads offered names: a key's allowlist matches the connection id and
 * the tool's own name (./tool-entry.ts).
 */
export function nameTools(connections: readonly ConnectionTools[], reserved: ReadonlySet<string> = new Set()): Map<string, Offered> {
  const counts = new Map<string, number>();
  for (const c of connections) for (const t of c.tools) counts.set(sanitize(t.name), (counts.get(sanitize(t.name)) ?? 0) + 1);
  const named = new Map<string, Offered>();
  connections.forEach((c, ci) => {
    for (const t of c.tools) {
      const base = sanitize(t.name);
      const clash = (counts.get(base) ?? 0) > 1 || reserved.has(base);
      let name = clash ? sanitize(`${c.name ?? `connection${ci + 1}`}_${base}`) : base;
      for (let n = 2; named.has(name) || reserved.has(name); n++) name = sanitize(`${name.slice(0, 60)}_${n}`);
      named.set(name, { connection: c, tool: t });
    }
  });
  return named;
}

function upstreamStatus(err: AppError): number | undefined {
  const details = err.details as { upstreamStatus?: unknown } | undefined;
  return typeof details?.upstreamStatus === 'number' ? details.upstreamStatus : undefined;
}

/** A tool call that failed before or at its tool server, as an error result to read (never thrown). */
export function failedCall(err: unknown): ToolOutcome {
  if (!(err instanceof AppError)) return textOutcome('internal_error: the tool call failed', true, 'internal_error');
  const status = upstreamStatus(err);
  return {
    ...textOutcome(`${err.code}: ${err.message}${status !== undefined ? ` (upstream HTTP ${status})` : ''}`, true, err.code),
    ...(status !== undefined ? { upstreamStatus: status } : {}),
  };
}

/** One catalog's calls: each connection's credential is opened once, at its first call (after the owner check). */
function callPath(deps: McpDeps, agent: Agent) {
  const auths = new Map<string, Promise<McpAuth>>();
  const authOf = (c: ConnectionTools): Promise<McpAuth> => {
    let auth = auths.get(c.connectionId);
    if (!auth) {
      auth = connectionAuth(deps, agent, c.row, c.entry);
      auths.set(c.connectionId, auth);
    }
    return auth;
  };
  return async (offered: Offered, args: Record<string, unknown>, signal: AbortSignal | undefined): Promise<ToolOutcome> => {
    try {
      // An OAuth connection opens its own token (and refreshes it) on the call path.
      const auth = offered.connection.row.authType === 'oauth' ? undefined : await authOf(offered.connection);
      const input = { name: offered.tool.name, arguments: args };
      const result = await callConnectionTool(deps, agent, offered.connection.row, input, auth, signal);
      const { content, structuredContent, isError } = result;
      return { content, ...(structuredContent !== undefined ? { structuredContent } : {}), isError: isError === true };
    } catch (err) {
      return failedCall(err);
    }
  };
}

/** Whether the caller could be offered a tool-server tool at all: an allowlist of built-ins only reads no connection. */
function wantsConnections(caller: ToolCaller, taken: ReadonlySet<string>): boolean {
  return caller.allowedTools === null || caller.allowedTools.some((name) => !taken.has(name));
}

export const toolServersSource: ToolSource = {
  reserved: [],
  async tools(env, caller, taken) {
    if (!wantsConnections(caller, taken)) return [];
    const connections = usableBy(await env.connections(), env.agent.owner);
    const call = callPath(env.mcp, env.agent);
    return [...nameTools(connections, taken)].map(
      ([name, offered]): AgentTool => ({
        name,
        realName: offered.tool.name,
        source: TOOL_SERVERS,
        connectionId: offered.connection.connectionId,
        ...(offered.tool.title !== undefined ? { title: offered.tool.title } : {}),
        ...(offered.tool.description !== undefined ? { description: offered.tool.description } : {}),
        inputSchema: offered.tool.inputSchema,
        ...(offered.tool.outputSchema !== undefined ? { outputSchema: offered.tool.outputSchema } : {}),
        ...(offered.tool.annotations !== undefined ? { annotations: offered.tool.annotations } : {}),
        surfaces: ALL_SURFACES,
        // On the MCP server the caller calls it directly: a delegate or renter needs admin leave for that.
        ...(caller.surface === 'server' ? { needs: 'tool-servers:direct' as const } : {}),
        audited: true,
        call: (args, ctx) => call(offered, args, ctx.signal),
      }),
    );
  },
};
