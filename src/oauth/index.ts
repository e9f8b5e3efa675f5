import type { Hook } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { createRouter } from '../http/router';
import type { AppBindings } from '../types';
import {
  a2aProtectedResourceMetadataHandler,
  authorizationServerMetadataHandler,
  authorizePageHandler,
  protectedResourceMetadataHandler,
  registerClientHandler,
  tokenHandler,
} from './oauth.handlers';
import * as routes from './oauth.routes';
import { approvalMessageHandler, approveHandler, denyHandler } from './consent.handlers';
import * as consentRoutes from './consent.routes';
import { listGrantsHandler, revokeGrantHandler } from './grants.handlers';
import * as grantRoutes from './grants.routes';
import { authorizeErrorPage } from './authorize-page';
import type { Address } from 'viem';
import type { Agent } from '../identity/agent';
import { parseAgentResource, resourceMetadataUrl, resourceOfAgentPath } from './resource';
import { inBackground, ownerSightingDue, revokeOtherWalletsGrants, revokeWalletGrants } from './seller-grants';
import { TOKEN_PATH } from './server';
import { tokenRequestGuard } from './token-guard';
import { OAUTH_TOKEN_PATTERN, walletOfAccessToken } from './access-token';

/** For `bearer()`: how an OAuth access token looks, where it is accepted, and whose it is. */
export const oauthTokenCheck = {
  pattern: OAUTH_TOKEN_PATTERN,
  resourceOf: oauthResourceOf,
  walletOf: walletOfAccessToken,
  // The agent was sold: the seller's grants for it are revoked for good (seller-grants.ts).
  onNotOwner: (c: Context<AppBindings>, wallet: Address) => {
    const origin = new URL(c.req.url).origin;
    const agent = parseAgentResource(origin, resourceOfAgentPath(origin, c.req.path) ?? '');
    if (agent) {
      const { collection, tokenId } = agent;
      inBackground(c.executionCtx, revokeWalletGrants(c.env, origin, { collection, tokenId }, wallet));
    }
  },
  // Any answered request of the agent's owner is a sighting: an earlier owner's grants go (throttled per isolate).
  onOwnerSeen: (c: Context<AppBindings>) => {
    const agent = c.var.agent as Agent | undefined;
    let owner: Address;
    try {
      if (!agent) return;
      owner = agent.owner; // known once the owner check passed, as it did for an answered request
    } catch {
      return;
    }
    if (!ownerSightingDue(`${agent.collection}.${agent.tokenId}.${owner}`)) return;
    inBackground(c.executionCtx, revokeOtherWalletsGrants(c.env, new URL(c.req.url).origin, agent, owner));
  },
};

/** Routes whose body is form-encoded (OAuth's token endpoint), not JSON. */
export const FORM_BODY_PATHS = [TOKEN_PATH] as const;

/**
 * For `bearer()`: an OAuth access token is a credential on the agent's MCP and A2A routes only
 * (POST /agent/{c}/{t}/mcp and /a2a), each for its own resource (a token for the agent's MCP URL
 * is refused on its A2A URL, and the other way round); undefined everywhere else.
 */
export function oauthResourceOf(c: Context<AppBindings>): { resource: string; metadataUrl: string } | undefined {
  if (c.req.method !== 'POST') return undefined;
  const origin = new URL(c.req.url).origin;
  const resource = resourceOfAgentPath(origin, c.req.path);
  if (resource === undefined) return undefined;
  return { resource, metadataUrl: resourceMetadataUrl(origin, resource) };
}

/** OAuth clients parse RFC 6749 / RFC 7591 errors, so a bad form or registration is answered in that shape. */
const oauthHook =
  // biome-ignore lint/suspicious/noExplicitAny: one hook serves routes of different inputs, as validationHook does
    (code: string): Hook<any, AppBindings, any, any> =>
    (result, c) => {
      if (result.success) return;
      const issue = result.error.issues[0];
      const where = issue?.path.map(String).join('.') ?? '';
      const field = String(issue?.path[0] ?? '');
      const error = code === 'invalid_client_metadata' && field === 'redirect_uris' ? 'invalid_redirect_uri' : code;
      return c.json({ error, error_description: `${where}: ${issue?.message ?? 'invalid'}` }, 400, { 'Cache-Control': 'no-store' });
    };

// biome-ignore lint/suspicious/noExplicitAny: as above
const pageHook: Hook<any, AppBindings, any, any> = (result, c) => {
  if (result.success) return;
  const page = authorizeErrorPage('invalid_request', 'A parameter of the authorization request is too long');
  return c.html(page.html, 400, { 'Content-Security-Policy': page.csp });
};

// What the token endpoint's schema and the library cannot read is answered before them (token-guard.ts).
const router = createRouter();
router.use(TOKEN_PATH, tokenRequestGuard);

export const oauth = router
  .openapi(routes.protectedResourceMetadata, protectedResourceMetadataHandler)
  .openapi(routes.a2aProtectedResourceMetadata, a2aProtectedResourceMetadataHandler)
  .openapi(routes.authorizationServerMetadata, authorizationServerMetadataHandler)
  .openapi(routes.registerClient, registerClientHandler, oauthHook('invalid_client_metadata'))
  .openapi(routes.token, tokenHandler, oauthHook('invalid_request'))
  .openapi(routes.authorizePage, authorizePageHandler, pageHook)
  .openapi(consentRoutes.approvalMessage, approvalMessageHandler)
  .openapi(consentRoutes.approve, approveHandler)
  .openapi(consentRoutes.deny, denyHandler)
  .openapi(grantRoutes.listOAuthGrants, listGrantsHandler)
  .openapi(grantRoutes.revokeOAuthGrant, revokeGrantHandler);
