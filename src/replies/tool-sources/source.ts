/**
 * The one seam between the reply and its tools (STYLE.md "One seam for tools"): the reply asks
 * each source for its tools and offers them all alike. A source is one file (mcp.ts: the agent's
 * connections; memory.ts: its memory); the loop, the call gate and the request budget see only
 * `SourcedTool`s, so a new built-in tool is a new source, not a branch in the reply.
 */

/** What the model reads of a tool result at most (characters). */
export const MAX_TOOL_RESULT_CHARS = 16_384;

/** What a tool call gave the model to read. */
export interface ToolOutcome {
  text: string;
  isError: boolean;
  /** A tool server's HTTP status when it failed (MCP tools only). */
  upstreamStatus?: number;
  /** The audit trail's outcome: the error code of a failure (absent: `tool_error` for an error, else `ok`). */
  code?: string;
}

/** One tool as the model is offered it. */
export interface SourcedTool {
  /** The model-facing name, `^[A-Za-z0-9_-]{1,64}$`, unique in the reply. */
  name: string;
  description?: string;
  /** JSON Schema of the arguments: sent to the model and counted by the request budget. */
  inputSchema: Record<string, unknown>;
  /** Listed in the reply's steps: the tool's connection, null for a built-in tool. */
  connectionId: string | null;
  /**
   * Runs one call. A failure the model should read is an outcome with `isError` (never a thrown
   * error); anything thrown is read as an internal error. `signal` is the reply's abort.
   */
  call(args: Record<string, unknown>, signal: AbortSignal | undefined): Promise<ToolOutcome>;
}

/** Where a reply's tools come from. */
export interface ToolSource {
  /** Names its tools always take (a built-in's), offered or not: no other source's tool gets them. */
  readonly reserved: readonly string[];
  /** Its tools, none named as in `taken` (the names the other sources reserved). */
  tools(taken: ReadonlySet<string>): SourcedTool[];
}

/** The tools of every source, in the sources' order; a name already given is never given twice. */
export function gatherTools(sources: readonly ToolSource[]): SourcedTool[] {
  const gathered: SourcedTool[] = [];
  const named = new Set<string>();
  for (const source of sources) {
    const taken = new Set(sources.filter((s) => s !== source).flatMap((s) => s.reserved));
    for (const tool of source.tools(taken)) {
      if (named.has(tool.name)) continue;
      named.add(tool.name);
      gathered.push(tool);
    }
  }
  return gathered;
}
