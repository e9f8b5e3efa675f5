/**
 * A typed client of the gateway's REST API over plain `fetch`: Node 22+ and browsers alike (no
 * Node-only imports). See `createGatewayClient`. The methods say which operation they call
 * (`./operations.ts`, checked against the route objects) and what they send; `./transport.ts`
 * sends it; the agent-scoped methods are in `./agent-*.ts`, one file per resource.
 */
import { type AgentClient, createAgentClient } from './agent-client';
import type { CallOptions, GatewayClientOptions, LoginSession } from './options';
import { createTransport } from './transport';
import type {
  AccessToken,
  AgentRef,
  AuthorizationServerMetadata,
  ClientMetadataDocument,
  Collections,
  HealthReport,
  LoginChallenge,
  LoginFinish,
  LoginInit,
  OAuthApproval,
  OAuthApprovalMessage,
  OAuthApprovalMessageRequest,
  OAuthApproved,
  OAuthDenial,
  OAuthDenied,
  OAuthClientInformation,
  OAuthClientRegistration,
  OAuthTokenRequest,
  OAuthTokenResponse,
  OwnedTokens,
  ProtectedResourceMetadata,
  WalletVerification,
  WalletVerified,
} from './types';

export type { AgentClient } from './agent-client';
export type { CallOptions, GatewayClientOptions, LoginAccount, LoginSession } from './options';
export { tokenExpiresAt } from './transport';

/**
 * The client. A method named after an operation of the OpenAPI document carries its
 * `operationId` as its name (`getHealth`, `initLogin`, … and on `AgentClient` `listContextKeys`,
 * `appendMessages`, …); `health` and `summary` are older names of `getHealth` and `getAgent`.
 */
export interface GatewayClient {
  readonly baseUrl: string;
  /** The current access token (undefined before a login). Handle with care: it is a credential. */
  readonly token: string | undefined;
  setToken(token: string | undefined): void;

  /** `GET /health` (operationId `getHealth`): the report, for 200 and 503 alike. */
  getHealth(options?: CallOptions): Promise<HealthReport>;
  /** The same as `getHealth`. */
  health(options?: CallOptions): Promise<HealthReport>;
  /** `POST /auth/jwt/init`. */
  initLogin(body: LoginInit, options?: CallOptions): Promise<LoginChallenge>;
  /** `POST /auth/jwt/finish`. Does not store the token: `login()` does. */
  finishLogin(body: LoginFinish, options?: CallOptions): Promise<AccessToken>;
  /** `POST /wallet/verify` (chat pairing). */
  verifyWallet(body: WalletVerification, options?: CallOptions): Promise<WalletVerified>;
  /** init → `account.signMessage({ message })` → finish; stores the token and returns the session. */
  login(options?: CallOptions): Promise<LoginSession>;
  /**
   * `GET /collections`: the collections registered on this deployment, by address, with their
   * kind (at most 100; `truncated` says there are more). Needs the wallet's token (logs in when
   * the client can); an agent key is refused.
   */
  listCollections(options?: CallOptions): Promise<Collections>;
  /**
   * `GET /wallet/collections/{collection}/tokens`: the logged-in wallet's own tokens of a
   * registered collection (ERC-721 Enumerable; `enumerable: false` and no tokens otherwise).
   * Needs the wallet's token (logs in when the client can); an agent key is refused.
   */
  listOwnedTokens(collection: AgentRef['collection'], options?: CallOptions): Promise<OwnedTokens>;
  /** The same as `listOwnedTokens`. */
  ownedTokens(collection: AgentRef['collection'], options?: CallOptions): Promise<OwnedTokens>;

  /** `GET /.well-known/oauth-protected-resource/agent/{c}/{t}/mcp` (RFC 9728). */
  getProtectedResourceMetadata(
    collection: AgentRef['collection'],
    tokenId: AgentRef['tokenId'],
    options?: CallOptions,
  ): Promise<ProtectedResourceMetadata>;
  /** `GET /.well-known/oauth-protected-resource/agent/{c}/{t}/a2a` (RFC 9728): the same for the agent's A2A URL. */
  getA2aProtectedResourceMetadata(
    collection: AgentRef['collection'],
    tokenId: AgentRef['tokenId'],
    options?: CallOptions,
  ): Promise<ProtectedResourceMetadata>;
  /** `GET /.well-known/oauth-authorization-server` (RFC 8414). */
  getAuthorizationServerMetadata(options?: CallOptions): Promise<AuthorizationServerMetadata>;
  /** `POST /oauth/register` (RFC 7591). Its errors are OAuth's `{ error, error_description }`. */
  registerOAuthClient(body: OAuthClientRegistration, options?: CallOptions): Promise<OAuthClientInformation>;
  /** `POST /oauth/token`, form-encoded (code or refresh exchange; revocation with `token`). */
  oauthToken(form: OAuthTokenRequest, options?: CallOptions): Promise<OAuthTokenResponse>;
  /** `POST /oauth/authorize`: what the authorize page posts after the wallet signed. */
  oauthApprove(body: OAuthApproval, options?: CallOptions): Promise<OAuthApproved>;
  /** `POST /oauth/authorize/message`: the approval message (its own purpose, not a sign-in) for the wallet to sign. */
  oauthApprovalMessage(body: OAuthApprovalMessageRequest, options?: CallOptions): Promise<OAuthApprovalMessage>;
  /** `POST /oauth/authorize/deny`: the Deny button; answers the client's redirect URI with `error=access_denied`. */
  oauthDeny(body: OAuthDenial, options?: CallOptions): Promise<OAuthDenied>;
  /** `GET /oauth/client.json`: the gateway's own Client ID Metadata Document, as an OAuth client of tool servers. */
  getClientMetadataDocument(options?: CallOptions): Promise<ClientMetadataDocument>;

  /** The agent-scoped API of one agent (`/agent/{collection}/{tokenId}/…`). */
  agent(collection: AgentRef['collection'], tokenId: AgentRef['tokenId']): AgentClient;
}

/** Creates a client. Nothing is sent until a method is called. */
export function createGatewayClient(options: GatewayClientOptions): GatewayClient {
  const transport = createTransport(options);
  const { json, send } = transport;
  const client: GatewayClient = {
    baseUrl: transport.baseUrl,
    get token() {
      return transport.token;
    },
    setToken: (token) => transport.setToken(token),
    getHealth: (o = {}) => json('getHealth', {}, { okStatuses: [503], signal: o.signal }),
    health: (o = {}) => client.getHealth(o),
    initLogin: (body, o = {}) => json('initLogin', {}, { body, signal: o.signal }),
    finishLogin: (body, o = {}) => json('finishLogin', {}, { body, signal: o.signal }),
    verifyWallet: (body, o = {}) => json('verifyWallet', {}, { body, signal: o.signal }),
    login: (o) => transport.login(o),
    // `agent: true`: the wallet's token, with a login when needed, as on agent routes.
    listCollections: (o = {}) => json('listCollections', {}, { agent: true, signal: o.signal }),
    listOwnedTokens: (collection, o = {}) =>
      json('listOwnedTokens', { agentCollectionAddress: String(collection) }, { agent: true, signal: o.signal }),
    ownedTokens: (collection, o = {}) => client.listOwnedTokens(collection, o),
    getProtectedResourceMetadata: (collection, tokenId, o = {}) =>
      json(
        'getProtectedResourceMetadata',
        { agentCollectionAddress: String(collection), agentTokenId: String(tokenId) },
        { signal: o.signal },
      ),
    getA2aProtectedResourceMetadata: (collection, tokenId, o = {}) =>
      json(
        'getA2aProtectedResourceMetadata',
        { agentCollectionAddress: String(collection), agentTokenId: String(tokenId) },
        { signal: o.signal },
      ),
    getAuthorizationServerMetadata: (o = {}) => json('getAuthorizationServerMetadata', {}, { signal: o.signal }),
    // Answered with 201: the answer type is the registered client's schema, not a 200's.
    registerOAuthClient: async (body, o = {}) =>
      (await send('registerOAuthClient', {}, { body, signal: o.signal })).body as OAuthClientInformation,
    oauthToken: (form, o = {}) => json('oauthToken', {}, { form, signal: o.signal }),
    oauthApprove: (body, o = {}) => json('oauthApprove', {}, { body, signal: o.signal }),
    oauthApprovalMessage: (body, o = {}) => json('oauthApprovalMessage', {}, { body, signal: o.signal }),
    oauthDeny: (body, o = {}) => json('oauthDeny', {}, { body, signal: o.signal }),
    getClientMetadataDocument: (o = {}) => json('getClientMetadataDocument', {}, { signal: o.signal }),
    agent: (collection, tokenId) =>
      createAgentClient(transport, String(collection), typeof tokenId === 'string' ? tokenId : tokenId.toString()),
  };
  return client;
}
