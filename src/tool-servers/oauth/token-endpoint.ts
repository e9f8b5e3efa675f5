/**
 * Requests to the authorization server's token endpoint: the code for tokens (with the PKCE
 * verifier), and a refresh. The client authenticates as it registered (`client_secret_basic`,
 * `client_secret_post` or `none`), and `resource` names the tool server on both (RFC 8707).
 */
import { oauthFailed, type OAuthStep } from './failure';
import { fetchJson, type OAuthFetchDeps } from './fetch-json';
import type { OAuthState } from './types';

export interface TokenAnswer {
  accessToken: string;
  refreshToken?: string;
  /** Seconds; undefined when the server did not say. */
  expiresIn?: number;
  scopes?: string[];
}

/** An answer of the token endpoint: tokens, or its OAuth error code (`invalid_grant`: ask the owner again). */
export type TokenResult = { ok: true; tokens: TokenAnswer } | { ok: false; error: string };

const formUrlEncode = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');

export async function tokenRequest(
  deps: OAuthFetchDeps,
  state: Pick<OAuthState, 'server' | 'clientId' | 'tokenAuth' | 'resource'>,
  clientSecret: string | undefined,
  grant: Record<string, string>,
  step: Extract<OAuthStep, 'token' | 'refresh'>,
): Promise<TokenResult> {
  const form = new URLSearchParams({ ...grant, resource: state.resource });
  const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded' };
  if (state.tokenAuth === 'client_secret_basic' && clientSecret !== undefined) {
    headers.Authorization = `Basic ${btoa(`${formUrlEncode(state.clientId)}:${formUrlEncode(clientSecret)}`)}`;
  } else {
    form.set('client_id', state.clientId);
    if (state.tokenAuth === 'client_secret_post' && clientSecret !== undefined) form.set('client_secret', clientSecret);
  }
  const answer = await fetchJson(deps, state.server.tokenEndpoint, { method: 'POST', headers, body: form.toString() });
  if (!answer.ok) {
    const error = answer.json?.error;
    if ((answer.status === 400 || answer.status === 401) && typeof error === 'string') return { ok: false, error: error.slice(0, 100) };
    throw oauthFailed(step, answer.reason, answer.message, answer.status);
  }
  const j = answer.json;
  // Sent as a header value: printable ASCII only, as any credential.
  if (typeof j.access_token !== 'string' || !/^[\x21-\x7e]{1,8192}$/.test(j.access_token)) {
    throw oauthFailed(step, 'invalid', 'its answer has no usable access_token');
  }
  if (typeof j.token_type === 'string' && j.token_type.toLowerCase() !== 'bearer') {
    throw oauthFailed(step, 'invalid', `it issued a ${j.token_type.slice(0, 40)} token, not a Bearer token`);
  }
  return {
    ok: true,
    tokens: {
      accessToken: j.access_token,
      ...(typeof j.refresh_token === 'string' && j.refresh_token !== '' && j.refresh_token.length <= 8_192
        ? { refreshToken: j.refresh_token }
        : {}),
      ...(typeof j.expires_in === 'number' && j.expires_in > 0 ? { expiresIn: j.expires_in } : {}),
      ...(typeof j.scope === 'string' ? { scopes: j.scope.split(' ').filter((s) => s !== '') } : {}),
    },
  };
}
