/**
 * Calls on an OAuth connection: `Authorization: Bearer` with the current owner's access token,
 * refreshed when it is about to run out or the server answers 401 (once per call; one refresh in
 * flight per connection in an isolate). A refused refresh, or a 401 after refreshing, leaves the
 * connection `authorization_required` and the call 424 `tool_authorization_required`; a 403
 * `insufficient_scope` is a step-up: 424 with a URL for more scopes, never a retry loop.
 */
import type { Agent } from '../../identity/agent';
import { AppError } from '../../errors';
import { walletKey } from '../../vault/owner';
import type { McpAuth, McpClient } from '../client';
import { reentryRequired, registeredBy, type Row } from '../connection-view';
import { withConnection, type McpDeps } from '../tool-session';
import { type BearerChallenge, parseBearerChallenge } from './challenge';
import { canAuthorize, fetchDeps } from './deps';
import { authorizeUrl, oauthStateOf } from './flow';
import { tokenRequest } from './token-endpoint';
import { currentTokenEntry, dropTokens, readClientSecret, readTokens, saveTokens } from './token-store';
import { isOAuthState, type StoredTokens } from './types';

/** An access token this close to its end is refreshed before use. */
export const REFRESH_MARGIN_MS = 30_000;

/** 424 `tool_authorization_required`, with a fresh authorize URL where the caller is the owner on a direct route. */
export async function authorizationRequired(deps: McpDeps, agent: Agent, row: Row, more: readonly string[] = []): Promise<AppError> {
  const url = canAuthorize(deps) ? await authorizeUrl(deps, agent, row, more).catch(() => undefined) : undefined;
  const why = more.length ? 'asks for more scopes' : 'needs the owner to authorize the gateway';
  return new AppError(
    'tool_authorization_required',
    `The tool server ${why}: the owner opens the authorize URL (POST …/mcp/connection/{id}/authorize gives a fresh one); until then its tools are unavailable`,
    { details: { connectionId: row.id, ...(url === undefined ? {} : { authorizeUrl: url }) } },
  );
}

interface Bearer {
  token: string;
  /** The vault entry the token came from: a refresh replaces only this one. */
  entry: string;
}

const inFlight = new Map<string, Promise<Bearer>>();

/** The current owner's access token for the connection, refreshed first when it is about to run out. */
async function bearerOf(deps: McpDeps, agent: Agent, row: Row): Promise<Bearer> {
  if (!registeredBy(row, agent.owner)) throw reentryRequired(row.id);
  const state = oauthStateOf(row);
  const entry = row.tokenEntry;
  const tokens = entry === null ? undefined : await readTokens(deps, agent, row);
  if (entry === null || tokens === undefined) throw await authorizationRequired(deps, agent, row);
  const expiresAt = state.expiresAt ? Date.parse(state.expiresAt) : Number.NaN;
  if (expiresAt - Date.now() < REFRESH_MARGIN_MS) return refresh(deps, agent, row, entry, tokens);
  return { token: tokens.accessToken, entry };
}

/** One refresh per connection and token in flight in this isolate: parallel calls share it. */
function refresh(deps: McpDeps, agent: Agent, row: Row, entry: string, tokens: StoredTokens): Promise<Bearer> {
  const key = `${row.id}:${entry}`;
  let running = inFlight.get(key);
  if (running === undefined) {
    running = runRefresh(deps, agent, row, entry, tokens).finally(() => inFlight.delete(key));
    inFlight.set(key, running);
  }
  return running;
}

/**
 * Across isolates two refreshes may race: the store keeps whichever lands first, and the other,
 * finding its entry replaced (or its rotated refresh token refused), uses the stored one.
 */
async function runRefresh(deps: McpDeps, agent: Agent, row: Row, entry: string, tokens: StoredTokens): Promise<Bearer> {
  if (tokens.refreshToken === undefined) return giveUp(deps, agent, row, entry);
  const state = oauthStateOf(row);
  const secret = await readClientSecret(deps, agent, row);
  const answer = await tokenRequest(
    fetchDeps(deps),
    state,
    secret,
    { grant_type: 'refresh_token', refresh_token: tokens.refreshToken },
    'refresh',
  );
  if (!answer.ok) return giveUp(deps, agent, row, entry);
  const t = answer.tokens;
  const stored: StoredTokens = { accessToken: t.accessToken, refreshToken: t.refreshToken ?? tokens.refreshToken };
  const patch = {
    expiresAt: t.expiresIn === undefined ? null : new Date(Date.now() + t.expiresIn * 1000).toISOString(),
    ...(t.scopes ? { grantedScopes: t.scopes } : {}),
  };
  const saved = await saveTokens(deps, agent, walletKey(agent.owner), row.id, entry, stored, patch);
  if (!saved.saved) return (await storedElsewhere(deps, agent, row, entry)) ?? { token: t.accessToken, entry };
  row.tokenEntry = saved.entry;
  row.oauth = { ...oauthStateOf(row), ...patch };
  return { token: t.accessToken, entry: saved.entry };
}

/** The tokens another request stored since `entry` was read, if any (adopted into `row`). */
async function storedElsewhere(deps: McpDeps, agent: Agent, row: Row, entry: string): Promise<Bearer | undefined> {
  const now = await currentTokenEntry(deps, row.id);
  if (!now?.tokenEntry || now.tokenEntry === entry || !isOAuthState(now.oauth)) return undefined;
  const tokens = await readTokens(deps, agent, { id: row.id, tokenEntry: now.tokenEntry });
  if (tokens === undefined) return undefined;
  row.tokenEntry = now.tokenEntry;
  row.oauth = now.oauth;
  return { token: tokens.accessToken, entry: now.tokenEntry };
}

/** The refresh was refused: unless another request refreshed meanwhile, forget the tokens and ask the owner. */
async function giveUp(deps: McpDeps, agent: Agent, row: Row, entry: string): Promise<Bearer> {
  const other = await storedElsewhere(deps, agent, row, entry);
  if (other) return other;
  await dropTokens(deps, row.id, entry);
  row.tokenEntry = null;
  throw await authorizationRequired(deps, agent, row);
}

/** What the tool server said when it refused a request (401/403), seen through the fetch the client uses. */
function watching(deps: McpDeps): {
  deps: McpDeps;
  seen: () => { status: number; challenge?: BearerChallenge } | undefined;
  reset: () => void;
} {
  let seen: { status: number; challenge?: BearerChallenge } | undefined;
  const base = deps.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const watched: typeof fetch = async (input, init) => {
    const res = await base(input, init);
    if (res.status === 401 || res.status === 403) {
      const challenge = parseBearerChallenge(res.headers.get('www-authenticate'));
      seen = { status: res.status, ...(challenge ? { challenge } : {}) };
    }
    return res;
  };
  return { deps: { ...deps, fetch: watched }, seen: () => seen, reset: () => (seen = undefined) };
}

const bearer = (token: string): McpAuth => ({ type: 'bearer', token });

/**
 * `use` with a client on the OAuth connection `row`: the owner's token, one refresh and retry on
 * a 401, 424 when the owner must authorize (again, or for more scopes).
 */
export async function withOAuthConnection<T>(deps: McpDeps, agent: Agent, row: Row, use: (client: McpClient) => Promise<T>): Promise<T> {
  const watch = watching(deps);
  const first = await bearerOf(deps, agent, row);
  try {
    return await withConnection(watch.deps, agent, row, use, bearer(first.token));
  } catch (err) {
    const seen = watch.seen();
    if (seen?.status === 403 && seen.challenge?.error === 'insufficient_scope')
      throw await authorizationRequired(deps, agent, row, seen.challenge.scope ?? []);
    if (seen?.status !== 401) throw err;
  }
  watch.reset();
  const tokens = await readTokens(deps, agent, { id: row.id, tokenEntry: first.entry });
  const next = tokens ? await refresh(deps, agent, row, first.entry, tokens) : await giveUp(deps, agent, row, first.entry);
  // A copy: the first client (and its session) stays with the refused token.
  const retry: Row = { ...row, tokenEntry: next.entry };
  try {
    return await withConnection(watch.deps, agent, retry, use, bearer(next.token));
  } catch (err) {
    const seen = watch.seen();
    if (seen?.status === 403 && seen.challenge?.error === 'insufficient_scope')
      throw await authorizationRequired(deps, agent, row, seen.challenge.scope ?? []);
    if (seen?.status !== 401) throw err;
    await dropTokens(deps, row.id, next.entry);
    row.tokenEntry = null;
    throw await authorizationRequired(deps, agent, row);
  }
}
