/**
 * Who the gateway is at a tool server's authorization server, in this order: the client the owner
 * registered there beforehand (`clientId`, `clientSecret`), the gateway's own Client ID Metadata
 * Document where the server supports it, else a client registered dynamically (RFC 7591), kept
 * per connection.
 */
import { AppError } from '../../errors';
import type { OAuthInput } from '../connection-view';
import { CLIENT_NAME, clientDocumentUrl, redirectUri } from './client-document';
import { oauthFailed } from './failure';
import { fetchJson, type OAuthFetchDeps } from './fetch-json';
import type { AuthorizationServer, ClientSource, TokenEndpointAuth } from './types';

export interface ClientIdentity {
  clientId: string;
  clientSource: ClientSource;
  tokenAuth: TokenEndpointAuth;
  /** To the vault, never into the row. */
  clientSecret?: string;
}

const AUTHS: readonly TokenEndpointAuth[] = ['client_secret_basic', 'client_secret_post', 'none'];

/** How a client with a secret authenticates: basic (the default when the metadata lists none), else post. */
function secretAuth(methods: string[] | undefined): TokenEndpointAuth {
  if (methods === undefined || methods.includes('client_secret_basic')) return 'client_secret_basic';
  if (methods.includes('client_secret_post')) return 'client_secret_post';
  return methods.includes('none') ? 'none' : 'client_secret_basic';
}

export async function clientIdentity(
  deps: OAuthFetchDeps,
  origin: string,
  server: AuthorizationServer,
  input: OAuthInput,
): Promise<ClientIdentity> {
  if (input.clientId !== undefined) {
    return {
      clientId: input.clientId,
      clientSource: 'preregistered',
      ...(input.clientSecret === undefined
        ? { tokenAuth: 'none' as const }
        : { tokenAuth: secretAuth(server.authMethods), clientSecret: input.clientSecret }),
    };
  }
  if (server.metadataDocuments) return { clientId: clientDocumentUrl(origin), clientSource: 'metadata_document', tokenAuth: 'none' };
  if (server.registrationEndpoint !== undefined) return register(deps, origin, server, server.registrationEndpoint);
  throw new AppError(
    'tool_server_oauth_client_required',
    "The tool server's authorization server supports neither Client ID Metadata Documents nor dynamic registration: register a client there (redirect URI " +
      `${redirectUri(origin)}) and give its clientId (and clientSecret)`,
  );
}

/** Dynamic registration: a public client where the server allows it, else one with a secret. */
async function register(deps: OAuthFetchDeps, origin: string, server: AuthorizationServer, url: string): Promise<ClientIdentity> {
  const methods = server.authMethods;
  const asked: TokenEndpointAuth = methods === undefined || methods.includes('none') ? 'none' : secretAuth(methods);
  const answer = await fetchJson(deps, url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      client_name: CLIENT_NAME,
      client_uri: origin,
      redirect_uris: [redirectUri(origin)],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: asked,
    }),
  });
  if (!answer.ok) {
    const said = typeof answer.json?.error === 'string' ? ` (${answer.json.error.slice(0, 100)})` : '';
    throw oauthFailed('registration', answer.reason, `${answer.message}${said}`, answer.status);
  }
  const { client_id: clientId, client_secret: secret, token_endpoint_auth_method: method } = answer.json;
  if (typeof clientId !== 'string' || clientId === '' || clientId.length > 512) {
    throw oauthFailed('registration', 'invalid', 'its answer has no usable client_id');
  }
  const clientSecret = typeof secret === 'string' && secret !== '' ? secret : undefined;
  const given = AUTHS.find((a) => a === method);
  const tokenAuth: TokenEndpointAuth = given ?? (clientSecret === undefined ? 'none' : asked === 'none' ? 'client_secret_basic' : asked);
  return { clientId, clientSource: 'dynamic', tokenAuth, ...(clientSecret === undefined ? {} : { clientSecret }) };
}
