import { createRoute, z } from '@hono/zod-openapi';
import { AgentParamsSchema } from '../identity/identity';
import { errorResponse, RATE_LIMITED_RESPONSE } from '../errors';
import { jsonBody, jsonResponse } from '../http/openapi';
import { ClientRegistrationSchema } from './registration';
import { MAX_CLIENT_ID_BYTES } from './token-guard';
import { AUTHORIZE_PATH, REGISTER_PATH, TOKEN_PATH } from './server';

const TAG = ['OAuth'];

/** RFC 6749 §5.2 / RFC 7591 §3.2.2: what OAuth clients parse, so these endpoints answer in it. */
export const OAuthErrorSchema = z
  .object({
    error: z.string().openapi({ example: 'invalid_grant' }),
    error_description: z.string().optional().openapi({ example: 'Invalid PKCE code_verifier' }),
  })
  .openapi('OAuthError');

const oauthError = (description: string) => jsonResponse(description, OAuthErrorSchema);

export const ProtectedResourceMetadataSchema = z
  .object({
    resource: z.string().openapi({ example: 'https://gateway.example.org/agent/0x5FbDB2315678afecb367f032d93F642f64180aa3/1/mcp' }),
    authorization_servers: z.array(z.string()).openapi({ example: ['https://gateway.example.org'] }),
    scopes_supported: z.array(z.string()).openapi({ example: ['mcp'] }),
    bearer_methods_supported: z.array(z.literal('header')),
    resource_name: z.string(),
  })
  .openapi('ProtectedResourceMetadata');

export const protectedResourceMetadata = createRoute({
  method: 'get',
  path: '/.well-known/oauth-protected-resource/agent/{agentCollectionAddress}/{agentTokenId}/mcp',
  operationId: 'getProtectedResourceMetadata',
  tags: TAG,
  summary: "RFC 9728 metadata of an agent's MCP server",
  description:
    "The document a `401` from `POST /agent/{c}/{t}/mcp` points to (`WWW-Authenticate: Bearer resource_metadata=...`): the resource (the agent's MCP URL, to send as `resource` when authorizing) and this gateway as its authorization server. Public.",
  security: [],
  request: { params: AgentParamsSchema },
  responses: {
    200: jsonResponse('The metadata', ProtectedResourceMetadataSchema),
    400: errorResponse('`validation_failed`: bad collection address or token id'),
    404: errorResponse('`agent_not_found`: the collection is not registered on this deployment'),
    429: RATE_LIMITED_RESPONSE,
    503: errorResponse('`dependency_unavailable`: the database did not answer'),
  },
});

export const a2aProtectedResourceMetadata = createRoute({
  method: 'get',
  path: '/.well-known/oauth-protected-resource/agent/{agentCollectionAddress}/{agentTokenId}/a2a',
  operationId: 'getA2aProtectedResourceMetadata',
  tags: TAG,
  summary: "RFC 9728 metadata of an agent's A2A endpoint",
  description:
    "As for the MCP server, for `POST /agent/{c}/{t}/a2a`: the resource (the agent's A2A URL, to send as `resource` when " +
    'authorizing; a token for it is refused on the MCP URL, and an MCP token here) and this gateway as its authorization server. Public.',
  security: [],
  request: { params: AgentParamsSchema },
  responses: protectedResourceMetadata.responses,
});

export const AuthorizationServerMetadataSchema = z
  .object({
    issuer: z.string().openapi({ example: 'https://gateway.example.org' }),
    authorization_endpoint: z.string(),
    token_endpoint: z.string(),
    registration_endpoint: z.string(),
    revocation_endpoint: z.string(),
    scopes_supported: z.array(z.string()),
    response_types_supported: z.array(z.string()),
    grant_types_supported: z.array(z.string()),
    token_endpoint_auth_methods_supported: z.array(z.string()),
    code_challenge_methods_supported: z.array(z.string()).openapi({ example: ['S256'] }),
    client_id_metadata_document_supported: z
      .boolean()
      .openapi({ description: "True: a `client_id` may be the https URL of the client's metadata document (no registration needed)" }),
    authorization_response_iss_parameter_supported: z
      .boolean()
      .openapi({ description: 'True: every authorization response carries `iss` (RFC 9207)' }),
  })
  .passthrough()
  .openapi('AuthorizationServerMetadata');

export const authorizationServerMetadata = createRoute({
  method: 'get',
  path: '/.well-known/oauth-authorization-server',
  operationId: 'getAuthorizationServerMetadata',
  tags: TAG,
  summary: 'RFC 8414 authorization-server metadata',
  description:
    'Endpoints and capabilities of the gateway as an OAuth 2.1 authorization server: PKCE `S256` only, ' +
    'client metadata documents (an https `client_id`) and dynamic registration, `iss` on authorization ' +
    'responses, rotating refresh tokens.',
  security: [],
  responses: { 200: jsonResponse('The metadata', AuthorizationServerMetadataSchema), 429: RATE_LIMITED_RESPONSE },
});

export const ClientInformationSchema = z
  .object({
    client_id: z.string(),
    client_secret: z.string().optional().openapi({ description: 'Only for a confidential client, and only here, once' }),
    redirect_uris: z.array(z.string()),
    client_name: z.string().optional(),
    token_endpoint_auth_method: z.string(),
    client_id_issued_at: z.number().int(),
  })
  .passthrough()
  .openapi('OAuthClientInformation');

export const registerClient = createRoute({
  method: 'post',
  path: REGISTER_PATH,
  operationId: 'registerOAuthClient',
  tags: TAG,
  summary: 'Register an OAuth client (RFC 7591)',
  description:
    'Dynamic client registration, open to anyone (rate limited per client address). Redirect URIs must be ' +
    '`https`, or `http` on 127.0.0.1, [::1] or localhost; at most 10, each at most 2000 characters; `client_name` ' +
    'at most 100 characters; at most 30 fields and 8 KiB in all. A client is forgotten after 90 days. Errors ' +
    'use the OAuth shape `{ error, error_description }`.',
  security: [],
  request: { body: jsonBody(ClientRegistrationSchema) },
  responses: {
    201: jsonResponse('The registered client', ClientInformationSchema),
    400: oauthError(
      '`invalid_redirect_uri` (a redirect URI breaks the rules above) or `invalid_client_metadata` (any other field out of bounds)',
    ),
    429: RATE_LIMITED_RESPONSE,
  },
});

const bounded = (max: number) => z.string().max(max).optional();
export const TokenRequestSchema = z
  .object({
    grant_type: bounded(100).openapi({ example: 'authorization_code', description: '`authorization_code` or `refresh_token`' }),
    code: bounded(512),
    redirect_uri: bounded(2000),
    code_verifier: bounded(128).openapi({ description: 'PKCE: the verifier whose S256 hash was the code_challenge' }),
    refresh_token: bounded(512),
    resource: bounded(2000).openapi({ description: "The agent's MCP URL (RFC 8707); must be the one the grant was made for" }),
    client_id: bounded(512),
    client_secret: bounded(512),
    scope: bounded(200),
    token: bounded(512).openapi({ description: 'Revocation (RFC 7009): the access or refresh token to revoke' }),
    token_type_hint: bounded(100),
  })
  .openapi('OAuthTokenRequest');

export const TokenResponseSchema = z
  .object({
    access_token: z.string(),
    token_type: z.literal('bearer'),
    expires_in: z.number().int().openapi({ example: 600 }),
    refresh_token: z
      .string()
      .openapi({ description: 'Single use: each refresh answers a new one; the one before stops working once the new one is used' }),
    scope: z.string().openapi({ example: 'mcp' }),
    resource: z.string(),
  })
  .openapi('OAuthTokenResponse');

export const token = createRoute({
  method: 'post',
  path: TOKEN_PATH,
  operationId: 'oauthToken',
  tags: TAG,
  summary: 'Exchange a code or refresh token for tokens (and revoke, RFC 7009)',
  description:
    '`grant_type=authorization_code` with `code`, `redirect_uri`, `code_verifier` (PKCE S256) and `resource`; ' +
    "`grant_type=refresh_token` with `refresh_token`; `client_id` is a registered client's id or a metadata " +
    "document's URL (then looked up again, from the cache while it holds). The access token lives 10 minutes and is good only " +
    'on the MCP route of the agent it was issued for; the refresh token rotates. With `token` instead of ' +
    '`grant_type`, revokes it. Form-encoded, as OAuth requires. Errors use the OAuth shape.',
  security: [],
  request: { body: { content: { 'application/x-www-form-urlencoded': { schema: TokenRequestSchema } }, required: true } },
  responses: {
    200: jsonResponse('Tokens (or, for a revocation, an empty object)', TokenResponseSchema),
    400: oauthError(
      '`invalid_request` (a field missing or out of bounds; a multipart body; a form not in UTF-8), `invalid_grant` (unknown, made-up, used or expired code or refresh token, wrong PKCE verifier, another redirect URI), `invalid_target` (another resource), `unsupported_grant_type`',
    ),
    401: oauthError(
      '`invalid_client`: unknown client, a client id over 400 bytes (in the form or in Basic credentials), malformed Basic credentials, a confidential client with a wrong secret, or a metadata-document client whose document no longer loads or validates',
    ),
    429: RATE_LIMITED_RESPONSE,
  },
});

const AuthorizeQuerySchema = z.object({
  response_type: bounded(20).openapi({ example: 'code' }),
  client_id: z
    .string()
    .max(MAX_CLIENT_ID_BYTES)
    .regex(/^[\x21-\x7e]*$/, 'must be printable ASCII')
    .optional()
    .openapi({
      description: "A registered client's id, or the https URL of the client's metadata document (at most 400 characters)",
    }),
  redirect_uri: bounded(2000),
  state: bounded(1000),
  code_challenge: bounded(128),
  code_challenge_method: bounded(10).openapi({ example: 'S256', description: 'Only `S256`; `plain` is refused' }),
  resource: bounded(2000).openapi({ description: "Required: the agent's MCP URL, from its protected-resource metadata" }),
  scope: bounded(200),
});

const html = (description: string) => ({ description, content: { 'text/html': { schema: z.string() } } });

export const authorizePage = createRoute({
  method: 'get',
  path: AUTHORIZE_PATH,
  operationId: 'oauthAuthorizePage',
  tags: TAG,
  summary: 'The authorize page: sign in with the wallet that owns the agent',
  description:
    'An HTML page (strict Content-Security-Policy, no third-party script) naming the client and the agent; ' +
    "the user connects their browser wallet (EIP-1193), signs the gateway's Sign-In with Ethereum message, " +
    'and the page posts the signature to `POST /oauth/authorize`. Every refusal before consent is shown on ' +
    'the page (400), never redirected: anyone can register a client, so an error redirect would be an open ' +
    "redirect.\n\nA `client_id` that is an https URL names the client's metadata document: the gateway GETs it " +
    'under its outbound policy (a public host name, no IP literal or internal name; redirects not followed; 5 s, ' +
    "5 KiB, JSON), requires its `client_id` to be that URL exactly, its `redirect_uris` to list the request's " +
    '`redirect_uri`, and a public client (`none`, with PKCE); it keeps the document as its `Cache-Control` allows, ' +
    "at most 24 hours. The page then names the document's host as the client; a registered client's name is " +
    'marked unverified.',
  security: [],
  request: { query: AuthorizeQuerySchema },
  responses: {
    200: html('The page'),
    400: html(
      '`invalid_request` (unknown client, redirect URI not registered, no PKCE or PKCE `plain`), `invalid_client` (a metadata document that failed to load or validate, the reason in words) or `invalid_target` (no `resource`, or not an agent MCP URL of this gateway), shown on the page',
    ),
    429: RATE_LIMITED_RESPONSE,
  },
});

export type AuthorizationServerMetadata = z.infer<typeof AuthorizationServerMetadataSchema>;
export { approvalMessage, approve, deny } from './consent.routes';
