/**
 * A tool source: one file per source (tool-servers.ts, memory.ts, ask.ts), listed once in
 * sources.ts. The catalog (catalog.ts) asks every source for its tools and applies the caller's
 * surface, rights and allowlist itself, so a source only says what its tools are.
 */
import type { MessagesDeps } from '../contexts/messages.service';
import type { Agent } from '../identity/agent';
import type { ConnectionTools } from '../tool-servers/agent-tools';
import type { McpDeps } from '../tool-servers/connections.service';
import type { ToolRights } from './rights';
import { parseToolEntry } from './tool-entry';
import type { AgentTool, Surface } from './tool';

/** A reply run for `ask` in `contextKey`, with the caller's rights narrowed as `ask` narrowed them. */
export interface ConversationRequest {
  contextKey: string;
  message: string;
  rights: ToolRights;
  allowedTools: readonly string[] | null;
}

/**
 * How `ask` converses: given by a surface that offers it (the agent's MCP server), so this layer
 * runs no reply itself. `progress`: the reply's text and tool calls as they come.
 */
export interface Conversation {
  /** The context `ask` uses when the call names none (`mcp/{keyId}` for a key, `mcp/{wallet}` otherwise). */
  defaultContextKey: string;
  reply(
    request: ConversationRequest,
    progress: ((message: string) => void) | undefined,
    signal: AbortSignal | undefined,
  ): Promise<{ text: string; answer: Record<string, unknown> }>;
}

/** What the sources need of one request. */
export interface ToolEnv {
  agent: Agent;
  store: MessagesDeps;
  mcp: McpDeps;
  /** The agent's connections as registered (read once, maybe already under way); asked only after the owner check. */
  connections(): Promise<ConnectionTools[]>;
  /** Given by a surface whose `ask` runs replies; absent: no `ask`. */
  conversation?: Conversation;
}

/** Who asks for the catalog. */
export interface ToolCaller {
  surface: Surface;
  rights: ToolRights;
  /** The caller's tool allowlist (an agent key's `tools`, entries as in ./tool-entry.ts); null: every tool. */
  allowedTools: readonly string[] | null;
}

export interface ToolSource {
  /** Names its tools always take (a built-in's), offered or not, on every surface: no other source's tool gets them. */
  readonly reserved: readonly string[];
  /**
   * Its tools, none named as in `taken` (the names the other sources reserved). `caller` is for a
   * source that can skip work no caller could use (reading the connections when the allowlist names
   * none of theirs) or whose tools act for the caller (`ask`); the catalog filters on its own.
   */
  tools(env: ToolEnv, caller: ToolCaller, taken: ReadonlySet<string>): AgentTool[] | Promise<AgentTool[]>;
}

/**
 * Whether the caller's allowlist (./tool-entry.ts) lets `tool` through, by its source and real
 * name: a built-in by its name alone; a tool-server tool by `<connectionId>/<name>`, or by its
 * name alone unless that name is one of `reserved` (the built-ins': a built-in's name alone never
 * reaches a tool server's tool of that name).
 */
export function allows(caller: ToolCaller, tool: Pick<AgentTool, 'realName' | 'connectionId'>, reserved: ReadonlySet<string>): boolean {
  if (caller.allowedTools === null) return true;
  const { connectionId, realName } = tool;
  return caller.allowedTools.some((entry) => {
    const parsed = parseToolEntry(entry);
    if ('problem' in parsed) return false;
    if (connectionId === null) return parsed.connectionId === null && parsed.name === realName;
    if (parsed.name !== realName) return false;
    return parsed.connectionId === null ? !reserved.has(realName) : parsed.connectionId === connectionId.toLowerCase();
  });
}

/** Whether the caller may call the built-in `name` (a built-in's real name is its name). */
export function allowsBuiltIn(caller: ToolCaller, name: string): boolean {
  return allows(caller, { realName: name, connectionId: null }, new Set());
}
