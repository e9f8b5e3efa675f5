import type { ClientInfo, OAuthAuthorizationServer } from '@cloudflare/workers-oauth-provider';
import type { Env } from '../env';
import { checkRegistration } from './registration';

/** The scope every grant carries: the agent's MCP server, nothing else. */
export const MCP_SCOPE = 'mcp';
/** Access tokens live 10 minutes; refresh tokens 30 days and rotate on every use. */
export const ACCESS_TOKEN_TTL_SECONDS = 600;
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 3600;
/** A client registered with POST /oauth/register is forgotten after 90 days. */
export const CLIENT_REGISTRATION_TTL_SECONDS = 90 * 24 * 3600;

export const AUTHORIZE_PATH = '/oauth/authorize';
export const TOKEN_PATH = '/oauth/token';
export const REGISTER_PATH = '/oauth/register';

/** What the library reads from `env`: its grants, clients and tokens go to the login KV namespace. */
export interface OAuthEnv {
  OAUTH_KV: KVNamespace;
}

/**
 * The library's view of our bindings. Its keys (`client:`, `grant:`, `token:`, consent
 * transactions) never meet the login store's `login:` keys, so one namespace holds both.
 *
 * `documentClient`: a client this request resolved from its metadata document
 * (client-document.store.ts). The library's own document support stays off (its fetch follows
 * redirects and knows nothing of our outbound policy); with it off, the library looks a
 * URL-shaped client up as `client:<url>` like any other, and that one read is answered here from
 * the document, without storing it.
 */
export function oauthEnv(env: Env, documentClient?: ClientInfo): OAuthEnv {
  if (!documentClient) return { OAUTH_KV: env.NONCES };
  const kv = env.NONCES;
  const key = `client:${documentClient.clientId}`;
  const get = (name: string, options?: unknown) => {
    if (name !== key) return kv.get(name, options as 'text');
    const asJson =
      options === 'json' || (typeof options === 'object' && options !== null && (options as { type?: string }).type === 'json');
    return Promise.resolve(asJson ? structuredClone(documentClient) : JSON.stringify(documentClient));
  };
  const overlay = new Proxy(kv, {
    get(target, property) {
      if (property === 'get') return get;
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { OAUTH_KV: overlay };
}

/**
 * The authorization server for one agent's MCP or A2A URL (`resource`), or for both of them
 * (`resources`, the MCP URL first: the token endpoint does not know yet which of the two a code or
 * refresh token was granted for), on the library's role-based
 * `OAuthAuthorizationServer`. Not `OAuthProvider`: that one wants to be the Worker's fetch
 * handler (every request through it, ours behind `defaultHandler`), and serves one fixed
 * resource; here the hono app keeps its middleware (request ids, body limits, rate limits, error
 * shape) and the MCP route keeps its three gates, with an OAuth token as one more credential in
 * `bearer()`. Not `OAuthResourceServer` either, for the same reason: the token is checked with
 * `validateToken()` inside our gate. And not `resolveExternalToken`, which validates foreign
 * tokens on the provider's own resource, the opposite direction.
 *
 * The library fixes its resource registry at construction, while every agent is its own resource
 * (RFC 8707: a token for one agent's MCP URL is refused on another's, and on the same agent's A2A
 * URL). So a server is built per request for the resources that request is about (the `resource`
 * parameter, or the prefix of the presented code or token); building one is a few object
 * allocations and no I/O. With two, a grant stored without a resource (none is made today) means
 * the first, as it did when the MCP URL was the only one.
 */
export async function authorizationServerFor(
  origin: string,
  resource: string | readonly [string, ...string[]],
): Promise<OAuthAuthorizationServer<OAuthEnv>> {
  const { OAuthAuthorizationServer } = await oauthLibrary();
  const resources = typeof resource === 'string' ? [resource] : [...resource];
  return new OAuthAuthorizationServer<OAuthEnv>({
    issuer: origin,
    resources,
    ...(resources.length > 1 ? { defaultResource: resources[0], legacyGrantResource: resources[0] } : {}),
    authorizeEndpoint: AUTHORIZE_PATH,
    tokenEndpoint: TOKEN_PATH,
    clientRegistrationEndpoint: REGISTER_PATH,
    scopesSupported: [MCP_SCOPE],
    accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS,
    refreshTokenTTL: REFRESH_TOKEN_TTL_SECONDS,
    clientRegistrationTTL: CLIENT_REGISTRATION_TTL_SECONDS,
    clientRegistrationCallback: ({ clientMetadata }) => checkRegistration(clientMetadata),
    // The internal reason goes to the log (never a token: the library puts none there).
    onError: ({ status, code, internal }) => {
      console.warn(JSON.stringify({ msg: 'oauth error', status, code, category: internal.category, reason: internal.reason }));
    },
  });
}

/**
 * Requests that concern no agent yet (metadata, registration) are served by a server built for a
 * placeholder resource; what they answer does not depend on it (and the metadata drops it).
 */
export function anyResourceServer(origin: string): Promise<OAuthAuthorizationServer<OAuthEnv>> {
  return authorizationServerFor(origin, `${origin}/agent`);
}

/**
 * The library, loaded by the first OAuth request or token only: it imports `cloudflare:workers`,
 * which exists only in workerd (the OpenAPI document and the client are built in Node), and start-up
 * stays the entry's alone.
 */
export function oauthLibrary() {
  return import('@cloudflare/workers-oauth-provider');
}
