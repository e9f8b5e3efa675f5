/**
 * What an OAuth connection keeps beside its row (`mcp_connections.oauth`): what discovery found and
 * what the flow chose. No secret: the client's secret and the tokens are in the vault.
 */

/** How the gateway identifies itself to the authorization server. */
export type ClientSource = 'preregistered' | 'metadata_document' | 'dynamic';

/** Token endpoint client authentication (RFC 8414 names). */
export type TokenEndpointAuth = 'client_secret_basic' | 'client_secret_post' | 'none';

/** The authorization server as discovery found it. */
export interface AuthorizationServer {
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  registrationEndpoint?: string;
  /** `token_endpoint_auth_methods_supported`, when the metadata lists it. */
  authMethods?: string[];
  /** `client_id_metadata_document_supported: true`. */
  metadataDocuments: boolean;
  /** Whether the metadata came from the server (false: the 2025-03-26 default endpoints). */
  fromMetadata: boolean;
}

export interface OAuthState {
  /** The `resource` sent (RFC 8707): the tool server. */
  resource: string;
  server: AuthorizationServer;
  clientId: string;
  clientSource: ClientSource;
  tokenAuth: TokenEndpointAuth;
  /** The scopes asked for (the owner's, else the server's challenge or metadata); empty: none sent. */
  scopes: string[];
  /** The scopes the token endpoint granted (else those asked), once authorized. */
  grantedScopes?: string[];
  /** When the access token runs out (ISO), once authorized; null: the server did not say. */
  expiresAt?: string | null;
}

/** What the vault holds for an authorized connection (one entry, JSON). */
export interface StoredTokens {
  accessToken: string;
  refreshToken?: string;
}

export function isOAuthState(value: unknown): value is OAuthState {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<OAuthState>;
  return typeof v.resource === 'string' && typeof v.clientId === 'string' && typeof v.server === 'object' && Array.isArray(v.scopes);
}
