/**
 * The gateway's own Client ID Metadata Document: its OAuth client identity at authorization
 * servers that fetch a client's metadata from its `client_id` URL instead of registering it.
 */
import { CALLBACK_PATH, CLIENT_METADATA_PATH } from './oauth.routes';

/** The client id the gateway uses where the document is supported: the document's own URL. */
export const clientDocumentUrl = (origin: string) => `${origin}${CLIENT_METADATA_PATH}`;

/** Where every authorization server sends the owner's browser back. */
export const redirectUri = (origin: string) => `${origin}${CALLBACK_PATH}`;

export const CLIENT_NAME = 'agent-gateway';

/** The document served at `{origin}/oauth/client.json`. */
export function clientDocument(origin: string) {
  return {
    client_id: clientDocumentUrl(origin),
    client_name: CLIENT_NAME,
    client_uri: origin,
    redirect_uris: [redirectUri(origin)],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none' as const,
  };
}
