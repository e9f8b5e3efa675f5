import type { AuthRequest } from '@cloudflare/workers-oauth-provider';
import type { RouteHandler } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Address } from 'viem';
import { collectionKind } from '../agents/registry';
import { AppError } from '../errors';
import type { AppBindings } from '../types';
import { authorizeErrorPage, authorizePageHtml, type ConsentClient } from './authorize-page';
import { documentProblemText, isDocumentClientId, libraryClientOf } from './client-document';
import { resolveClientDocument, type ResolvedDocument } from './client-document.store';
import type * as routes from './oauth.routes';
import { agentResource, agentResources, type AgentSurface, parseAgentResource, subjectOfCredential } from './resource';
import { basicClientId, credentialShapeOk, oauthErrorResponse } from './token-guard';
import { anyResourceServer, authorizationServerFor, MCP_SCOPE, oauthEnv, oauthLibrary } from './server';

const originOf = (c: Context<AppBindings>) => new URL(c.req.url).origin;
const pick = (name: string | undefined) => (name === undefined ? {} : { name });
/** hono's view of the execution context is narrower than the Workers type the library names. */
const ctxOf = (c: Context<AppBindings>) => c.executionCtx as unknown as ExecutionContext;
/**
 * The library's own response (its status, body and headers: `Cache-Control: no-store`, CORS
 * safe), handed back as is; its shapes are the ones the route documents.
 */
const asDocumented = (res: Response): never => res as never;

/**
 * The request for the library, at the route's own path: our router is not strict about a
 * trailing slash (`/oauth/token/` is `/oauth/token`), the library matches paths exactly.
 */
function libraryUrl(c: Context<AppBindings>): string {
  const url = new URL(c.req.url);
  url.pathname = url.pathname.replace(/\/+$/, '') || '/';
  return url.href;
}

/**
 * The metadata document a URL-shaped `client_id` names (client-document.ts), resolved under the
 * outbound policy in force; undefined for a registered client's id (or none).
 */
async function documentOf(c: Context<AppBindings>, clientId: string | null | undefined): Promise<ResolvedDocument | undefined> {
  if (!clientId || !isDocumentClientId(clientId)) return undefined;
  return resolveClientDocument(c.env.NONCES, clientId, { loopbackTargets: c.var.config.dev.loopbackTargets });
}

/** The request as it came, body included (middleware read it already; hono keeps it cached). */
async function replayable(c: Context<AppBindings>): Promise<Request> {
  return new Request(libraryUrl(c), { method: c.req.method, headers: c.req.raw.headers, body: await c.req.text() });
}

/** RFC 9728 metadata of one door of an agent (its MCP server or its A2A endpoint). */
async function protectedResourceMetadata(
  c: Context<AppBindings>,
  params: { agentCollectionAddress: Address; agentTokenId: bigint },
  surface: AgentSurface,
) {
  const { agentCollectionAddress: collection, agentTokenId: tokenId } = params;
  if ((await collectionKind(c.var.db, c.var.config.chainId, collection)) === null) throw new AppError('agent_not_found', 'Agent not found');
  const origin = originOf(c);
  const door = surface === 'mcp' ? 'MCP server' : 'A2A endpoint';
  return {
    resource: agentResource(origin, collection, tokenId, surface),
    authorization_servers: [origin],
    scopes_supported: [MCP_SCOPE],
    bearer_methods_supported: ['header' as const],
    resource_name: `${door} of agent ${tokenId} in collection ${collection}`,
  };
}

export const protectedResourceMetadataHandler: RouteHandler<typeof routes.protectedResourceMetadata, AppBindings> = async (c) =>
  c.json(await protectedResourceMetadata(c, c.req.valid('param'), 'mcp'), 200);

export const a2aProtectedResourceMetadataHandler: RouteHandler<typeof routes.a2aProtectedResourceMetadata, AppBindings> = async (c) =>
  c.json(await protectedResourceMetadata(c, c.req.valid('param'), 'a2a'), 200);

export const authorizationServerMetadataHandler: RouteHandler<typeof routes.authorizationServerMetadata, AppBindings> = async (c) => {
  const res = await (await anyResourceServer(originOf(c))).fetch(new Request(libraryUrl(c), c.req.raw), oauthEnv(c.env), ctxOf(c));
  // Every agent is a resource of its own; the placeholder the library lists here is none of them.
  const { protected_resources: _placeholder, ...metadata } = (await res.json()) as Record<string, unknown> & {
    protected_resources?: unknown;
  };
  // Metadata documents are ours (the library's own support is off: client-document.store.ts);
  // authorization responses carry `iss` (RFC 9207), the library's `completeAuthorization` adds it.
  const advertised = { ...metadata, client_id_metadata_document_supported: true, authorization_response_iss_parameter_supported: true };
  return c.json(advertised as unknown as routes.AuthorizationServerMetadata, 200);
};

/** Registration (RFC 7591) is the library's, with our bounds in its callback (registration.ts). */
export const registerClientHandler: RouteHandler<typeof routes.registerClient, AppBindings> = async (c) =>
  asDocumented(await (await anyResourceServer(originOf(c))).fetch(await replayable(c), oauthEnv(c.env), ctxOf(c)));

/**
 * The token endpoint is the library's; what we add is which agent's resource the request is
 * about, read from the prefix of the code, refresh token or token to revoke (resource.ts). The
 * library then finds the grant under that prefix and checks its resource, PKCE and rotation.
 */
export const tokenHandler: RouteHandler<typeof routes.token, AppBindings> = async (c) => {
  const request = await replayable(c);
  const form = new URLSearchParams(await request.clone().text());
  const credential = form.get('code') ?? form.get('refresh_token') ?? form.get('token');
  // A made-up code or refresh token is refused as RFC 6749 says (the library, without the agent
  // its prefix would name, answered invalid_target); a made-up token to revoke is revoked already.
  // Without any client id, the library's invalid_client comes first, as it would for any code.
  const namesClient = form.has('client_id') || basicClientId(c.req.header('authorization')) !== undefined;
  if (credential && namesClient && !credentialShapeOk(credential)) {
    const grantType = form.get('grant_type');
    if (grantType === 'authorization_code' || grantType === 'refresh_token') {
      return asDocumented(oauthErrorResponse(400, 'invalid_grant', 'Unknown, used or expired code or refresh token'));
    }
    if (grantType === null && form.has('token'))
      return asDocumented(new Response('', { status: 200, headers: { 'Cache-Control': 'no-store' } }));
  }
  const subject = credential ? subjectOfCredential(credential) : null;
  const origin = originOf(c);
  // Both of the agent's resources: the library then checks the one the grant was made for.
  const server = await (subject
    ? authorizationServerFor(origin, agentResources(origin, subject.collection, subject.tokenId))
    : anyResourceServer(origin));
  // A metadata-document client is looked up afresh (or from the cache); one that no longer loads
  // is unknown to the library, which answers 401 invalid_client.
  const document = await documentOf(c, form.get('client_id'));
  const client = document?.ok ? libraryClientOf(document.document) : undefined;
  return asDocumented(await server.fetch(request, oauthEnv(c.env, client), ctxOf(c)));
};

export const authorizePageHandler: RouteHandler<typeof routes.authorizePage, AppBindings> = async (c) => {
  const origin = originOf(c);
  const resource = c.req.valid('query').resource;
  const agent = resource === undefined ? null : parseAgentResource(origin, resource);
  // A resource that is no agent's MCP or A2A URL is left to the library to refuse (invalid_target)
  // against a placeholder that matches nothing a client can send.
  const { AuthorizationError } = await oauthLibrary();
  // Before the user consented, a refusal is shown here, never redirected: anyone can register a
  // client with any redirect URI, so an error redirect would make this an open redirect through
  // the gateway's domain (RFC 9700 §4.11.2).
  const refused = (code: string, description: string) => {
    const page = authorizeErrorPage(code, description);
    return c.html(page.html, 400, { 'Cache-Control': 'no-store', 'Content-Security-Policy': page.csp });
  };
  // A metadata document that fails to load or validate is refused here, before the library sees
  // the request: nothing is stored, and the client hears nothing.
  const clientId = new URL(c.req.url).searchParams.get('client_id');
  const document = await documentOf(c, clientId);
  if (document && !document.ok) return refused('invalid_client', documentProblemText(clientId ?? '', document.problem));
  const server = await (agent && resource ? authorizationServerFor(origin, resource) : anyResourceServer(origin));
  const oauth = server.getOAuthApi(oauthEnv(c.env, document?.ok ? libraryClientOf(document.document) : undefined));
  let request: AuthRequest;
  try {
    request = await oauth.parseAuthRequest(c.req.raw);
  } catch (err) {
    if (!(err instanceof AuthorizationError)) throw err;
    return refused(err.code, err.description);
  }
  if (!agent || resource === undefined) return refused('invalid_target', "resource is required: the agent's MCP or A2A URL");
  // PKCE for every client, confidential ones too (the library asks it of public clients only).
  if (!request.codeChallenge) return refused('invalid_request', 'PKCE code_challenge (S256) is required');
  const details = await oauth.describeConsent(request);
  const consent = await oauth.beginConsent(request);
  const client: ConsentClient = document?.ok
    ? { kind: 'document', url: request.clientId, host: new URL(request.clientId).host, ...pick(document.document.clientName) }
    : { kind: 'registered', name: details.clientName };
  const page = authorizePageHtml({
    details,
    client,
    handle: consent.handle,
    clientId: request.clientId,
    resource,
    agent: { collection: agent.collection, tokenId: agent.tokenId },
    surface: agent.surface,
    chainId: c.var.config.chainId,
  });
  const headers = new Headers(consent.headers);
  headers.set('Content-Type', 'text/html; charset=utf-8');
  headers.set('Content-Security-Policy', page.csp);
  headers.set('Referrer-Policy', 'no-referrer');
  return asDocumented(new Response(page.html, { status: 200, headers }));
};
