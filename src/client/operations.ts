/**
 * Every operation the client calls: its method and path template, by operationId. The route
 * objects (`src/*\/*.routes.ts`, `createRoute`) are the contract; this table is the client's copy
 * of their method and path, and the compiler checks each entry against its route's literal types
 * (`satisfies` below): a route that changes its path or method breaks the client's build, never
 * its calls. The copy exists because importing the route objects themselves would bundle zod and
 * the worker's schemas into the browser client; only their types are imported.
 * `test/unit/client-types.test.ts` checks the operationIds against the OpenAPI document.
 */
import type { getAgentCard } from '../a2a/card.routes';
import type { getAgent } from '../agents/agents.routes';
import type { listAuditEntries } from '../audit/audit.routes';
import type { finishLogin, initLogin, verifyWalletRoute } from '../auth/auth.routes';
import type { listCollections, listOwnedTokens } from '../collections/collections.routes';
import type * as contexts from '../contexts/contexts.routes';
import type { getHealth } from '../health/health.routes';
import type { createAgentKey, listAgentKeys, revokeAgentKey } from '../keys/keys.routes';
import type { agentMcp } from '../mcp-server/agent-mcp.routes';
import type { agentA2a } from '../a2a/a2a.routes';
import type { paidAsk } from '../paid/paid.routes';
import type { searchMemory } from '../memory/memory.routes';
import type { listOAuthGrants, revokeOAuthGrant } from '../oauth/grants.routes';
import type * as oauth from '../oauth/oauth.routes';
import type { createChatCompletion } from '../openai-compat/chat.routes';
import type { getProfile, getRegistration, setProfile } from '../profile/profile.routes';
import type { replyToContext } from '../replies/replies.routes';
import type { firstStep, getDatabaseSettings, secondStep } from '../settings/database.routes';
import type * as settings from '../settings/settings.routes';
import type { readSummary } from '../summaries/summaries.routes';
import type * as toolServers from '../tool-servers/mcp.routes';
import type * as toolServerOAuth from '../tool-servers/oauth/oauth.routes';
import type { getUsage } from '../usage/usage.routes';
import type { ResponseOf } from './types';

/** The route object of each operation the client calls, by operationId. */
export interface Routes {
  getHealth: typeof getHealth;
  initLogin: typeof initLogin;
  finishLogin: typeof finishLogin;
  verifyWallet: typeof verifyWalletRoute;
  listCollections: typeof listCollections;
  listOwnedTokens: typeof listOwnedTokens;
  getProtectedResourceMetadata: typeof oauth.protectedResourceMetadata;
  getA2aProtectedResourceMetadata: typeof oauth.a2aProtectedResourceMetadata;
  getAuthorizationServerMetadata: typeof oauth.authorizationServerMetadata;
  registerOAuthClient: typeof oauth.registerClient;
  oauthToken: typeof oauth.token;
  oauthApprove: typeof oauth.approve;
  oauthApprovalMessage: typeof oauth.approvalMessage;
  oauthDeny: typeof oauth.deny;
  getAgent: typeof getAgent;
  listContextKeys: typeof contexts.listContextKeys;
  createContext: typeof contexts.createContext;
  createContexts: typeof contexts.createContexts;
  appendMessage: typeof contexts.appendMessage;
  appendMessages: typeof contexts.appendMessages;
  readMessages: typeof contexts.readMessages;
  readSummary: typeof readSummary;
  searchMemory: typeof searchMemory;
  getLlmSettings: typeof settings.getLlmSettings;
  saveLlmSettings: typeof settings.saveLlmSettings;
  getPromptTemplate: typeof settings.getPromptTemplate;
  savePromptTemplate: typeof settings.savePromptTemplate;
  listPromptTemplates: typeof settings.listPromptTemplates;
  getProfile: typeof getProfile;
  setProfile: typeof setProfile;
  getRegistration: typeof getRegistration;
  getAgentCard: typeof getAgentCard;
  databaseFirstStep: typeof firstStep;
  databaseSecondStep: typeof secondStep;
  getDatabaseSettings: typeof getDatabaseSettings;
  createAgentKey: typeof createAgentKey;
  listAgentKeys: typeof listAgentKeys;
  revokeAgentKey: typeof revokeAgentKey;
  listOAuthGrants: typeof listOAuthGrants;
  revokeOAuthGrant: typeof revokeOAuthGrant;
  listAuditEntries: typeof listAuditEntries;
  getUsage: typeof getUsage;
  listMcpConnections: typeof toolServers.listConnections;
  addMcpConnection: typeof toolServers.addConnection;
  removeMcpConnection: typeof toolServers.removeConnection;
  listMcpTools: typeof toolServers.listTools;
  callMcpTool: typeof toolServers.callTool;
  replaceMcpAuth: typeof toolServers.replaceConnectionAuth;
  authorizeMcpConnection: typeof toolServerOAuth.authorizeConnection;
  getClientMetadataDocument: typeof toolServerOAuth.clientMetadata;
  replyToContext: typeof replyToContext;
  createChatCompletion: typeof createChatCompletion;
  agentMcp: typeof agentMcp;
  agentA2a: typeof agentA2a;
  paidAsk: typeof paidAsk;
}

/** A route's method (upper case, as fetch sends it) and path template, exactly as its route object says them. */
type Entry<Route> = Route extends { method: infer M extends string; path: infer P extends string } ? readonly [Uppercase<M>, P] : never;

const A = '/agent/{agentCollectionAddress}/{agentTokenId}';

export const OPERATIONS = {
  getHealth: ['GET', '/health'],
  initLogin: ['POST', '/auth/jwt/init'],
  finishLogin: ['POST', '/auth/jwt/finish'],
  verifyWallet: ['POST', '/wallet/verify'],
  listCollections: ['GET', '/collections'],
  listOwnedTokens: ['GET', '/wallet/collections/{agentCollectionAddress}/tokens'],
  getProtectedResourceMetadata: ['GET', `/.well-known/oauth-protected-resource${A}/mcp`],
  getA2aProtectedResourceMetadata: ['GET', `/.well-known/oauth-protected-resource${A}/a2a`],
  getAuthorizationServerMetadata: ['GET', '/.well-known/oauth-authorization-server'],
  registerOAuthClient: ['POST', '/oauth/register'],
  oauthToken: ['POST', '/oauth/token'],
  oauthApprove: ['POST', '/oauth/authorize'],
  oauthApprovalMessage: ['POST', '/oauth/authorize/message'],
  oauthDeny: ['POST', '/oauth/authorize/deny'],
  getAgent: ['GET', A],
  listContextKeys: ['GET', `${A}/contexts/keys`],
  createContext: ['POST', `${A}/context`],
  createContexts: ['POST', `${A}/contexts`],
  appendMessage: ['POST', `${A}/context/{contextKey}/message`],
  appendMessages: ['POST', `${A}/context/{contextKey}/messages`],
  readMessages: ['GET', `${A}/context/{contextKey}/messages`],
  readSummary: ['GET', `${A}/context/{contextKey}/summary`],
  searchMemory: ['POST', `${A}/memory/search`],
  getLlmSettings: ['GET', `${A}/llm/settings`],
  saveLlmSettings: ['POST', `${A}/llm/settings`],
  getPromptTemplate: ['GET', `${A}/prompt-template/{key}`],
  savePromptTemplate: ['POST', `${A}/prompt-template/{key}`],
  listPromptTemplates: ['GET', `${A}/prompt-templates`],
  getProfile: ['GET', `${A}/profile`],
  setProfile: ['PUT', `${A}/profile`],
  getRegistration: ['GET', `${A}/registration.json`],
  getAgentCard: ['GET', `${A}/.well-known/agent-card.json`],
  databaseFirstStep: ['POST', `${A}/database/settings/first-step`],
  databaseSecondStep: ['POST', `${A}/database/settings/second-step`],
  getDatabaseSettings: ['GET', `${A}/database/settings`],
  createAgentKey: ['POST', `${A}/keys`],
  listAgentKeys: ['GET', `${A}/keys`],
  revokeAgentKey: ['DELETE', `${A}/keys/{id}`],
  listOAuthGrants: ['GET', `${A}/oauth/grants`],
  revokeOAuthGrant: ['DELETE', `${A}/oauth/grants/{grantId}`],
  listAuditEntries: ['GET', `${A}/audit`],
  getUsage: ['GET', `${A}/usage`],
  listMcpConnections: ['GET', `${A}/mcp/connections`],
  addMcpConnection: ['POST', `${A}/mcp/connection`],
  removeMcpConnection: ['DELETE', `${A}/mcp/connection/{id}`],
  listMcpTools: ['GET', `${A}/mcp/connection/{id}/tools`],
  callMcpTool: ['POST', `${A}/mcp/connection/{id}/tools/call`],
  replaceMcpAuth: ['PUT', `${A}/mcp/connection/{id}/auth`],
  authorizeMcpConnection: ['POST', `${A}/mcp/connection/{id}/authorize`],
  getClientMetadataDocument: ['GET', '/oauth/client.json'],
  replyToContext: ['POST', `${A}/context/{contextKey}/reply`],
  createChatCompletion: ['POST', `${A}/v1/chat/completions`],
  agentMcp: ['POST', `${A}/mcp`],
  agentA2a: ['POST', `${A}/a2a`],
  paidAsk: ['POST', `${A}/paid/ask`],
} as const satisfies { readonly [Id in keyof Routes]: Entry<Routes[Id]> };

export type OperationId = keyof typeof OPERATIONS;
export type Method = (typeof OPERATIONS)[OperationId][0];
/** The JSON an operation answers with 200, as its route declares it. */
export type AnswerOf<Id extends OperationId> = ResponseOf<Routes[Id]>;

/** The `{name}` parameters of a path template. */
type ParamNames<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}` ? Name | ParamNames<Rest> : never;

/** The values of an operation's path parameters, by name. */
export type PathParams<Id extends OperationId> = Record<ParamNames<(typeof OPERATIONS)[Id][1]>, string>;

/** The path of an operation, each `{name}` replaced by its value, percent-encoded. */
export function pathOf<Id extends OperationId>(id: Id, params: PathParams<Id>): string {
  const values = params as Record<string, string>;
  return OPERATIONS[id][1].replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? ''));
}
