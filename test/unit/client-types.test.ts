/**
 * The client (src/client) against the OpenAPI document the routes generate. Its types are derived
 * from the route definitions (src/client/types.ts), so they cannot drift; these checks pin what
 * that derivation yields, name every component, and map every client method to its operation by
 * `operationId` and back: each call's method and path is matched to the document's operation.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { openApiDocument } from '../../scripts/lib/openapi-document';
import { createGatewayClient, type AgentClient, type GatewayClient } from '../../src/client';
import { OPERATIONS, pathOf } from '../../src/client/operations';
import type * as T from '../../src/client/types';

const BASE = 'http://gateway.test';
const COLLECTION = '0x5FbDB2315678afecb367f032d93F642f64180aa3';

/** Compiles only when `T.<name>` exists; the runtime list is compared with the document. */
const typeName = <X>(name: string) => name as string & { readonly __type?: X };

const COMPONENT_TYPES = [
  typeName<T.HealthReport>('HealthReport'),
  typeName<T.DependencyCheck>('DependencyCheck'),
  typeName<T.ErrorBody>('Error'),
  typeName<T.LoginInit>('LoginInit'),
  typeName<T.LoginChallenge>('LoginChallenge'),
  typeName<T.LoginFinish>('LoginFinish'),
  typeName<T.AccessToken>('AccessToken'),
  typeName<T.WalletVerification>('WalletVerification'),
  typeName<T.WalletVerified>('WalletVerified'),
  typeName<T.AgentSummary>('AgentSummary'),
  typeName<T.OwnedTokens>('OwnedTokens'),
  typeName<T.OwnedToken>('OwnedToken'),
  typeName<T.DelegatedToken>('DelegatedToken'),
  typeName<T.Collections>('Collections'),
  typeName<T.RegisteredCollection>('RegisteredCollection'),
  typeName<T.NewContext>('NewContext'),
  typeName<T.NewContexts>('NewContexts'),
  typeName<T.ContextKeyPage>('ContextKeyPage'),
  typeName<T.ContextBatchResult>('ContextBatchResult'),
  typeName<T.NewContextMessage>('NewContextMessage'),
  typeName<T.NewContextMessages>('NewContextMessages'),
  typeName<T.ContextMessage>('ContextMessage'),
  typeName<T.StoredContextMessages>('StoredContextMessages'),
  typeName<T.ContextMessagePage>('ContextMessagePage'),
  typeName<T.MemorySearch>('MemorySearch'),
  typeName<T.MemorySearchPage>('MemorySearchPage'),
  typeName<T.ContextSummary>('ContextSummary'),
  typeName<T.MemorySearchHit>('MemorySearchHit'),
  typeName<T.LlmSettings>('LlmSettings'),
  typeName<T.AgentAccess>('AgentAccess'),
  typeName<T.PaidAskRequest>('PaidAskRequest'),
  typeName<T.LlmSettingsInput>('LlmSettingsInput'),
  typeName<T.PromptTemplate>('PromptTemplate'),
  typeName<T.PromptTemplateInput>('PromptTemplateInput'),
  typeName<T.DatabaseFirstStep>('DatabaseFirstStep'),
  typeName<T.DatabaseFirstStepResult>('DatabaseFirstStepResult'),
  typeName<T.DatabaseSecondStep>('DatabaseSecondStep'),
  typeName<T.DatabaseSetup>('DatabaseSetup'),
  typeName<T.DatabaseSettings>('DatabaseSettings'),
  typeName<T.NewMcpConnection>('NewMcpConnection'),
  typeName<T.McpConnection>('McpConnection'),
  typeName<T.McpAuthorizeRequest>('McpAuthorizeRequest'),
  typeName<T.McpAuthorizeUrl>('McpAuthorizeUrl'),
  typeName<T.ClientMetadataDocument>('ClientMetadataDocument'),
  typeName<T.McpConnectionAuth>('McpConnectionAuth'),
  typeName<T.McpConnections>('McpConnections'),
  typeName<T.McpConnectionDeleted>('McpConnectionDeleted'),
  typeName<T.McpTool>('McpTool'),
  typeName<T.McpLiveTools>('McpLiveTools'),
  typeName<T.McpToolCall>('McpToolCall'),
  typeName<T.McpToolResult>('McpToolResult'),
  typeName<T.McpToolSummary>('McpToolSummary'),
  typeName<T.McpMessage>('McpMessage'),
  typeName<T.McpAnswer>('McpAnswer'),
  typeName<T.A2aRequest>('A2aRequest'),
  typeName<T.A2aAnswer>('A2aAnswer'),
  typeName<T.McpToolAnnotations>('McpToolAnnotations'),
  typeName<T.McpIcon>('McpIcon'),
  typeName<T.McpContent>('McpContent'),
  typeName<T.McpTextContent>('McpTextContent'),
  typeName<T.McpImageContent>('McpImageContent'),
  typeName<T.McpAudioContent>('McpAudioContent'),
  typeName<T.ProtectedResourceMetadata>('ProtectedResourceMetadata'),
  typeName<T.AuthorizationServerMetadata>('AuthorizationServerMetadata'),
  typeName<T.OAuthClientRegistration>('OAuthClientRegistration'),
  typeName<T.OAuthClientInformation>('OAuthClientInformation'),
  typeName<T.OAuthTokenRequest>('OAuthTokenRequest'),
  typeName<T.OAuthTokenResponse>('OAuthTokenResponse'),
  typeName<T.OAuthApproval>('OAuthApproval'),
  typeName<T.OAuthApproved>('OAuthApproved'),
  typeName<T.OAuthApprovalMessageRequest>('OAuthApprovalMessageRequest'),
  typeName<T.OAuthApprovalMessage>('OAuthApprovalMessage'),
  typeName<T.OAuthDenial>('OAuthDenial'),
  typeName<T.OAuthDenied>('OAuthDenied'),
  typeName<T.OAuthError>('OAuthError'),
  typeName<T.McpResourceLink>('McpResourceLink'),
  typeName<T.McpEmbeddedResource>('McpEmbeddedResource'),
  typeName<T.McpContentAnnotations>('McpContentAnnotations'),
  typeName<T.ToolServerAuthInput>('ToolServerAuthInput'),
  typeName<T.NewAgentKey>('NewAgentKey'),
  typeName<T.AgentKeyScope>('AgentKeyScope'),
  typeName<T.CreatedAgentKey>('CreatedAgentKey'),
  typeName<T.AgentKeys>('AgentKeys'),
  typeName<T.AgentKey>('AgentKey'),
  typeName<T.AgentKeyRevoked>('AgentKeyRevoked'),
  typeName<T.OAuthGrants>('OAuthGrants'),
  typeName<T.OAuthGrant>('OAuthGrant'),
  typeName<T.OAuthGrantRevoked>('OAuthGrantRevoked'),
  typeName<T.PromptTemplatePage>('PromptTemplatePage'),
  typeName<T.PromptTemplateSummary>('PromptTemplateSummary'),
  typeName<T.AuditPage>('AuditPage'),
  typeName<T.AuditEntry>('AuditEntry'),
  typeName<T.AuditActor>('AuditActor'),
  typeName<T.AuditTarget>('AuditTarget'),
  typeName<T.UsageLimitsInput>('UsageLimitsInput'),
  typeName<T.UsageLimits>('UsageLimits'),
  typeName<T.UsageReport>('UsageReport'),
  typeName<T.UsageTotals>('UsageTotals'),
  typeName<T.UsageGroup>('UsageGroup'),
  typeName<T.ReplyRequest>('ReplyRequest'),
  typeName<T.ReplyAnswer>('ReplyAnswer'),
  typeName<T.ReplyStep>('ReplyStep'),
  typeName<T.ReplyEvent>('ReplyEvent'),
  typeName<T.ChatCompletionRequest>('ChatCompletionRequest'),
  typeName<T.ChatCompletionMessage>('ChatCompletionMessage'),
  typeName<T.ChatCompletion>('ChatCompletion'),
  typeName<T.ChatCompletionFinishReason>('ChatCompletionFinishReason'),
  typeName<T.ChatCompletionUsage>('ChatCompletionUsage'),
  typeName<T.ChatCompletionChunk>('ChatCompletionChunk'),
  typeName<T.AgentProfile>('AgentProfile'),
  typeName<T.AgentProfileInput>('AgentProfileInput'),
  typeName<T.AgentRegistration>('AgentRegistration'),
  typeName<T.AgentCard>('AgentCard'),
];

/** Client members that are not one operation: state, helpers walking pages, older names. */
type NotOperations = 'baseUrl' | 'token' | 'setToken' | 'login' | 'agent' | 'health' | 'ownedTokens';
type NotAgentOperations =
  | 'collection'
  | 'tokenId'
  | 'path'
  | 'contextKeys'
  | 'contextKeyPages'
  | 'messagePages'
  | 'messages'
  | 'search'
  | 'searchPages'
  | 'searchHits'
  | 'summary'
  | 'reply'
  | 'replyStream'
  | 'auditPages'
  | 'audit'
  | 'promptTemplates';

/** One call of every operation method; the compiler insists every method is listed. */
const GATEWAY_CALLS: { [K in Exclude<keyof GatewayClient, NotOperations>]: (c: GatewayClient) => Promise<unknown> } = {
  getHealth: (c) => c.getHealth(),
  initLogin: (c) => c.initLogin({ walletAddress: COLLECTION, chainId: 80002 }),
  finishLogin: (c) => c.finishLogin({ walletAddress: COLLECTION, chainId: 80002, signature: '0x00' }),
  verifyWallet: (c) => c.verifyWallet({ walletAddress: COLLECTION, chainId: 80002, message: 'm', signature: '0x00' }),
  listCollections: (c) => c.listCollections(),
  listOwnedTokens: (c) => c.listOwnedTokens(COLLECTION),
  getProtectedResourceMetadata: (c) => c.getProtectedResourceMetadata(COLLECTION, 7n),
  getA2aProtectedResourceMetadata: (c) => c.getA2aProtectedResourceMetadata(COLLECTION, 7n),
  getAuthorizationServerMetadata: (c) => c.getAuthorizationServerMetadata(),
  registerOAuthClient: (c) => c.registerOAuthClient({ redirect_uris: ['http://127.0.0.1:9/cb'] }),
  oauthToken: (c) => c.oauthToken({ grant_type: 'refresh_token', refresh_token: 'r' }),
  getClientMetadataDocument: (c) => c.getClientMetadataDocument(),
  oauthApprove: (c) => c.oauthApprove({ handle: 'h', walletAddress: COLLECTION, chainId: 80002, nonce: 'n'.repeat(16), signature: '0x00' }),
  oauthApprovalMessage: (c) => c.oauthApprovalMessage({ clientId: 'c', resource: 'r', walletAddress: COLLECTION, chainId: 80002 }),
  oauthDeny: (c) => c.oauthDeny({ handle: 'h' }),
};
/** Operations a browser opens rather than a client calls: the authorize page and the tool-server OAuth callback (HTML). */
const BROWSER_PAGES = ['oauthAuthorizePage', 'toolServerOAuthCallback'];
const AGENT_CALLS: { [K in Exclude<keyof AgentClient, NotAgentOperations>]: (a: AgentClient) => Promise<unknown> } = {
  getAgent: (a) => a.getAgent(),
  listContextKeys: (a) => a.listContextKeys({ page: 2 }),
  createContext: (a) => a.createContext('notes'),
  createContexts: (a) => a.createContexts(['notes']),
  appendMessage: (a) => a.appendMessage('notes', { role: 'user', message: 'hi' }),
  appendMessages: (a) => a.appendMessages('notes', [{ role: 'user', message: 'hi' }]),
  readMessages: (a) => a.readMessages('notes'),
  readSummary: (a) => a.readSummary('notes'),
  searchMemory: (a) => a.searchMemory({ query: 'invoice', contextPrefix: 'customer:' }),
  getLlmSettings: (a) => a.getLlmSettings(),
  saveLlmSettings: (a) => a.saveLlmSettings({ provider: 'openai', model: 'm', temperature: 0, maxTokens: 1 }),
  getPromptTemplate: (a) => a.getPromptTemplate('system'),
  savePromptTemplate: (a) => a.savePromptTemplate('system', { template: 't' }),
  listPromptTemplates: (a) => a.listPromptTemplates({ limit: 10 }),
  databaseFirstStep: (a) => a.databaseFirstStep({ host: 'db.example.org', database: 'd', user: 'u', password: 'p' }),
  databaseSecondStep: (a) => a.databaseSecondStep({ setupId: 's', tables: ['public.t'] }),
  getDatabaseSettings: (a) => a.getDatabaseSettings(),
  listMcpConnections: (a) => a.listMcpConnections(),
  addMcpConnection: (a) => a.addMcpConnection({ url: 'https://tools.example.org/mcp', auth: { type: 'none' } }),
  removeMcpConnection: (a) => a.removeMcpConnection('id-1'),
  listMcpTools: (a) => a.listMcpTools('id-1'),
  callMcpTool: (a) => a.callMcpTool('id-1', { name: 'echo' }),
  replaceMcpAuth: (a) => a.replaceMcpAuth('id-1', { type: 'bearer', value: 'v' }),
  authorizeMcpConnection: (a) => a.authorizeMcpConnection('id-1'),
  createAgentKey: (a) => a.createAgentKey({ name: 'n', scopes: ['contexts:read'] }),
  listAgentKeys: (a) => a.listAgentKeys(),
  revokeAgentKey: (a) => a.revokeAgentKey('id-1'),
  listOAuthGrants: (a) => a.listOAuthGrants(),
  revokeOAuthGrant: (a) => a.revokeOAuthGrant('grant-1'),
  listAuditEntries: (a) => a.listAuditEntries({ limit: 10 }),
  getUsage: (a) => a.getUsage({ from: '2026-11-01', groupBy: 'credential' }),
  replyToContext: (a) => a.replyToContext('notes', { message: 'hi' }),
  createChatCompletion: (a) => a.createChatCompletion({ messages: [{ role: 'user', content: 'hi' }] }),
  getProfile: (a) => a.getProfile(),
  setProfile: (a) => a.setProfile({ name: 'Desk', description: 'Orders.', image: 'https://example.com/a.png' }),
  getRegistration: (a) => a.getRegistration(),
  getAgentCard: (a) => a.getAgentCard(),
  agentMcp: (a) => a.agentMcp({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  agentA2a: (a) => a.agentA2a({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 't' } }),
  paidAsk: (a) => a.paidAsk({ message: 'hello' }),
};

interface Operation {
  operationId?: string;
}

describe('client types', () => {
  it('are the route schemas: bodies as written, answers as sent, queries parsed', () => {
    expectTypeOf<T.LoginInit>().toEqualTypeOf<{ walletAddress: string; chainId: number; purpose?: 'login' | 'pairing' | undefined }>();
    expectTypeOf<T.ContextKeysQuery>().toEqualTypeOf<{
      page?: number;
      elementsPerPage?: number;
      search?: string | undefined;
      sortBy?: 'key';
      sortDirection?: 'asc' | 'desc';
      after?: string | undefined;
    }>();
    expectTypeOf<T.ContextKeyPage['nextAfter']>().toEqualTypeOf<string | null>();
    expectTypeOf<T.MessagesQuery>().toEqualTypeOf<{ cursor?: string | undefined; limit?: number; order?: 'asc' | 'desc' }>();
    expectTypeOf<T.PromptTemplatesQuery>().toEqualTypeOf<{ cursor?: string | undefined; limit?: number }>();
    expectTypeOf<T.PromptTemplatePage['nextCursor']>().toEqualTypeOf<string | null>();
    expectTypeOf<T.DatabaseSettings['active']>().toEqualTypeOf<T.DatabaseSetup | null>();
    expectTypeOf<T.DatabaseFirstStep['port']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<T.ContextMessagePage['nextCursor']>().toEqualTypeOf<string | null>();
    expectTypeOf<T.McpToolCall['arguments']>().toEqualTypeOf<Record<string, unknown> | undefined>();
    expectTypeOf<T.LlmSettingsInput['apiKey']>().toEqualTypeOf<string | null | undefined>();
    expectTypeOf<T.ToolServerAuthInput>().toEqualTypeOf<
      | { type: 'none' }
      | { type: 'bearer'; value: string }
      | { type: 'header'; headerName: string; value: string }
      | { type: 'oauth'; scopes?: string[] | undefined; clientId?: string | undefined; clientSecret?: string | undefined }
    >();
    expectTypeOf<T.Role>().toEqualTypeOf<'user' | 'system' | 'assistant'>();
    expectTypeOf<T.CredentialState>().toEqualTypeOf<'set' | 'reenter_required' | 'none'>();
    expectTypeOf<'validation_failed'>().toExtend<T.ErrorCode>();
    expectTypeOf<T.ErrorBody>().toEqualTypeOf<{ error: { code: string; message: string; details?: unknown }; requestId: string }>();
    expectTypeOf<T.WalletVerified['verified']>().toEqualTypeOf<true>();
    expectTypeOf<T.UsageQuery>().toEqualTypeOf<{
      from?: string | undefined;
      to?: string | undefined;
      groupBy?: 'day' | 'credential' | 'context';
    }>();
    expectTypeOf<T.UsageLimits>().toEqualTypeOf<{ tokensPerDay: number | null }>();
    expectTypeOf<T.LlmSettings['limits']>().toEqualTypeOf<T.UsageLimits>();
  });

  it('name every component of the OpenAPI document', async () => {
    const doc = (await openApiDocument()) as { components: { schemas: Record<string, unknown> } };
    expect([...COMPONENT_TYPES].sort()).toEqual(Object.keys(doc.components.schemas).sort());
  });
});

describe('client methods and operationIds', () => {
  it('every operation method calls the operation of its name, and every operation has a method', async () => {
    const doc = (await openApiDocument()) as { paths: Record<string, Record<string, Operation>> };
    const operations = Object.entries(doc.paths).flatMap(([template, ops]) =>
      Object.entries(ops).map(([method, op]) => ({
        method: method.toUpperCase(),
        pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
        operationId: op.operationId,
      })),
    );
    const seen: { method: string; path: string }[] = [];
    const client = createGatewayClient({
      baseUrl: BASE,
      token: 'token',
      fetch: async (input, init) => {
        seen.push({ method: init.method ?? 'GET', path: new URL(input).pathname });
        return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
      },
    });
    const agent = client.agent(COLLECTION, 7n);
    const calls: [string, () => Promise<unknown>][] = [
      ...Object.entries(GATEWAY_CALLS).map(([name, run]): [string, () => Promise<unknown>] => [name, () => run(client)]),
      ...Object.entries(AGENT_CALLS).map(([name, run]): [string, () => Promise<unknown>] => [name, () => run(agent)]),
    ];
    for (const [name, run] of calls) {
      seen.length = 0;
      await run();
      expect(seen, name).toHaveLength(1);
      const { method, path } = seen[0]!;
      const matches = operations.filter((op) => op.method === method && op.pattern.test(path));
      expect(
        matches.map((op) => op.operationId),
        `${name}: ${method} ${path}`,
      ).toEqual([name]);
    }
    const ids = operations.map((op) => op.operationId).filter((id) => !BROWSER_PAGES.includes(id ?? ''));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(calls.map(([name]) => name).sort());
  });

  it("the client's operation table is the document's: each operationId with its method and path", async () => {
    const doc = (await openApiDocument()) as { paths: Record<string, Record<string, Operation>> };
    const byId = new Map(
      Object.entries(doc.paths).flatMap(([path, ops]) =>
        Object.entries(ops).map(([method, op]): [string, readonly [string, string]] => [
          op.operationId ?? '',
          [method.toUpperCase(), path],
        ]),
      ),
    );
    for (const [id, entry] of Object.entries(OPERATIONS)) expect(byId.get(id), id).toEqual(entry);
    expect(pathOf('readMessages', { agentCollectionAddress: COLLECTION, agentTokenId: '7', contextKey: 'customer:42/notes' })).toBe(
      `/agent/${COLLECTION}/7/context/customer%3A42%2Fnotes/messages`,
    );
  });

  it('older names call the same operations', async () => {
    const seen: string[] = [];
    const client = createGatewayClient({
      baseUrl: BASE,
      token: 'token',
      fetch: async (input, init) => {
        seen.push(`${init.method} ${new URL(input).pathname}`);
        return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
      },
    });
    await client.health();
    await client.getHealth();
    await client.ownedTokens(COLLECTION);
    await client.listOwnedTokens(COLLECTION);
    await client.agent(COLLECTION, 7n).summary();
    await client.agent(COLLECTION, 7n).getAgent();
    await client.agent(COLLECTION, 7n).reply('notes');
    await client.agent(COLLECTION, 7n).replyStream('notes');
    expect(seen).toEqual([
      'GET /health',
      'GET /health',
      `GET /wallet/collections/${COLLECTION}/tokens`,
      `GET /wallet/collections/${COLLECTION}/tokens`,
      `GET /agent/${COLLECTION}/7`,
      `GET /agent/${COLLECTION}/7`,
      `POST /agent/${COLLECTION}/7/context/notes/reply`,
      `POST /agent/${COLLECTION}/7/context/notes/reply`,
    ]);
  });
});
