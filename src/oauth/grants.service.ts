/** The OAuth grants an owner made for one agent's MCP server: list and revoke. */
import type { Address } from 'viem';
import type { Agent } from '../identity/agent';
import { auditChange } from '../audit/entry';
import type { Env } from '../env';
import { AppError } from '../errors';
import { databaseError, type Database } from '../storage/db';
import { agentResources, grantUserId, mcpResource } from './resource';
import { markRevoked } from './seller-grants';
import { authorizationServerFor, oauthEnv } from './server';

/** One grant as its owner sees it: never a token, a token's id or its hash. */
export interface OAuthGrantView {
  id: string;
  clientId: string;
  /** The client's own `client_name` from its registration (self-asserted); null when it gave none or is gone. */
  clientName: string | null;
  scope: string[];
  /** The URL the grant's tokens work on: the agent's MCP URL or its A2A URL. */
  resource: string;
  createdAt: string;
  /** Whether the grant holds a refresh token that has not expired (the client can still get access tokens). */
  refreshTokenLive: boolean;
}

/** A grant id as the library makes them; anything else is no grant (404 without a KV read). */
export const GRANT_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
/** Pages of the library's listing read at most (100 grants each): a wallet has one grant per client. */
const MAX_PAGES = 10;

/** The library's stored grant record: the fields read here (GrantSummary omits the refresh token's). */
interface StoredGrant {
  refreshTokenId?: string;
  expiresAt?: number;
}

interface GrantsContext {
  env: Env;
  origin: string;
  agent: Agent;
  owner: Address;
}

const userIdOf = (g: GrantsContext) => grantUserId({ wallet: g.owner, collection: g.agent.collection, tokenId: g.agent.tokenId });

async function helpersOf(g: GrantsContext) {
  const server = await authorizationServerFor(g.origin, mcpResource(g.origin, g.agent.collection, g.agent.tokenId));
  return server.getOAuthApi(oauthEnv(g.env));
}

/**
 * The grants of the owner's wallet for this agent's MCP and A2A resources, oldest first. Grants are the
 * library's, per `userId` (wallet, collection, token id: resource.ts), so an earlier owner's grants
 * are not listed (their tokens are refused anyway: the owner gate checks the wallet on each call).
 */
export async function listOAuthGrants(g: GrantsContext): Promise<OAuthGrantView[]> {
  const oauth = await helpersOf(g);
  const userId = userIdOf(g);
  const resources: readonly string[] = agentResources(g.origin, g.agent.collection, g.agent.tokenId);
  const summaries = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await oauth.listUserGrants(userId, { limit: 100, ...(cursor === undefined ? {} : { cursor }) });
    summaries.push(...result.items);
    cursor = result.cursor;
    if (cursor === undefined) break;
  }
  const now = Date.now() / 1000;
  const views = await Promise.all(
    summaries
      .filter((s) => (Array.isArray(s.resource) ? s.resource : [s.resource]).some((r) => r !== undefined && resources.includes(r)))
      .map(async (s): Promise<OAuthGrantView> => {
        const [client, stored] = await Promise.all([
          oauth.lookupClient(s.clientId),
          g.env.NONCES.get<StoredGrant>(`grant:${userId}:${s.id}`, { type: 'json' }),
        ]);
        return {
          id: s.id,
          clientId: s.clientId,
          clientName: client?.clientName ?? null,
          scope: s.scope,
          resource: (Array.isArray(s.resource) ? s.resource[0] : s.resource) ?? resources[0] ?? '',
          createdAt: new Date(s.createdAt * 1000).toISOString(),
          refreshTokenLive: Boolean(stored?.refreshTokenId) && (stored?.expiresAt === undefined || stored.expiresAt > now),
        };
      }),
  );
  return views.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
}

/**
 * Revokes grant `grantId` of the owner's wallet on this agent: the library deletes its access and
 * refresh tokens, then the grant, so the next use of either is refused. 404
 * `oauth_grant_not_found` for an unknown grant, or one of another wallet or agent (looked up under
 * this owner's and agent's `userId` only). The audit entry (actor, `oauth_grant.revoke`, grant and client id) goes with it.
 */
export async function revokeOAuthGrant(g: GrantsContext, db: Database, grantId: string): Promise<{ id: string; clientId: string }> {
  const notFound = () => new AppError('oauth_grant_not_found', 'No OAuth grant with this id for this agent');
  if (!GRANT_ID_PATTERN.test(grantId)) throw notFound();
  const userId = userIdOf(g);
  const stored = await g.env.NONCES.get<{ clientId?: string }>(`grant:${userId}:${grantId}`, { type: 'json' });
  if (!stored?.clientId) throw notFound();
  const oauth = await helpersOf(g);
  const clientId = stored.clientId;
  try {
    // The entry and the revocation together: the KV deletes run inside the entry's transaction,
    // so a revocation that throws leaves no entry behind.
    await db.orm.transaction(async (tx) => {
      await auditChange(tx, { ...g.agent, owner: g.owner }, 'oauth_grant.revoke', { grantId, clientId });
      await Promise.all([oauth.revokeGrant(grantId, userId), markRevoked(g.env, userId, grantId)]);
    });
  } catch (err) {
    throw databaseError(err);
  }
  return { id: grantId, clientId };
}
