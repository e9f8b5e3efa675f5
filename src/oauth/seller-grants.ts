/**
 * Grants belong to the wallet that approved them. When the gateway sees the agent under another
 * owner, that wallet's grants for this agent are revoked for good: the library deletes their
 * tokens and the grant, so a transfer back revives nothing. The library keys grants by `userId`
 * (wallet first: resource.ts), so a small index per agent says which wallets approved grants.
 */
import type { Address } from 'viem';
import type { Env } from '../env';
import { grantUserId, mcpResource } from './resource';
import { authorizationServerFor, oauthEnv, REFRESH_TOKEN_TTL_SECONDS } from './server';

interface AgentRef {
  collection: Address;
  tokenId: bigint;
}

const indexPrefix = (agent: AgentRef) => `oauth-agent:${agent.collection}.${agent.tokenId}:`;
/** Pages of the library's grant listing read at most (100 each): a wallet has one grant per client. */
const MAX_PAGES = 10;

/** Notes that `wallet` holds grants for the agent; kept as long as a grant's refresh token can live. */
export async function rememberGrantWallet(env: Env, agent: AgentRef, wallet: Address): Promise<void> {
  await env.NONCES.put(`${indexPrefix(agent)}${wallet}`, '1', { expirationTtl: REFRESH_TOKEN_TTL_SECONDS + 24 * 3600 });
}

const revokedKey = (userId: string, grantId: string) => `oauth-revoked:${userId}:${grantId}`;

/**
 * Remembers that a grant was revoked (by its owner, or on a sale), as long as its tokens could have
 * lived: the library deletes a revoked grant's tokens, so without this a revoked token would read
 * as unknown.
 */
export async function markRevoked(env: Env, userId: string, grantId: string): Promise<void> {
  await env.NONCES.put(revokedKey(userId, grantId), '1', { expirationTtl: REFRESH_TOKEN_TTL_SECONDS });
}

/** Whether the grant of `userId` with this id was revoked (see markRevoked). */
export async function wasRevoked(env: Env, userId: string, grantId: string): Promise<boolean> {
  return (await env.NONCES.get(revokedKey(userId, grantId))) !== null;
}

/** Revokes every grant `wallet` made for the agent; resolves to how many. */
export async function revokeWalletGrants(env: Env, origin: string, agent: AgentRef, wallet: Address): Promise<number> {
  const oauth = (await authorizationServerFor(origin, mcpResource(origin, agent.collection, agent.tokenId))).getOAuthApi(oauthEnv(env));
  const userId = grantUserId({ wallet, ...agent });
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await oauth.listUserGrants(userId, { limit: 100, ...(cursor === undefined ? {} : { cursor }) });
    ids.push(...result.items.map((grant) => grant.id));
    cursor = result.cursor;
    if (cursor === undefined) break;
  }
  await Promise.all(ids.map(async (id) => Promise.all([markRevoked(env, userId, id), oauth.revokeGrant(id, userId)])));
  await env.NONCES.delete(`${indexPrefix(agent)}${wallet}`);
  return ids.length;
}

/** Revokes the grants of every wallet but `owner` for the agent (the owner seen now). */
export async function revokeOtherWalletsGrants(env: Env, origin: string, agent: AgentRef, owner: Address): Promise<void> {
  const listed = await env.NONCES.list({ prefix: indexPrefix(agent), limit: 100 });
  const others = listed.keys
    .map((key) => key.name.slice(indexPrefix(agent).length) as Address)
    .filter((wallet) => wallet.toLowerCase() !== owner.toLowerCase());
  await Promise.all(others.map((wallet) => revokeWalletGrants(env, origin, agent, wallet)));
}

/**
 * Run in the background (never adds to a request's time, never fails it): a failure is logged
 * by kind, and the next sighting tries again.
 */
export function inBackground(ctx: { waitUntil(promise: Promise<unknown>): void }, work: Promise<unknown>): void {
  ctx.waitUntil(
    work.catch((err: unknown) => {
      console.warn(
        JSON.stringify({
          level: 'warn',
          warning: `revoking a seller's OAuth grants failed: ${err instanceof Error ? err.name : 'unknown'}`,
        }),
      );
    }),
  );
}

/** How often one isolate looks for an earlier owner's grants of an agent on its owner's requests. */
export const OWNER_SIGHTING_INTERVAL_MS = 60_000;
const MAX_SIGHTINGS = 1_000;
const sightings = new Map<string, number>();

/**
 * Whether an owner's request on an agent should look for earlier owners' grants now: at most once
 * a minute per agent and owner in this isolate (one KV list), so a busy agent costs next to nothing.
 */
export function ownerSightingDue(key: string, now = Date.now()): boolean {
  const last = sightings.get(key);
  if (last !== undefined && now - last < OWNER_SIGHTING_INTERVAL_MS) return false;
  if (sightings.size >= MAX_SIGHTINGS) sightings.clear();
  sightings.set(key, now);
  return true;
}
