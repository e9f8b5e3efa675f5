/** The consent page's posts (consent.routes.ts): the approval's message, the approval, and Deny. */
import type { ApprovedConsent } from '@cloudflare/workers-oauth-provider';
import type { RouteHandler } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { ownerOf } from '../agents/ownership';
import { collectionKind } from '../agents/registry';
import { authDeps } from '../auth/request-deps';
import { chainClient } from '../chain/client';
import { auditChange } from '../audit/entry';
import { AppError } from '../errors';
import { databaseError } from '../storage/db';
import type { AppBindings } from '../types';
import type { GrantProps } from './access-token';
import { type ApprovalSubject, approvalClientLabel, proveApproval, startApproval } from './approval';
import { documentProblemText, isDocumentClientId, libraryClientOf, listsRedirectUri } from './client-document';
import { resolveClientDocument } from './client-document.store';
import type * as routes from './consent.routes';
import { grantUserId, parseAgentResource } from './resource';
import { inBackground, rememberGrantWallet, revokeOtherWalletsGrants } from './seller-grants';
import { anyResourceServer, authorizationServerFor, MCP_SCOPE, oauthEnv, oauthLibrary } from './server';

const originOf = (c: Context<AppBindings>) => new URL(c.req.url).origin;
const consentInvalid = (what = 'This authorization is unknown, used, expired or was started in another browser') =>
  new AppError('consent_invalid', `${what}: open the authorize URL again`);

/**
 * What an approval of `clientId` for `resource` says: the client as the page names it (a
 * metadata-document client by its host, no fetch; a registered one by its stored name and id) and
 * the agent. The same function builds the message to sign and the one the approval is checked over.
 */
async function approvalSubject(c: Context<AppBindings>, clientId: string, resource: string): Promise<ApprovalSubject> {
  const origin = originOf(c);
  const parsed = parseAgentResource(origin, resource);
  if (!parsed) throw consentInvalid('This authorization names no agent');
  const { surface, ...agent } = parsed;
  if (isDocumentClientId(clientId)) {
    if (!URL.canParse(clientId)) throw consentInvalid('This client id is not a URL');
    return { client: approvalClientLabel(clientId, true), agent, resource, surface };
  }
  const client = await (await anyResourceServer(origin)).getOAuthApi(oauthEnv(c.env)).lookupClient(clientId);
  if (!client) throw consentInvalid('This app is not registered');
  return {
    client: approvalClientLabel(clientId, false, client.clientName),
    agent,
    resource,
    surface,
    ...(client.clientName ? { clientName: client.clientName } : {}),
  };
}

export const approvalMessageHandler: RouteHandler<typeof routes.approvalMessage, AppBindings> = async (c) => {
  const body = c.req.valid('json');
  const subject = await approvalSubject(c, body.clientId, body.resource);
  return c.json(await startApproval(authDeps(c, body), { wallet: body.walletAddress, chainId: body.chainId, subject }), 200);
};

/**
 * The page's post: the consent handle (the library's: bound to this browser, single use), then
 * the wallet's signature over the approval of exactly this client and agent (nonce consumed once),
 * then the owner on-chain now, and only then the grant and its code.
 */
export const approveHandler: RouteHandler<typeof routes.approve, AppBindings> = async (c) => {
  const body = c.req.valid('json');
  const origin = originOf(c);
  const env = oauthEnv(c.env);
  const { AuthorizationError } = await oauthLibrary();
  let approved: ApprovedConsent;
  try {
    approved = await (await anyResourceServer(origin)).getOAuthApi(env).approveConsent(c.req.raw, body.handle, { scope: [MCP_SCOPE] });
  } catch (err) {
    if (!(err instanceof AuthorizationError)) throw err;
    throw consentInvalid();
  }
  const resource = approved.request.resource ?? '';
  const subject = await approvalSubject(c, approved.request.clientId, Array.isArray(resource) ? '' : resource);
  const { agent } = subject;
  const { config } = c.var;
  const wallet = await proveApproval(authDeps(c, body), {
    wallet: body.walletAddress,
    chainId: body.chainId,
    signature: body.signature,
    nonce: body.nonce,
    subject,
  });
  const [kind, owner] = await Promise.all([
    collectionKind(c.var.db, config.chainId, agent.collection),
    ownerOf(chainClient(config), agent.collection, agent.tokenId),
  ]);
  if (kind === null || owner === null) throw new AppError('agent_not_found', 'Agent not found');
  if (owner.toLowerCase() !== wallet.toLowerCase()) throw new AppError('not_owner', 'You are not the owner of this agent');
  const props: GrantProps = { wallet, collection: agent.collection, tokenId: String(agent.tokenId) };
  // A metadata-document client is resolved again (the cache usually answers): the grant is made
  // only for a document that still holds, with the redirect URI it lists.
  const clientId = approved.request.clientId;
  const document = isDocumentClientId(clientId)
    ? await resolveClientDocument(c.env.NONCES, clientId, { loopbackTargets: config.dev.loopbackTargets })
    : undefined;
  if (document && !document.ok) throw new AppError('client_metadata_invalid', documentProblemText(clientId, document.problem));
  if (document?.ok && !listsRedirectUri(document.document, approved.request.redirectUri)) {
    throw new AppError('client_metadata_invalid', `The app's metadata document at ${clientId} no longer lists the redirect URI.`);
  }
  const oauth = (await authorizationServerFor(origin, subject.resource)).getOAuthApi(
    oauthEnv(c.env, document?.ok ? libraryClientOf(document.document) : undefined),
  );
  const userId = grantUserId({ wallet, ...agent });
  const { redirectTo } = await oauth.completeAuthorization({
    request: approved.request,
    userId,
    metadata: { wallet },
    scope: [MCP_SCOPE],
    props,
  });
  // The grant's id is the code's middle part (`{userId}:{grantId}:{secret}`).
  const grantId = (new URL(redirectTo).searchParams.get('code') ?? '').split(':')[1] ?? '';
  const clientName = document?.ok ? new URL(clientId).host : subject.clientName;
  try {
    await auditChange(c.var.db.orm, { chainId: config.chainId, ...agent, owner: wallet }, 'oauth_grant.approve', {
      grantId,
      clientId,
      ...(clientName ? { clientName } : {}),
    });
  } catch (err) {
    // No grant without its entry: the code never leaves, and the grant is taken back.
    await oauth.revokeGrant(grantId, userId).catch(() => undefined);
    throw databaseError(err);
  }
  await rememberGrantWallet(c.env, agent, wallet);
  // The approver is the owner now: an earlier owner's grants for this agent go.
  inBackground(c.executionCtx, revokeOtherWalletsGrants(c.env, origin, agent, wallet));
  approved.headers.forEach((value, name) => {
    c.header(name, value, { append: true });
  });
  return c.json({ redirectTo }, 200);
};

/**
 * Deny: the handle is checked (and used up) before anything is answered, and the redirect is the
 * library's, from the stored request (its registered redirect URI, `state`, `iss`), never from the
 * post. Only the cookie that ends the transaction is passed on, not the library's `Location`.
 */
export const denyHandler: RouteHandler<typeof routes.deny, AppBindings> = async (c) => {
  const { handle } = c.req.valid('json');
  const { AuthorizationError } = await oauthLibrary();
  try {
    const denied = await (await anyResourceServer(originOf(c))).getOAuthApi(oauthEnv(c.env)).denyConsent(c.req.raw, handle);
    for (const cookie of denied.headers.getSetCookie()) c.header('Set-Cookie', cookie, { append: true });
    c.header('Cache-Control', 'no-store');
    return c.json({ redirectTo: denied.redirectTo }, 200);
  } catch (err) {
    if (!(err instanceof AuthorizationError)) throw err;
    throw consentInvalid();
  }
};
