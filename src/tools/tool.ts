/**
 * The one tool shape of the agent, below both of its users: the reply (src/replies/tools.ts adapts
 * it to the AI SDK) and the agent's MCP server (src/mcp-server/server.ts adapts it to the MCP SDK).
 * It carries MCP's tool fields, where it comes from, where it is offered and one call path. A
 * call never throws: a failure is an outcome with `isError`, for the caller's model to read.
 */
import type { Surface, ToolRight } from './rights';

export type { Surface } from './rights';

export const ALL_SURFACES: readonly Surface[] = ['reply', 'server'];

/** One item of a result, in MCP's content union (`text`, `image`, `audio`, `resource_link`, `resource`). */
export interface ContentItem {
  type: string;
  [key: string]: unknown;
}

/** What one call gave back: MCP's tool result, and what the audit trail and the reply's steps record of it. */
export interface ToolOutcome {
  content: ContentItem[];
  structuredContent?: Record<string, unknown>;
  isError: boolean;
  /** The audit trail's outcome: the error code of a failure (absent: `tool_error` for an error, else `ok`). */
  code?: string;
  /** A tool server's HTTP status when it failed (tool-server tools only). */
  upstreamStatus?: number;
}

export interface ToolCallContext {
  /** The caller's abort (the reply's deadline, the MCP request's end): no call outlives it. */
  signal?: AbortSignal;
  /** Present when the caller asked for progress (MCP `_meta.progressToken`) of a tool that reports it. */
  progress?: (message: string) => void;
}

export interface AgentTool {
  /** The name offered, `^[A-Za-z0-9_-]{1,64}$`, unique in one catalog (a tool-server tool may be renamed): never what an allowlist matches. */
  name: string;
  /** The tool's own name where it lives (on its tool server; a built-in's is its name). */
  realName: string;
  /** The source it comes from (`tool-servers`, `memory`, `ask`, ...). */
  source: string;
  /** The tool-server connection it is called on; null for a built-in (listed so in a reply's steps and the audit trail). */
  connectionId: string | null;
  title?: string;
  description?: string;
  /** JSON Schema of the arguments: sent to the model, and counted by the reply's request budget. */
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  /** The surfaces that offer it. */
  surfaces: readonly Surface[];
  /** The right a caller needs to be offered it (absent: none beyond reaching the surface). */
  needs?: ToolRight;
  /** Whether each call is written to the audit trail as a tool call (`ask`: no, its reply audits its own calls). */
  audited: boolean;
  /** Whether it reports progress as it goes (then an MCP call asking for progress is answered as a stream). */
  reportsProgress?: boolean;
  call(args: Record<string, unknown>, ctx: ToolCallContext): Promise<ToolOutcome>;
}

/** A result of one text item. */
export function textOutcome(text: string, isError = false, code?: string): ToolOutcome {
  return { content: [{ type: 'text', text }], isError, ...(code !== undefined ? { code } : {}) };
}

/** What the audit trail records of an outcome: `ok`, or the code the call ended with. */
export function auditOutcome(outcome: ToolOutcome): string {
  return outcome.code ?? (outcome.isError ? 'tool_error' : 'ok');
}

/** A call that threw, which a tool's own call never should: read as an internal error (a fresh object each time, as callers hand it on). */
export function internalFailure(): ToolOutcome {
  return textOutcome('internal_error: the tool call failed', true, 'internal_error');
}
