import { compileRouteTable, type RouteTable } from '../http/routes-table';
import type { AgentRole } from '../chain/agent-access';
import { AppError } from '../errors';
import type { AgentAccessChoice } from '../settings/access.service';

export type { AgentRole };

/** What the owner lets a role do: nothing, use the agent, or also administer it (delegates only). */
export type AccessLevel = 'none' | 'use' | 'admin';

/**
 * The one table of what a delegate or a renter may call, by operationId, and the level it needs.
 * Every agent route not named here is the owner's alone (deny by default: 403 `not_owner`), among
 * them usage, the audit trail, database setup and OAuth grants. `use`: the agent as a tool (its
 * summary, replies, chat, memory read, search and append, its MCP server and A2A). `admin` adds
 * what configures it: LLM settings (never `access` or `limits`, never a secret in clear), prompt templates,
 * tool servers and agent keys, and reading the profile (writing it stays the owner's).
 */
export const ROLE_ROUTE_ACCESS: Readonly<Record<string, 'use' | 'admin'>> = {
  getAgent: 'use',
  replyToContext: 'use',
  createChatCompletion: 'use',
  listContextKeys: 'use',
  readMessages: 'use',
  readSummary: 'use',
  searchMemory: 'use',
  createContext: 'use',
  createContexts: 'use',
  appendMessage: 'use',
  appendMessages: 'use',
  agentMcp: 'use',
  agentA2a: 'use',
  getLlmSettings: 'admin',
  saveLlmSettings: 'admin',
  getPromptTemplate: 'admin',
  savePromptTemplate: 'admin',
  listPromptTemplates: 'admin',
  listMcpConnections: 'admin',
  addMcpConnection: 'admin',
  removeMcpConnection: 'admin',
  replaceMcpAuth: 'admin',
  authorizeMcpConnection: 'admin',
  listMcpTools: 'admin',
  callMcpTool: 'admin',
  createAgentKey: 'admin',
  listAgentKeys: 'admin',
  revokeAgentKey: 'admin',
  getProfile: 'admin',
};

interface RouteDefinitionLike {
  type: string;
  route?: { method: string; path: string; operationId?: string };
}

/** The level a request needs from a delegate or a renter; undefined: the owner's alone. */
export interface RoleAccess {
  levelFor(method: string, path: string): 'use' | 'admin' | undefined;
}

/** Compiles ROLE_ROUTE_ACCESS against the app's route definitions (its OpenAPI registry). */
export function compileRoleAccess(definitions: readonly RouteDefinitionLike[]): RoleAccess {
  const tables = (['use', 'admin'] as const).map((level): ['use' | 'admin', RouteTable] => [
    level,
    compileRouteTable(
      definitions.flatMap((d) =>
        d.type === 'route' && d.route?.operationId !== undefined && ROLE_ROUTE_ACCESS[d.route.operationId] === level ? [d.route] : [],
      ),
    ),
  ]);
  return {
    levelFor(method, path) {
      return tables.find(([, table]) => table.methodsFor(path).includes(method))?.[0];
    },
  };
}

/** The owner's grant to `role` under `choice`. */
export function grantedLevel(role: 'delegate' | 'renter', choice: AgentAccessChoice): AccessLevel {
  return role === 'delegate' ? choice.delegates : choice.renters;
}

/** Whether `granted` covers `needed` (`admin` covers `use`). */
export function levelCovers(granted: AccessLevel, needed: 'use' | 'admin'): boolean {
  return granted === 'admin' || (granted === 'use' && needed === 'use');
}

/** The refusal of a caller who is not the owner and may not do this (the same as a stranger's). */
export function notOwner(): AppError {
  return new AppError('not_owner', 'You are not the owner of this agent');
}
