/**
 * The client's hand-written types (src/client/types.ts) against the OpenAPI document the routes
 * generate: same component names, same property names, same required/optional split. The
 * `shape<T>()` literals are checked by the compiler against the TypeScript types, and the test
 * compares them with the document, so a route change that is not carried into the client fails.
 */
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import type * as T from '../../src/client/types';

type Shape<X> = { [K in keyof Required<X>]-?: undefined extends X[K] ? 'optional' : 'required' };
const shape =
  <X>() =>
  (value: Shape<X>): Record<string, 'optional' | 'required'> =>
    value as Record<string, 'optional' | 'required'>;

const CLIENT_SHAPES: Record<string, Record<string, 'optional' | 'required'>> = {
  HealthReport: shape<T.HealthReport>()({ status: 'required', chainId: 'required', checks: 'required' }),
  DependencyCheck: shape<T.DependencyCheck>()({ ok: 'required', latencyMs: 'required', problem: 'optional' }),
  Error: shape<T.ErrorBody>()({ error: 'required', requestId: 'required' }),
  LoginInit: shape<T.LoginInit>()({ walletAddress: 'required', chainId: 'required', purpose: 'optional' }),
  LoginChallenge: shape<T.LoginChallenge>()({ nonce: 'required', message: 'required' }),
  LoginFinish: shape<T.LoginFinish>()({ walletAddress: 'required', chainId: 'required', signature: 'required', nonce: 'optional' }),
  AccessToken: shape<T.AccessToken>()({ token: 'required' }),
  WalletVerification: shape<T.WalletVerification>()({ walletAddress: 'required', chainId: 'required', message: 'required', signature: 'required' }),
  WalletVerified: shape<T.WalletVerified>()({ verified: 'required', walletAddress: 'required', chainId: 'required' }),
  AgentSummary: shape<T.AgentSummary>()({ chainId: 'required', agentCollectionAddress: 'required', agentTokenId: 'required', kind: 'required', owner: 'required' }),
  NewContext: shape<T.NewContext>()({ key: 'required' }),
  NewContexts: shape<T.NewContexts>()({ keys: 'required' }),
  ContextKeyPage: shape<T.ContextKeyPage>()({ page: 'required', elementsPerPage: 'required', totalElements: 'required', contextKeys: 'required' }),
  ContextBatchResult: shape<T.ContextBatchResult>()({ results: 'required' }),
  NewContextMessage: shape<T.NewContextMessage>()({ message: 'required', role: 'required' }),
  NewContextMessages: shape<T.NewContextMessages>()({ messages: 'required' }),
  ContextMessage: shape<T.ContextMessage>()({ id: 'required', role: 'required', message: 'required', createdAt: 'required' }),
  StoredContextMessages: shape<T.StoredContextMessages>()({ messages: 'required' }),
  ContextMessagePage: shape<T.ContextMessagePage>()({ messages: 'required', nextCursor: 'required', hasMore: 'required' }),
  LlmSettings: shape<T.LlmSettings>()({ provider: 'required', model: 'required', temperature: 'required', maxTokens: 'required', apiKeySet: 'required', credential: 'required', updatedAt: 'required' }),
  LlmSettingsInput: shape<T.LlmSettingsInput>()({ provider: 'required', model: 'required', temperature: 'required', maxTokens: 'required', apiKey: 'optional' }),
  PromptTemplate: shape<T.PromptTemplate>()({ key: 'required', template: 'required', description: 'required', updatedAt: 'required' }),
  PromptTemplateInput: shape<T.PromptTemplateInput>()({ template: 'required', description: 'optional' }),
  DatabaseFirstStep: shape<T.DatabaseFirstStep>()({ host: 'required', port: 'optional', database: 'required', user: 'required', password: 'required', ssl: 'optional' }),
  DatabaseFirstStepResult: shape<T.DatabaseFirstStepResult>()({ setupId: 'required', tables: 'required' }),
  DatabaseSecondStep: shape<T.DatabaseSecondStep>()({ setupId: 'required', tables: 'required' }),
  DatabaseSetup: shape<T.DatabaseSetup>()({
    setupId: 'required',
    host: 'required',
    port: 'required',
    database: 'required',
    user: 'required',
    ssl: 'required',
    status: 'required',
    credential: 'required',
    offeredTables: 'required',
    activeTables: 'required',
    createdAt: 'required',
    activatedAt: 'required',
  }),
  DatabaseSettings: shape<T.DatabaseSettings>()({ active: 'required', pending: 'required' }),
  NewMcpConnection: shape<T.NewMcpConnection>()({ url: 'required', name: 'optional', auth: 'required' }),
  McpConnection: shape<T.McpConnection>()({ id: 'required', url: 'required', name: 'required', auth: 'required', credential: 'required', tools: 'required', createdAt: 'required' }),
  McpConnectionAuth: shape<T.McpConnectionAuth>()({ auth: 'required' }),
  McpConnections: shape<T.McpConnections>()({ connections: 'required' }),
  McpConnectionDeleted: shape<T.McpConnectionDeleted>()({ id: 'required', deleted: 'required' }),
  McpTool: shape<T.McpTool>()({ name: 'required', description: 'required', inputSchema: 'required' }),
  McpLiveTools: shape<T.McpLiveTools>()({ tools: 'required', health: 'required' }),
  McpToolCall: shape<T.McpToolCall>()({ name: 'required', arguments: 'optional' }),
  // Open objects and unions: checked by hand below.
  McpToolResult: { content: 'required', isError: 'optional' },
  ToolServerAuthInput: {},
};

interface SchemaObject {
  properties?: Record<string, unknown>;
  required?: string[];
  oneOf?: SchemaObject[];
  anyOf?: SchemaObject[];
}

describe('client types', () => {
  const app = createApp();
  const doc = app.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 'agent-gateway', version: 'test' } });
  const schemas = (doc.components?.schemas ?? {}) as Record<string, SchemaObject>;

  it('cover every component of the OpenAPI document', () => {
    expect(Object.keys(CLIENT_SHAPES).sort()).toEqual(Object.keys(schemas).sort());
  });

  it('have the same properties, required and optional, as each component', () => {
    for (const [name, schema] of Object.entries(schemas)) {
      if (name === 'ToolServerAuthInput') continue;
      const required = new Set(schema.required ?? []);
      const documented = Object.fromEntries(Object.keys(schema.properties ?? {}).map((p) => [p, required.has(p) ? 'required' : 'optional']));
      expect(CLIENT_SHAPES[name], name).toEqual(documented);
    }
  });

  it('ToolServerAuthInput: the three auth types with their fields', () => {
    const variants = (schemas.ToolServerAuthInput!.oneOf ?? schemas.ToolServerAuthInput!.anyOf ?? []).map((v) => Object.keys(v.properties ?? {}).sort().join(','));
    expect(variants.sort()).toEqual(['headerName,type,value', 'type', 'type,value']);
    const samples: T.ToolServerAuthInput[] = [{ type: 'none' }, { type: 'bearer', value: 'v' }, { type: 'header', headerName: 'x-api-key', value: 'v' }];
    expect(samples.map((s) => Object.keys(s).sort().join(',')).sort()).toEqual(variants.sort());
  });
});
