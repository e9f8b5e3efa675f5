/**
 * Limits that keep one agent's tool servers and tool calls from pinning or filling the gateway
 * (docs/tools.md). Each has a stable error code.
 */

/** Tool servers one agent may register (`mcp_connection_limit`). */
export const MAX_CONNECTIONS_PER_AGENT = 20;
/** Tools one server's snapshot may hold (`tool_snapshot_too_large`). */
export const MAX_SNAPSHOT_TOOLS = 200;
/** Bytes of one server's tool snapshot as stored, JSON (`tool_snapshot_too_large`). */
export const MAX_SNAPSHOT_BYTES = 512 * 1024;
/** Regexes (`pattern`, `patternProperties`) in one tool's input schema (`invalid_tool_schema`). */
export const MAX_SCHEMA_PATTERNS = 100;
/**
 * One tool's input schema with its local `$ref`s followed, each use counted (`invalid_tool_schema`):
 * subschemas, and regexes run (./schema-size).
 */
export const MAX_SCHEMA_SUBSCHEMAS = 2_000;
export const MAX_SCHEMA_PATTERN_USES = 200;
/**
 * A `const` value, and each `enum` value, as JSON bytes (`invalid_tool_schema`): the validator
 * compares each argument value with them and writes them into its errors.
 */
export const MAX_SCHEMA_VALUE_BYTES = 1024;
/** One `enum` list, all its values, as JSON bytes (`invalid_tool_schema`). */
export const MAX_SCHEMA_ENUM_BYTES = 16 * 1024;

/** tools/call arguments, as JSON bytes (`tool_arguments_too_large`). */
export const MAX_ARGUMENTS_BYTES = 256 * 1024;
/** One string value or property name in the arguments, in characters. */
export const MAX_ARGUMENT_STRING_CHARS = 32 * 1024;
/** Nesting of objects and arrays in the arguments. */
export const MAX_ARGUMENT_DEPTH = 32;

export type LimitCheck = { ok: true } | { ok: false; problem: string };

export function jsonBytes(value: unknown): number {
  return new TextEncoder().encode(JSON.stringify(value) ?? '').byteLength;
}

/** A tool server's snapshot: how many tools, how many bytes. */
export function checkSnapshot(tools: readonly unknown[]): LimitCheck {
  if (tools.length > MAX_SNAPSHOT_TOOLS)
    return { ok: false, problem: `The tool server lists ${tools.length} tools; at most ${MAX_SNAPSHOT_TOOLS} are accepted` };
  const bytes = jsonBytes(tools);
  if (bytes > MAX_SNAPSHOT_BYTES)
    return { ok: false, problem: `The tool list is ${bytes} bytes; at most ${MAX_SNAPSHOT_BYTES} are accepted` };
  return { ok: true };
}

/**
 * tools/call arguments, before they meet the schema validator: whole size, every string and
 * property name, nesting depth.
 */
export function checkArguments(args: unknown): LimitCheck {
  const bytes = jsonBytes(args);
  if (bytes > MAX_ARGUMENTS_BYTES)
    return { ok: false, problem: `arguments are ${bytes} bytes; at most ${MAX_ARGUMENTS_BYTES} are accepted` };
  const walk = (value: unknown, path: string, depth: number): string | null => {
    if (typeof value === 'string') {
      return value.length > MAX_ARGUMENT_STRING_CHARS
        ? `${path || '#'}: string of ${value.length} characters; at most ${MAX_ARGUMENT_STRING_CHARS}`
        : null;
    }
    if (typeof value !== 'object' || value === null) return null;
    if (depth > MAX_ARGUMENT_DEPTH) return `${path || '#'}: nested deeper than ${MAX_ARGUMENT_DEPTH} levels`;
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
    for (const [key, child] of entries) {
      if (key.length > MAX_ARGUMENT_STRING_CHARS)
        return `${path || '#'}: property name of ${key.length} characters; at most ${MAX_ARGUMENT_STRING_CHARS}`;
      const problem = walk(child, `${path}/${key.slice(0, 50)}`, depth + 1);
      if (problem) return problem;
    }
    return null;
  };
  const problem = walk(args, '', 0);
  return problem ? { ok: false, problem } : { ok: true };
}
