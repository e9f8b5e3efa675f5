/** An agent's tool servers (other people's MCP servers it calls): connect, list, call, re-enter a credential, authorize (OAuth). */
import type { AgentCalls } from './agent-calls';
import type { CallOptions } from './options';
import type {
  McpAuthorizeUrl,
  McpConnection,
  McpConnectionDeleted,
  McpConnections,
  McpLiveTools,
  McpToolCall,
  McpToolResult,
  NewMcpConnection,
  ToolServerAuthInput,
} from './types';

export interface ToolServerMethods {
  /** `GET …/mcp/connections`. */
  listMcpConnections(options?: CallOptions): Promise<McpConnections>;
  /** `POST …/mcp/connection`. */
  addMcpConnection(connection: NewMcpConnection, options?: CallOptions): Promise<McpConnection>;
  /** `DELETE …/mcp/connection/{id}`. */
  removeMcpConnection(id: string, options?: CallOptions): Promise<McpConnectionDeleted>;
  /** `GET …/mcp/connection/{id}/tools`. */
  listMcpTools(id: string, options?: CallOptions): Promise<McpLiveTools>;
  /** `POST …/mcp/connection/{id}/tools/call`. */
  callMcpTool(id: string, call: McpToolCall, options?: CallOptions): Promise<McpToolResult>;
  /**
   * `PUT …/mcp/connection/{id}/auth`: enter your own credential (after a transfer: `credential:
   * 'reenter_required'`); `options.url`, the connection's full URL, when another wallet registered it.
   */
  replaceMcpAuth(id: string, auth: ToolServerAuthInput, options?: CallOptions & { url?: string }): Promise<McpConnection>;
  /**
   * `POST …/mcp/connection/{id}/authorize`: a fresh URL where the owner authorizes the gateway at an
   * OAuth tool server (single use, 10 minutes). Open it in a browser; the connection's `status` turns
   * `ready` once the tool server's authorization server sent the browser back to the gateway.
   */
  authorizeMcpConnection(id: string, options?: CallOptions): Promise<McpAuthorizeUrl>;
}

export function toolServerMethods(agent: AgentCalls): ToolServerMethods {
  return {
    listMcpConnections: (o = {}) => agent.json('listMcpConnections', {}, { signal: o.signal }),
    addMcpConnection: (connection, o = {}) => agent.json('addMcpConnection', {}, { body: connection, signal: o.signal }),
    removeMcpConnection: (id, o = {}) => agent.json('removeMcpConnection', { id }, { signal: o.signal }),
    listMcpTools: (id, o = {}) => agent.json('listMcpTools', { id }, { signal: o.signal }),
    callMcpTool: (id, call, o = {}) =>
      agent.json('callMcpTool', { id }, { body: { name: call.name, arguments: call.arguments ?? {} }, signal: o.signal }),
    replaceMcpAuth: (id, auth, o = {}) =>
      agent.json('replaceMcpAuth', { id }, { body: { auth, ...(o.url === undefined ? {} : { url: o.url }) }, signal: o.signal }),
    authorizeMcpConnection: (id, o = {}) => agent.json('authorizeMcpConnection', { id }, { body: {}, signal: o.signal }),
  };
}
