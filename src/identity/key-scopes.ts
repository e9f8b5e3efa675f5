/**
 * What an agent key may be allowed to do: the one list, with no dependencies, so the
 * route schema (./scopes.ts) and the dashboard's key form (src/dashboard) read the same names.
 */
export const KEY_SCOPES = ['contexts:read', 'contexts:write', 'reply', 'mcp'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

/** What a route asks of an agent key: one scope, or `any` (every valid key of the agent). */
export type KeyRequirement = KeyScope | 'any';
