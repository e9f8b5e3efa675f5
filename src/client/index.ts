/**
 * `agent-gateway/client`: a typed client of the gateway's REST API over plain fetch (Node 22+ and
 * browsers).
 *
 * ```ts
 * import { createGatewayClient } from 'agent-gateway/client';
 * import { privateKeyToAccount } from 'viem/accounts';
 *
 * const client = createGatewayClient({ baseUrl: 'http://127.0.0.1:8788', login: { account: privateKeyToAccount(key), chainId: 80002 } });
 * await client.login();
 * const agent = client.agent(collection, tokenId);
 * await agent.createContexts(['customer:42/notes']);
 * await agent.appendMessages('customer:42/notes', [{ role: 'user', message: 'Prefers email.' }], { idempotencyKey: 'import-1' });
 * for await (const m of agent.messages('customer:42/notes')) console.log(m.id, m.role, m.message);
 * ```
 */
export { createGatewayClient, tokenExpiresAt } from './client';
export type { AgentClient, CallOptions, GatewayClient, GatewayClientOptions, LoginAccount, LoginSession } from './client';
export { GatewayError, isGatewayError, toolAuthorizationUrl } from './errors';
export { agentMcpUrl, type McpClientConfigs, type McpKeyRef, mcpClientConfigs } from './mcp-url';
export type * from './types';
