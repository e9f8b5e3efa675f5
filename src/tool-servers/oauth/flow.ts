/**
 * The start of the flow: what registering an OAuth connection finds out (discovery, the client
 * identity, the scopes), and a fresh authorize URL for the owner (PKCE S256, `resource`, a single
 * use `state` bound to the owner's wallet and the connection).
 */
import type { Agent } from '../../identity/agent';
import { AppError } from '../../errors';
import { walletKey } from '../../vault/owner';
import { agentRef } from '../../storage/agent-rows';
import type { OAuthInput, Row } from '../connection-view';
import { redirectUri } from './client-document';
import { clientIdentity } from './client-identity';
import { fetchDeps, type OAuthDeps } from './deps';
import { discover } from './discovery';
import { base64url, randomToken, startAuthorization } from './state';
import { isOAuthState, type OAuthState } from './types';

/** What the connection keeps (no secret) and the client secret for the vault, if any. */
export interface PreparedOAuth {
  state: OAuthState;
  clientSecret?: string;
}

/** Discovery, the client identity and the scopes for the tool server at `url` (canonical). Nothing is stored. */
export async function prepareOAuth(deps: OAuthDeps, url: string, input: OAuthInput): Promise<PreparedOAuth> {
  const net = fetchDeps(deps);
  const found = await discover(net, url);
  const client = await clientIdentity(net, deps.origin, found.server, input);
  const scopes = input.scopes?.length ? input.scopes : (found.challengeScopes ?? found.supportedScopes ?? []);
  return {
    state: {
      resource: found.resource,
      server: found.server,
      clientId: client.clientId,
      clientSource: client.clientSource,
      tokenAuth: client.tokenAuth,
      scopes: [...new Set(scopes)],
    },
    ...(client.clientSecret === undefined ? {} : { clientSecret: client.clientSecret }),
  };
}

export function oauthStateOf(row: Row): OAuthState {
  if (row.authType !== 'oauth' || !isOAuthState(row.oauth)) {
    throw new AppError('tool_server_not_oauth', 'This connection does not use OAuth: it has no authorization to start');
  }
  return row.oauth;
}

/**
 * Whether an authorize URL may go to this caller: the owner always; a delegate only when the
 * connection's `resource` is a bare origin, since a fuller URL (path or query) may carry a key.
 */
function resourceShownTo(agent: Agent, state: OAuthState): boolean {
  if (agent.actor === undefined) return true;
  try {
    const url = new URL(state.resource);
    return url.pathname === '/' && url.search === '' && url.hash === '';
  } catch {
    return false;
  }
}

/** The authorize URL for a connection just saved, or undefined when this caller may not see it (see authorizeUrl). */
export async function authorizeUrlIfShown(deps: OAuthDeps, agent: Agent, row: Row): Promise<string | undefined> {
  return resourceShownTo(agent, oauthStateOf(row)) ? authorizeUrl(deps, agent, row) : undefined;
}

/**
 * A fresh authorize URL for the agent's current owner: the connection's scopes, with `more` (a
 * step-up's) added. Each call starts a new `state`, valid 10 minutes, usable once.
 */
export async function authorizeUrl(deps: OAuthDeps, agent: Agent, row: Row, more: readonly string[] = []): Promise<string> {
  const state = oauthStateOf(row);
  if (!resourceShownTo(agent, state)) {
    throw new AppError(
      'not_owner',
      "This connection's authorize URL names its full URL (which may carry a key): only the agent's owner may open it",
    );
  }
  const scopes = [...new Set([...state.scopes, ...more])];
  const verifier = randomToken();
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
  const ref = agentRef(agent);
  const redirect = redirectUri(deps.origin);
  const handle = await startAuthorization(deps.kv, {
    ...ref,
    connectionId: row.id,
    wallet: walletKey(agent.owner),
    ...(agent.actor ? { actor: { wallet: agent.actor.wallet, via: agent.actor.via } } : {}),
    verifier,
    redirectUri: redirect,
    scopes,
    issuer: state.server.issuer,
    createdAt: Date.now(),
  });
  const url = new URL(state.server.authorizationEndpoint);
  const params: Record<string, string> = {
    response_type: 'code',
    client_id: state.clientId,
    redirect_uri: redirect,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: handle,
    resource: state.resource,
    ...(scopes.length ? { scope: scopes.join(' ') } : {}),
  };
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return url.toString();
}
