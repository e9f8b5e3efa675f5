import type { Address } from 'viem';
import type { Env } from '../env';
import { grantUserId, resourceMetadataUrl, subjectOfCredential } from './resource';
import { AppError } from '../errors';
import { wasRevoked } from './seller-grants';
import { authorizationServerFor, oauthEnv } from './server';

/** 401 `invalid_token` saying the token was revoked, with the resource's Bearer challenge (RFC 6750). */
function revokedToken(origin: string, resource: string): AppError {
  const metadataUrl = resourceMetadataUrl(origin, resource);
  return new AppError(
    'invalid_token',
    "The OAuth access token was revoked (by the agent's owner, or because the agent changed hands): authorize the app again",
    {
      headers: {
        'WWW-Authenticate': `Bearer error="invalid_token", error_description="The access token was revoked", resource_metadata="${metadataUrl}"`,
      },
    },
  );
}

/** An OAuth access token's form: `{userId}:{grantId}:{secret}` (the library's opaque tokens). */
export const OAUTH_TOKEN_PATTERN = /^[^\s:]+:[A-Za-z0-9_-]+:[A-Za-z0-9_-]+$/;

/** What `completeAuthorization` stores in a grant: the wallet that signed in, and the agent. */
export interface GrantProps {
  wallet: Address;
  collection: Address;
  tokenId: string;
}

/**
 * The wallet an OAuth access token speaks for on `resource` (one agent's MCP or A2A URL), and the client it was issued to; null when
 * the token is not a live token of this deployment for exactly that resource: unknown, expired,
 * revoked, or issued for another agent (RFC 8707 audience). Whether that wallet still owns the
 * agent is the owner gate's question, asked on every call.
 */
export async function walletOfAccessToken(
  env: Env,
  origin: string,
  resource: string,
  token: string,
): Promise<{ wallet: Address; clientId: string } | null> {
  const subject = subjectOfCredential(token);
  if (!subject) return null;
  const validated = await (await authorizationServerFor(origin, resource)).validateToken<GrantProps>(resource, token, oauthEnv(env));
  if (!validated) {
    // A revoked grant's tokens are gone from KV: its tombstone tells a revoked token from an unknown one.
    const grantId = token.split(':')[1] ?? '';
    if (await wasRevoked(env, grantUserId(subject), grantId)) throw revokedToken(origin, resource);
    return null;
  }
  if (validated.audience !== resource) return null;
  // The props were sealed with the grant; the token's prefix must name the same subject.
  const props = validated.props;
  if (validated.userId !== grantUserId(subject) || props.wallet !== subject.wallet) return null;
  return { wallet: props.wallet, clientId: validated.clientId };
}
