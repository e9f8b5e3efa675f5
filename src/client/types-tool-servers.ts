/**
 * Request and response types of the tool-server routes (`…/mcp/connection…`, the OAuth routes for
 * tool servers), derived from their route objects as in ./types.ts. Browser-safe: types only.
 */
import type {
  addConnection,
  callTool,
  listConnections,
  listTools,
  removeConnection,
  replaceConnectionAuth,
} from '../tool-servers/mcp.routes';
import type { authorizeConnection, clientMetadata } from '../tool-servers/oauth/oauth.routes';
import type { RequestBodyOf, ResponseOf } from './route-types';

/** Component `NewMcpConnection`. */
export type NewMcpConnection = RequestBodyOf<typeof addConnection>;
/** Component `ToolServerAuthInput`. */
export type ToolServerAuthInput = NewMcpConnection['auth'];
/** Component `McpConnection`: `credential: 'reenter_required'`: tool calls answer 409 until you enter yours (`replaceMcpAuth`). */
export type McpConnection = ResponseOf<typeof addConnection>;
/** Component `McpConnectionAuth`: the body of `PUT …/mcp/connection/{id}/auth`. */
export type McpConnectionAuth = RequestBodyOf<typeof replaceConnectionAuth>;
/** Component `McpConnections`. */
export type McpConnections = ResponseOf<typeof listConnections>;
/** Component `McpConnectionDeleted`. */
export type McpConnectionDeleted = ResponseOf<typeof removeConnection>;
/** Component `McpLiveTools`. */
export type McpLiveTools = ResponseOf<typeof listTools>;
/** Component `McpTool`. */
export type McpTool = McpLiveTools['tools'][number];
/** Component `McpToolCall`: `arguments` defaults to `{}`. */
export type McpToolCall = RequestBodyOf<typeof callTool>;
/** Component `McpToolResult`: `isError: true` is still a 200. */
export type McpToolResult = ResponseOf<typeof callTool>;
/**
 * A connection's `status`: `ready`, or `authorization_required` (an OAuth connection its owner has
 * not authorized yet, or must authorize again): open a fresh URL from `authorizeMcpConnection`.
 */
export type McpConnectionStatus = McpConnection['status'];
/** An OAuth connection's `authorization`: the scopes and when the access token runs out (never a token). */
export type McpConnectionAuthorization = NonNullable<McpConnection['authorization']>;
/** Component `McpAuthorizeRequest`: the (empty) body of `POST …/mcp/connection/{id}/authorize`. */
export type McpAuthorizeRequest = RequestBodyOf<typeof authorizeConnection>;
/** Component `McpAuthorizeUrl`: where the owner authorizes the gateway at the tool server (single use, 10 minutes). */
export type McpAuthorizeUrl = ResponseOf<typeof authorizeConnection>;
/** `details` of 424 `tool_authorization_required`: `authorizeUrl` for the owner (a key holder gets the code only). */
export interface ToolAuthorizationRequiredDetails {
  authorizeUrl?: string;
}
/** Component `ClientMetadataDocument`: the gateway's own OAuth client document (`GET /oauth/client.json`). */
export type ClientMetadataDocument = ResponseOf<typeof clientMetadata>;
