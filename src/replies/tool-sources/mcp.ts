/**
 * The agent's MCP tools as a tool source: every tool of its connections (the registration
 * snapshots), named `^[A-Za-z0-9_-]{1,64}$`, prefixed by the connection's name only on a clash
 * (with another connection's tool, or a name a built-in tool reserved). Each call takes the
 * `/tools/call` path (argument caps, schema check, outbound policy, the current owner's
 * credential); a failure is an error result the model reads, never a failed reply.
 */
import type { Agent } from '../../identity/agent';
import { AppError } from '../../errors';
import type { ConnectionTools } from '../../tool-servers/agent-tools';
import type { CallResult, McpAuth } from '../../tool-servers/client';
import { callConnectionTool, type McpDeps } from '../../tool-servers/connections.service';
import { connectionAuth } from '../../tool-servers/tool-session';
import { MAX_TOOL_RESULT_CHARS, type SourcedTool, type ToolOutcome, type ToolSource } from './source';

interface Offered {
  /** The connection as the reply read it: its calls reuse the row and its credential's entry. */
  connection: ConnectionTools;
  toolName: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

const sanitize = (name: string) => name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || 'tool';

/**
 * Model-facing names of the agent's tools: the tool's name; `<connection>_<tool>` on a clash with
 * another tool of the catalog or a name in `reserved`.
 */
export function nameTools(catalog: readonly ConnectionTools[], reserved: ReadonlySet<string> = new Set()): Map<string, Offered> {
  const counts = new Map<string, number>();
  for (const c of catalog) for (const t of c.tools) counts.set(sanitize(t.name), (counts.get(sanitize(t.name)) ?? 0) + 1);
  const named = new Map<string, Offered>();
  catalog.forEach((c, ci) => {
    for (const t of c.tools) {
      const base = sanitize(t.name);
      const clash = (counts.get(base) ?? 0) > 1 || reserved.has(base);
      let name = clash ? sanitize(`${c.name ?? `connection${ci + 1}`}_${base}`) : base;
      for (let n = 2; named.has(name) || reserved.has(name); n++) name = sanitize(`${name.slice(0, 60)}_${n}`);
      named.set(name, { connection: c, toolName: t.name, description: t.description, inputSchema: t.inputSchema });
    }
  });
  return named;
}

/** The text the model reads of a tool's result. */
function resultText(result: CallResult): string {
  const text = result.content
    .map((item) => (item.type === 'text' && typeof item.text === 'string' ? item.text : JSON.stringify(item)))
    .join('\n');
  return text.length > MAX_TOOL_RESULT_CHARS ? `${text.slice(0, MAX_TOOL_RESULT_CHARS)}… (cut)` : text;
}

function upstreamStatus(err: AppError): number | undefined {
  const details = err.details as { upstreamStatus?: unknown } | undefined;
  return typeof details?.upstreamStatus === 'number' ? details.upstreamStatus : undefined;
}

/** A tool call that failed before or at its tool server, as an error result to read (never thrown). */
export function failedCall(err: unknown): ToolOutcome {
  if (!(err instanceof AppError)) return { text: 'internal_error: the tool call failed', isError: true, code: 'internal_error' };
  const status = upstreamStatus(err);
  return {
    text: `${err.code}: ${err.message}${status !== undefined ? ` (upstream HTTP ${status})` : ''}`,
    isError: true,
    code: err.code,
    ...(status !== undefined ? { upstreamStatus: status } : {}),
  };
}

/** The tools of `connections` (the agent's, as the reply read them) for one reply. */
export function mcpSource(deps: McpDeps, agent: Agent, connections: readonly ConnectionTools[]): ToolSource {
  // Each connection's credential is opened once per reply, at its first call (after the owner check).
  const auths = new Map<string, Promise<McpAuth>>();
  const authOf = (c: ConnectionTools): Promise<McpAuth> => {
    let auth = auths.get(c.connectionId);
    if (!auth) {
      auth = connectionAuth(deps, agent, c.row, c.entry);
      auths.set(c.connectionId, auth);
    }
    return auth;
  };
  const call = async (t: Offered, args: Record<string, unknown>, signal: AbortSignal | undefined): Promise<ToolOutcome> => {
    try {
      const auth = await authOf(t.connection);
      // The reply's deadline (its abort) ends the call at once: no tool call outlives the reply.
      const result = await callConnectionTool(deps, agent, t.connection.row, { name: t.toolName, arguments: args }, auth, signal);
      return { text: resultText(result), isError: result.isError === true };
    } catch (err) {
      return failedCall(err);
    }
  };
  return {
    reserved: [],
    tools: (taken) =>
      [...nameTools(connections, taken)].map(
        ([name, t]): SourcedTool => ({
          name,
          description: t.description,
          inputSchema: t.inputSchema,
          connectionId: t.connection.connectionId,
          call: (args, signal) => call(t, args, signal),
        }),
      ),
  };
}
