/**
 * The agent's tools, offered to the model: every tool of its connections (the registration
 * snapshots), named `^[A-Za-z0-9_-]{1,64}$`, prefixed by the connection's name only on a clash.
 * Each call takes the `/tools/call` path (argument caps, schema check, outbound policy, the
 * current owner's credential); a failure is an error result the model reads, never a failed reply.
 */
import { jsonSchema, tool, type ToolSet } from 'ai';
import type { Agent } from '../agents/agent';
import { AppError } from '../errors';
import type { ConnectionTools } from '../mcp/agent-tools';
import { callConnectionTool, type McpDeps } from '../mcp/connections.service';
import { connectionAuth } from '../mcp/tool-session';
import type { CallResult, McpAuth } from '../mcp/client';

/** One tool call of a reply, as the answer lists it. */
export interface ReplyStep {
  tool: string;
  /** null when the model named a tool the agent does not have. */
  connectionId: string | null;
  arguments: unknown;
  isError: boolean;
  /** The tool server's HTTP status when it failed (401, 424, 500...). */
  upstreamStatus?: number;
  durationMs: number;
}

export interface ToolEvents {
  toolCall(event: { tool: string; connectionId: string | null; arguments: unknown }): void;
  toolResult(event: Omit<ReplyStep, 'arguments'> & { content?: string }): void;
}

/** What the model reads of a tool result at most (characters). */
export const MAX_TOOL_RESULT_CHARS = 16_384;

/** A tool failure the model reads as an error result. */
export class ToolFailure extends Error {
  override readonly name = 'ToolFailure';
}

interface Offered {
  /** The connection as the reply read it: its calls reuse the row and its credential's entry. */
  connection: ConnectionTools;
  toolName: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

const sanitize = (name: string) => name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || 'tool';

/** Model-facing names of the agent's tools: the tool's name; `<connection>_<tool>` on a clash. */
export function nameTools(catalog: readonly ConnectionTools[]): Map<string, Offered> {
  const counts = new Map<string, number>();
  for (const c of catalog) for (const t of c.tools) counts.set(sanitize(t.name), (counts.get(sanitize(t.name)) ?? 0) + 1);
  const named = new Map<string, Offered>();
  catalog.forEach((c, ci) => {
    for (const t of c.tools) {
      const base = sanitize(t.name);
      let name = (counts.get(base) ?? 0) > 1 ? sanitize(`${c.name ?? `connection${ci + 1}`}_${base}`) : base;
      for (let n = 2; named.has(name); n++) name = sanitize(`${name.slice(0, 60)}_${n}`);
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

/** The AI SDK tool set: each `execute` calls the tool through `callTool` and reports the step. */
export function toolSet(
  offered: Map<string, Offered>,
  context: { deps: McpDeps; agent: Agent; steps: ReplyStep[]; events: ToolEvents },
): ToolSet {
  const set: ToolSet = {};
  // Each connection's credential is opened once per reply, at its first call (after the owner check).
  const auths = new Map<string, Promise<McpAuth>>();
  const authOf = (c: ConnectionTools): Promise<McpAuth> => {
    let auth = auths.get(c.connectionId);
    if (!auth) {
      auth = connectionAuth(context.deps, context.agent, c.row, c.entry);
      auths.set(c.connectionId, auth);
    }
    return auth;
  };
  for (const [name, t] of offered) {
    const connectionId = t.connection.connectionId;
    set[name] = tool({
      description: t.description,
      inputSchema: jsonSchema(t.inputSchema),
      execute: async (input: unknown, { abortSignal }) => {
        const args = (input ?? {}) as Record<string, unknown>;
        context.events.toolCall({ tool: name, connectionId, arguments: args });
        const started = Date.now();
        let text: string;
        let isError: boolean;
        let status: number | undefined;
        try {
          const call = { name: t.toolName, arguments: args };
          const auth = await authOf(t.connection);
          // The reply's deadline (its abort) ends the call at once: no tool call outlives the reply.
          const result = await callConnectionTool(context.deps, context.agent, t.connection.row, call, auth, abortSignal);
          text = resultText(result);
          isError = result.isError === true;
        } catch (err) {
          isError = true;
          if (err instanceof AppError) {
            status = upstreamStatus(err);
            text = `${err.code}: ${err.message}${status !== undefined ? ` (upstream HTTP ${status})` : ''}`;
          } else {
            text = 'internal_error: the tool call failed';
          }
        }
        const step: ReplyStep = {
          tool: name,
          connectionId,
          arguments: args,
          isError,
          ...(status !== undefined ? { upstreamStatus: status } : {}),
          durationMs: Date.now() - started,
        };
        context.steps.push(step);
        context.events.toolResult({ ...withoutArguments(step), content: text });
        if (isError) throw new ToolFailure(text);
        return text;
      },
    });
  }
  return set;
}

function withoutArguments(step: ReplyStep): Omit<ReplyStep, 'arguments'> {
  const { arguments: _, ...rest } = step;
  return rest;
}
