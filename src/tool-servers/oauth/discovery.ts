/**
 * Finding a tool server's authorization server as MCP clients do: an unauthenticated probe whose
 * 401 names the protected resource metadata (RFC 9728), else its well-known places (with the
 * server's path, then at the root); then the authorization server's metadata (RFC 8414 with path
 * insertion, then OpenID discovery). A server of the 2025-03-26 revision has no resource metadata:
 * its origin is then the authorization server, with `/authorize`, `/token` and `/register` when it
 * publishes no metadata either.
 */
import { AppError } from '../../errors';
import { parseBearerChallenge } from './challenge';
import { oauthFailed } from './failure';
import { fetchJson, type OAuthFetchDeps } from './fetch-json';
import type { AuthorizationServer } from './types';
import { canonicalToolServerUrl } from '../url';

export interface Discovery {
  /** The `resource` to send: the resource metadata's when it names this server, else the server's URL. */
  resource: string;
  server: AuthorizationServer;
  /** The probe's 401 `scope`, then the resource metadata's `scopes_supported`. */
  challengeScopes?: string[];
  supportedScopes?: string[];
}

const strings = (v: unknown): string[] | undefined =>
  Array.isArray(v) && v.every((s) => typeof s === 'string') ? (v as string[]) : undefined;

/** Runs discovery for the tool server at `url` (canonical, already through the outbound policy). */
export async function discover(deps: OAuthFetchDeps, url: string): Promise<Discovery> {
  const challenge = await probe(deps, url);
  const prm = await resourceMetadata(deps, url, challenge?.resourceMetadata);
  let resource = url;
  let issuer = new URL(url).origin;
  let supportedScopes: string[] | undefined;
  if (prm !== undefined) {
    const servers = strings(prm.authorization_servers);
    if (!servers?.[0]) throw oauthFailed('protected_resource_metadata', 'invalid', 'it names no authorization server');
    issuer = servers[0];
    supportedScopes = strings(prm.scopes_supported);
    if (typeof prm.resource === 'string') {
      if (!coversResource(prm.resource, url)) {
        throw oauthFailed('protected_resource_metadata', 'resource_mismatch', `it is about ${prm.resource}, not this tool server`);
      }
      resource = prm.resource;
    }
  }
  const server = await authorizationServer(deps, issuer, prm === undefined);
  return {
    resource,
    server,
    ...(challenge?.scope?.length ? { challengeScopes: challenge.scope } : {}),
    ...(supportedScopes?.length ? { supportedScopes } : {}),
  };
}

/** Whether a resource metadata's `resource` may stand for the server at `url`: same origin, a path prefix. */
function coversResource(resource: string, url: string): boolean {
  try {
    const r = new URL(resource);
    const u = new URL(url);
    if (r.origin !== u.origin) return false;
    const path = r.pathname.endsWith('/') ? r.pathname : `${r.pathname}/`;
    return u.pathname === r.pathname || `${u.pathname}/`.startsWith(path);
  } catch {
    return false;
  }
}

/** An unauthenticated `initialize`: its 401's Bearer challenge, if any (the status alone says nothing more). */
async function probe(deps: OAuthFetchDeps, url: string) {
  const doFetch = deps.fetch ?? ((input: RequestInfo | URL, i?: RequestInit) => fetch(input, i));
  const body = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'agent-gateway', version: '0.1.0' } },
  };
  let res: Response;
  try {
    res = await doFetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify(body),
      redirect: 'manual',
      signal: AbortSignal.timeout(deps.timeoutMs),
    });
  } catch {
    throw new AppError('tool_server_unreachable', 'The tool server could not be reached', { details: { reason: 'unreachable' } });
  }
  void res.body?.cancel().catch(() => {});
  return res.status === 401 ? parseBearerChallenge(res.headers.get('www-authenticate')) : undefined;
}

/** The resource metadata: where the challenge points, else the well-known places; undefined when none. */
async function resourceMetadata(deps: OAuthFetchDeps, url: string, pointed: string | undefined) {
  const u = new URL(url);
  const places = pointed
    ? [pointed]
    : [
        ...(u.pathname !== '/' ? [`${u.origin}/.well-known/oauth-protected-resource${u.pathname.replace(/\/$/, '')}`] : []),
        `${u.origin}/.well-known/oauth-protected-resource`,
      ];
  for (const place of places) {
    const answer = await fetchJson(deps, place);
    if (answer.ok) return answer.json;
    if (answer.reason === 'not_found' && pointed === undefined) continue;
    if (answer.reason === 'status' && pointed === undefined && (answer.status ?? 0) < 500) continue;
    throw oauthFailed('protected_resource_metadata', answer.reason, answer.message, answer.status);
  }
  return undefined;
}

/** The places of an issuer's metadata, in the order the MCP authorization spec gives. */
function metadataPlaces(issuer: URL): string[] {
  const path = issuer.pathname.replace(/\/$/, '');
  if (path === '') return [`${issuer.origin}/.well-known/oauth-authorization-server`, `${issuer.origin}/.well-known/openid-configuration`];
  return [
    `${issuer.origin}/.well-known/oauth-authorization-server${path}`,
    `${issuer.origin}/.well-known/openid-configuration${path}`,
    `${issuer.origin}${path}/.well-known/openid-configuration`,
  ];
}

const sameIssuer = (a: string, b: string) => a.replace(/\/$/, '') === b.replace(/\/$/, '');

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

/** An endpoint the flow uses: through the outbound policy like any tool server (https, public host). */
function endpoint(deps: OAuthFetchDeps, value: unknown, name: string): string {
  if (typeof value !== 'string') throw oauthFailed('authorization_server_metadata', 'invalid', `it has no ${name}`);
  const checked = canonicalToolServerUrl(value, deps.outbound);
  if (!checked.ok) throw oauthFailed('authorization_server_metadata', 'refused_url', `its ${name} is refused: ${checked.message}`);
  return value;
}

async function authorizationServer(deps: OAuthFetchDeps, issuerText: string, legacy: boolean): Promise<AuthorizationServer> {
  let issuer: URL;
  try {
    issuer = new URL(issuerText);
  } catch {
    throw oauthFailed('protected_resource_metadata', 'invalid', 'its authorization server is not a URL');
  }
  for (const place of metadataPlaces(issuer)) {
    const answer = await fetchJson(deps, place);
    if (!answer.ok) {
      if (answer.reason === 'not_found' || (answer.reason === 'status' && (answer.status ?? 0) < 500)) continue;
      throw oauthFailed('authorization_server_metadata', answer.reason, answer.message, answer.status);
    }
    const m = answer.json;
    // The 2025-03-26 revision's server names its own issuer (its origin with a path, say): held to the origin only.
    const issuerOk = typeof m.issuer === 'string' && (sameIssuer(m.issuer, issuerText) || (legacy && sameOrigin(m.issuer, issuerText)));
    if (!issuerOk) {
      throw oauthFailed(
        'authorization_server_metadata',
        'issuer_mismatch',
        `it names the issuer ${String(m.issuer).slice(0, 200)}, not ${issuerText}`,
      );
    }
    const pkce = strings(m.code_challenge_methods_supported);
    if (pkce !== undefined && !pkce.includes('S256')) {
      throw oauthFailed('authorization_server_metadata', 'no_pkce', 'it does not support PKCE with S256');
    }
    const authMethods = strings(m.token_endpoint_auth_methods_supported);
    return {
      issuer: String(m.issuer),
      authorizationEndpoint: endpoint(deps, m.authorization_endpoint, 'authorization_endpoint'),
      tokenEndpoint: endpoint(deps, m.token_endpoint, 'token_endpoint'),
      ...(m.registration_endpoint === undefined
        ? {}
        : { registrationEndpoint: endpoint(deps, m.registration_endpoint, 'registration_endpoint') }),
      ...(authMethods ? { authMethods } : {}),
      metadataDocuments: m.client_id_metadata_document_supported === true,
      fromMetadata: true,
    };
  }
  if (!legacy) throw oauthFailed('authorization_server_metadata', 'not_found', `${issuerText} publishes no authorization server metadata`);
  // The 2025-03-26 revision: the server's origin, with the default endpoints.
  return {
    issuer: issuer.origin,
    authorizationEndpoint: `${issuer.origin}/authorize`,
    tokenEndpoint: `${issuer.origin}/token`,
    registrationEndpoint: `${issuer.origin}/register`,
    metadataDocuments: false,
    fromMetadata: false,
  };
}
