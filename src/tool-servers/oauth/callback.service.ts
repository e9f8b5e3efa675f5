/**
 * The end of the flow: the authorization server sent the owner's browser back with `code` and
 * `state`. The state is taken once; `iss`, when sent, must be the issuer the flow started with
 * (RFC 9207); the code is exchanged with the PKCE verifier; the tools are listed with the new token
 * for the connection's snapshot; then the tokens go to the vault, bound to the wallet that asked.
 * Any failure stores nothing.
 */
import { and, eq } from 'drizzle-orm';
import { auditChange } from '../../audit/entry';
import { AppError } from '../../errors';
import type { Agent } from '../../identity/agent';
import { databaseError } from '../../storage/db';
import { mcpConnections } from '../../storage/schema';
import { type Address, getAddress } from 'viem';
import { registeredBy, type Row } from '../connection-view';
import { connectionTimeout, inspectToolServer } from '../tool-session';
import { canonicalToolServerUrl } from '../url';
import type { OAuthDeps } from './deps';
import { fetchDeps } from './deps';
import { oauthFailed } from './failure';
import { oauthStateOf } from './flow';
import { type PendingAuthorization, takeAuthorization } from './state';
import { tokenRequest } from './token-endpoint';
import { readClientSecret, saveTokens } from './token-store';

export interface CallbackInput {
  code?: string | undefined;
  state?: string | undefined;
  iss?: string | undefined;
  error?: string | undefined;
}

const stateInvalid = () =>
  new AppError(
    'oauth_state_invalid',
    'This authorization link is unknown, was used already, or is older than 10 minutes: start again from the Authorize button',
  );

/** Completes the authorization; returns the connection's name or URL, for the page. */
export async function completeAuthorization(deps: OAuthDeps, input: CallbackInput): Promise<{ connection: string; tools: number }> {
  const pending = await takeAuthorization(deps.kv, deps.db, input.state);
  if (pending === undefined) throw stateInvalid();
  if (input.error !== undefined) {
    throw new AppError(
      'oauth_denied',
      `The authorization server did not authorize the gateway (${input.error.slice(0, 100)}); nothing was stored`,
    );
  }
  if (input.code === undefined || input.code === '') throw stateInvalid();
  const agent = agentOf(pending);
  const row = await pendingConnection(deps, pending, agent);
  const state = oauthStateOf(row);
  if (input.iss !== undefined && input.iss !== pending.issuer) {
    throw new AppError(
      'oauth_issuer_mismatch',
      'The authorization answer names another issuer than the authorization server the flow started with; nothing was stored',
    );
  }
  const secret = await readClientSecret(deps, agent, row);
  const answer = await tokenRequest(
    fetchDeps(deps),
    state,
    secret,
    { grant_type: 'authorization_code', code: input.code, redirect_uri: pending.redirectUri, code_verifier: pending.verifier },
    'token',
  );
  if (!answer.ok) throw oauthFailed('token', answer.error, `it refused the code (${answer.error})`);
  const t = answer.tokens;
  const allowed = canonicalToolServerUrl(row.url, deps.outbound);
  if (!allowed.ok) throw new AppError('invalid_tool_server_url', allowed.message, { details: { reason: allowed.reason } });
  const checked = await inspectToolServer(deps, row.url, { type: 'bearer', token: t.accessToken }, connectionTimeout(deps, row)).catch(
    (err: unknown) => {
      throw refusedToken(err);
    },
  );
  const patch = {
    scopes: pending.scopes,
    grantedScopes: t.scopes ?? pending.scopes,
    expiresAt: t.expiresIn === undefined ? null : new Date(Date.now() + t.expiresIn * 1000).toISOString(),
  };
  const tokens = { accessToken: t.accessToken, ...(t.refreshToken ? { refreshToken: t.refreshToken } : {}) };
  const saved = await saveTokens(deps, agent, pending.wallet, row.id, row.tokenEntry, tokens, patch, {
    tools: checked.tools,
    sessionId: checked.session?.id ?? null,
    protocolVersion: checked.session?.protocolVersion ?? null,
  });
  if (!saved.saved) throw stateInvalid();
  await auditChange(deps.db.orm, agent, 'mcp_credentials.set', { connectionId: row.id }).catch(() => {});
  return { connection: row.name ?? new URL(row.url).host, tools: checked.tools.length };
}

/**
 * The tool server refusing the token just issued (401, or 403 such as `insufficient_scope` for
 * the very scopes it asked) is a failed step of the flow, 502 `tool_server_oauth_failed`: not the
 * static-key registration's answers, which would call it a rejected key or say OAuth is unsupported.
 */
function refusedToken(err: unknown): unknown {
  if (!(err instanceof AppError) || (err.code !== 'tool_server_credential_rejected' && err.code !== 'tool_server_oauth_unsupported'))
    return err;
  const upstream = (err.details as { upstreamStatus?: unknown } | undefined)?.upstreamStatus;
  const status = typeof upstream === 'number' ? upstream : undefined;
  return oauthFailed('tool_server', 'token_refused', `it refused the new access token (HTTP ${status ?? 401})`, status);
}

/** The agent as the state names it, its owner the wallet that asked (the tokens are bound to it). */
function agentOf(p: PendingAuthorization): Agent {
  return {
    chainId: p.chainId,
    collection: p.collection as Address,
    tokenId: BigInt(p.tokenId),
    owner: p.wallet as Address,
    kind: 'unknown',
    // A delegate who started the flow is named by the audit entry; the tokens stay the owner's.
    ...(p.actor ? { actor: { wallet: getAddress(p.actor.wallet), via: p.actor.via } } : {}),
  };
}

/** The connection the state names, still registered by the wallet that asked, still OAuth. */
async function pendingConnection(deps: OAuthDeps, p: PendingAuthorization, agent: Agent): Promise<Row> {
  let row: Row | undefined;
  try {
    [row] = await deps.db.orm
      .select()
      .from(mcpConnections)
      .where(
        and(
          eq(mcpConnections.id, p.connectionId),
          eq(mcpConnections.chainId, p.chainId),
          eq(mcpConnections.collection, p.collection),
          eq(mcpConnections.tokenId, p.tokenId),
        ),
      )
      .limit(1);
  } catch (err) {
    throw databaseError(err);
  }
  if (!row) throw stateInvalid();
  if (row.authType !== 'oauth' || !registeredBy(row, agent.owner)) throw stateInvalid();
  const state = oauthStateOf(row);
  if (state.server.issuer !== p.issuer) throw stateInvalid();
  return row;
}
