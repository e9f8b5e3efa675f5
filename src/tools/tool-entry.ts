/**
 * The entries of an agent key's tool allowlist (`tools`): one rule, with no dependencies, read by
 * the key route's schema (src/keys/keys.routes.ts), the CLI (`keys create --tools`) and the
 * catalog that applies it (./catalog.ts). An entry names a tool by where it comes from and its
 * real name, never by the name a surface offers it under (a tool-server tool may be renamed
 * `<connection>_<name>` on a clash, and which tool gets which offered name can change as
 * connections come and go):
 * - a built-in by its name: `ask`, `memory_search`, `memory_read`, `memory_append`;
 * - one tool server's tool as `<connectionId>/<name>`: the connection's id (a UUID, as the
 *   tool-server routes list it) and the tool's own name on that server;
 * - any other name alone: a tool of that own name on any of the agent's tool servers (a built-in's
 *   name alone is always the built-in, never a tool server's tool of that name).
 */

/** Longest entry: a connection id (36), `/`, and a tool's own name (200 at most, as registration accepts). */
export const MAX_TOOL_ENTRY_CHARS = 237;
export const MAX_TOOL_ENTRIES = 100;

const CONNECTION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What an entry names: a tool of one connection, or a name alone (a built-in, or a tool server's tool on any connection). */
export type ToolEntry = { connectionId: string; name: string } | { connectionId: null; name: string };

/** The entry read, or why it is not one (a sentence for a 400 or a usage error). */
export function parseToolEntry(entry: string): ToolEntry | { problem: string } {
  const shown = JSON.stringify(entry.slice(0, 60));
  if (entry.length === 0 || entry.length > MAX_TOOL_ENTRY_CHARS) {
    return { problem: `tool entry ${shown} must be 1-${MAX_TOOL_ENTRY_CHARS} characters` };
  }
  if (!entry.isWellFormed() || /\p{Cc}/u.test(entry) || entry.trim() !== entry) {
    return { problem: `tool entry ${shown} must be text without control characters or surrounding spaces` };
  }
  const slash = entry.indexOf('/');
  if (slash === -1) return { connectionId: null, name: entry };
  const connectionId = entry.slice(0, slash);
  const name = entry.slice(slash + 1);
  if (!CONNECTION_ID.test(connectionId) || name.length === 0) {
    return { problem: `tool entry ${shown} must be a tool's name, or <connectionId>/<name> with the tool server connection's id` };
  }
  return { connectionId: connectionId.toLowerCase(), name };
}

/** Why an entry is not one; null: it is. */
export function toolEntryProblem(entry: string): string | null {
  const parsed = parseToolEntry(entry);
  return 'problem' in parsed ? parsed.problem : null;
}

/** The entry naming one tool server's tool: `<connectionId>/<name>`. */
export function connectionToolEntry(connectionId: string, name: string): string {
  return `${connectionId}/${name}`;
}
