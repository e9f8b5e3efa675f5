import type { Address } from 'viem';
import type { Env } from '../env';
import { grantUserId, subjectOfCredential } from './resource';
import { authorizationServerFor, oauthEnv } from './server';

/** An OAuth access token's form: `{userId}:{grantId}:{secret}` (the library's opaque tokens). */
export const OAUTH_TOKEN_PATTERN = /^[^\s:]+:[A-Za-z0-9_-]+:[A-Za-z0-9_-]+$/;

/** What `completeAuthorization` stores in a grant: the wallet that signed in, and the agent. */
export interface GrantProps {
  wallet: Address;
  collection: Address;
  tokenId: string;
}

/**
 * The wallet an OAuth access token speaks for on `resource` (one agent's MCP URL), or null when
 * the token is not a live token of this deployment for exactly that resource: unknown, expired,
 * revoked, or issued for another agent (RFC 8707 audience). Whether that wallet still owns the
 * agent is the owner gate's question, asked on every call.
 */
export async function walletOfAccessToken(env: Env, origin: string, resource: string, token: string): Promise<Address | null> {
  const subject = subjectOfCredential(token);
  if (!subject) return null;
  const validated = await (await authorizationServerFor(origin, resource)).validateToken<GrantProps>(resource, token, oauthEnv(env));
  if (!validated || validated.audience !== resource) return null;
  // The props were sealed with the grant; the token's prefix must name the same subject.
  const props = validated.props;
  if (validated.userId !== grantUserId(subject) || props.wallet !== subject.wallet) return null;
  return props.wallet;
}
