import { z } from '@hono/zod-openapi';
import { compileRouteTable, type RouteTable } from '../http/routes-table';
import { KEY_SCOPES, type KeyRequirement, type KeyScope } from '../identity/key-scopes';

export { KEY_SCOPES, type KeyRequirement, type KeyScope };

export const KeyScopeSchema = z.enum(KEY_SCOPES).openapi('AgentKeyScope', {
  description:
    '`contexts:read`: list context keys, read messages and summaries, search memory. `contexts:write`: create ' +
    "contexts (one or a batch), append messages (one or a batch). `reply`: the agent's reply endpoint and " +
    "its OpenAI-compatible chat completions. `mcp`: the agent's MCP server (POST /agent/{c}/{t}/mcp), every " +
    "tool on it (alone enough for `ask` and the memory tools; narrowed by the key's `tools`, which also narrows the tools of its replies).",
});

/**
 * The one table of what an agent key may call, by operationId, and the scope each needs. Every
 * agent route not named here refuses keys with 403 `key_not_allowed` (deny by default): agent keys,
 * LLM settings, prompt templates, tool servers, database setup.
 */
export const KEY_ROUTE_SCOPES: Readonly<Record<string, KeyRequirement>> = {
  // The agent summary (kind, owner: public on-chain facts): a pipeline checks its agent first.
  getAgent: 'any',
  listContextKeys: 'contexts:read',
  readMessages: 'contexts:read',
  readSummary: 'contexts:read',
  searchMemory: 'contexts:read',
  createContext: 'contexts:write',
  createContexts: 'contexts:write',
  appendMessage: 'contexts:write',
  appendMessages: 'contexts:write',
  replyToContext: 'reply',
  createChatCompletion: 'reply',
  agentMcp: 'mcp',
  agentA2a: 'reply',
};

interface RouteDefinitionLike {
  type: string;
  route?: { method: string; path: string; operationId?: string };
}

/** Which scope a request needs, from the method and concrete path; undefined: keys not allowed. */
export interface KeyAccess {
  scopeFor(method: string, path: string): KeyRequirement | undefined;
}

/** Compiles KEY_ROUTE_SCOPES against the app's route definitions (its OpenAPI registry). */
export function compileKeyAccess(definitions: readonly RouteDefinitionLike[]): KeyAccess {
  const tables = [...KEY_SCOPES, 'any' as const].map((scope): [KeyRequirement, RouteTable] => [
    scope,
    compileRouteTable(
      definitions.flatMap((d) =>
        d.type === 'route' && d.route?.operationId !== undefined && KEY_ROUTE_SCOPES[d.route.operationId] === scope ? [d.route] : [],
      ),
    ),
  ]);
  return {
    scopeFor(method, path) {
      return tables.find(([, table]) => table.methodsFor(path).includes(method))?.[0];
    },
  };
}
