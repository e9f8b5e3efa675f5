/**
 * One tool of the agent's MCP server (DESIGN §14), as the SDK's server lists and calls it: its MCP
 * definition, and a call that never throws (a failure is a result with `isError`, for the caller's
 * model to read, never an HTTP or JSON-RPC error).
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { AuditActor } from '../audit/entry';
import type { Credential } from '../usage/record.service';

export interface ServedTool {
  definition: Tool;
  /**
   * Written to the audit trail as a tool call (the agent's MCP tools and the memory tools, as in a
   * reply), with the tool's connection (null: a built-in); null: not audited here (`ask`: the reply
   * audits its own tool calls).
   */
  audit: { connectionId: string | null } | null;
  /**
   * `progress`, when the caller asked for progress (`_meta.progressToken`): the tool reports as it
   * goes (`ask`: the reply's text and tool calls), and the answer is a server-sent event stream.
   */
  call(args: Record<string, unknown>, signal: AbortSignal, progress?: (message: string) => void): Promise<ServedCall>;
  /** Whether the tool reports progress (then a call that asks for it is answered as a stream). */
  reportsProgress?: boolean;
}

/** A call's result, and what the audit trail records of it. */
export interface ServedCall {
  result: CallToolResult;
  /** `ok`, or the error code the call ended with. */
  outcome: string;
}

/** Who calls, as the credential middleware left it (c.var): read after the owner check. */
export interface McpCaller {
  /** `ask`'s context when the call names none: `mcp/{keyId}` for a key, `mcp/{wallet}` otherwise. */
  defaultContextKey: string;
  /** The tools the credential may list and call; null: every tool. */
  allowedTools: readonly string[] | null;
  actor: AuditActor;
  usage: { credential: Credential; tokensPerDay: number | null };
}

/** A text result. */
export function textResult(text: string, isError = false): CallToolResult {
  return { content: [{ type: 'text', text }], ...(isError ? { isError: true } : {}) };
}
