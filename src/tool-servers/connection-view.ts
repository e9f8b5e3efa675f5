/**
 * A stored tool-server connection as its owner sees it, and the small rules about its row: who
 * registered it, where its credential lives, how an auth input becomes the client's auth.
 */
import { AppError } from '../errors';
import type { mcpConnections } from '../storage/schema';
import { credentialState, walletKey, type CredentialState } from '../vault/owner';
import { checkCredentialHeader, checkCredentialValue, type McpAuth, type Tool } from './client';
import { isOAuthState } from './oauth/types';

export type OAuthInput = { type: 'oauth'; scopes?: string[] | undefined; clientId?: string | undefined; clientSecret?: string | undefined };

export type AuthInput =
  | { type: 'none' }
  | { type: 'bearer'; value: string }
  | { type: 'header'; headerName: string; value: string }
  | OAuthInput;

/** The auth kinds a static credential (or none) covers: everything but OAuth. */
export type StaticAuthInput = Exclude<AuthInput, OAuthInput>;

export type Row = typeof mcpConnections.$inferSelect;

/** What the list shows of each tool (the schemas are in GET …/tools). */
export type ToolSummary = Pick<Tool, 'name' | 'title' | 'description' | 'annotations' | 'execution'>;

export interface ConnectionView {
  id: string;
  /** The full URL for the wallet that registered the connection; its origin only for anyone else. */
  url: string;
  name: string | null;
  /** `valueSet`: a credential entered by the agent's current owner is stored. */
  auth: { type: 'none' | 'bearer' | 'header' | 'oauth'; headerName?: string; valueSet: boolean };
  /** Whether the connection can be used by the current owner as it is (see CredentialState). */
  credential: CredentialState;
  /** `authorization_required`: an OAuth connection the current owner has not authorized (or must again). */
  status: 'ready' | 'authorization_required';
  /** OAuth connections: the scopes and the access token's end; never a token. */
  authorization?: { scopes: string[]; expiresAt: string | null };
  /** In a registration's (or credential change's) answer of an OAuth connection: where to authorize. */
  authorizeUrl?: string;
  /** Deadline of one operation on this connection, ms (progress restarts it during a tool call). */
  timeoutMs: number;
  tools: ToolSummary[];
  createdAt: string;
}

/** The vault record name of a connection's credential. */
export const credentialRecord = (id: string) => `mcp_connection:${id}`;

/**
 * Whether `wallet` registered the connection (or confirmed it with PUT …/auth). A URL often carries
 * a key in its path or query, so a connection registered by another wallet, or before registrants
 * were recorded, is never used for `wallet` and its URL is shown as its origin only.
 */
export function registeredBy(row: Pick<Row, 'createdByWallet'>, wallet: string): boolean {
  return row.createdByWallet !== null && row.createdByWallet === walletKey(wallet);
}

function summary(tool: Tool): ToolSummary {
  const { name, title, description, annotations, execution } = tool;
  return {
    name,
    ...(title === undefined ? {} : { title }),
    ...(description === undefined ? {} : { description }),
    ...(annotations === undefined ? {} : { annotations }),
    ...(execution === undefined ? {} : { execution }),
  };
}

/**
 * The connection as its current owner sees it; `entryWallet` is who entered its credential,
 * `tokenWallet` who authorized an OAuth connection (the wallet its tokens are bound to).
 */
export function view(
  row: Row,
  entryWallet: string | null,
  currentOwner: string,
  defaultTimeoutMs: number,
  tokenWallet: string | null = null,
): ConnectionView {
  const type = row.authType as ConnectionView['auth']['type'];
  const own = registeredBy(row, currentOwner);
  if (type === 'oauth') return oauthView(row, own, tokenWallet, currentOwner, defaultTimeoutMs);
  const credential = own
    ? credentialState(type !== 'none', row.secretEntry === null ? null : entryWallet, currentOwner)
    : 'reenter_required';
  return {
    ...common(row, own, defaultTimeoutMs),
    auth: { type, ...(row.headerName ? { headerName: row.headerName } : {}), valueSet: credential === 'set' },
    credential,
    status: 'ready',
  };
}

/**
 * An OAuth connection: `ready` once the current owner authorized it (its tokens are bound to
 * them); its client identity is the registrant's, so `credential` follows the registrant only.
 */
function oauthView(row: Row, own: boolean, tokenWallet: string | null, currentOwner: string, defaultTimeoutMs: number): ConnectionView {
  const ready = own && row.tokenEntry !== null && tokenWallet !== null && tokenWallet === walletKey(currentOwner);
  const state = isOAuthState(row.oauth) ? row.oauth : undefined;
  return {
    ...common(row, own, defaultTimeoutMs),
    auth: { type: 'oauth', valueSet: ready },
    credential: own ? 'set' : 'reenter_required',
    status: ready ? 'ready' : 'authorization_required',
    authorization: {
      scopes: (ready ? state?.grantedScopes : undefined) ?? state?.scopes ?? [],
      expiresAt: ready ? (state?.expiresAt ?? null) : null,
    },
  };
}

function common(row: Row, own: boolean, defaultTimeoutMs: number) {
  return {
    id: row.id,
    url: own ? row.url : new URL(row.url).origin,
    name: row.name,
    timeoutMs: row.timeoutMs ?? defaultTimeoutMs,
    tools: (row.tools as Tool[]).map(summary),
    createdAt: row.createdAt.toISOString(),
  };
}

export function clientAuth(auth: StaticAuthInput): McpAuth {
  switch (auth.type) {
    case 'none':
      return { type: 'none' };
    case 'bearer':
      return { type: 'bearer', token: auth.value };
    case 'header':
      return { type: 'header', name: auth.headerName, value: auth.value };
  }
}

/** Checks a credential before it is used or stored (400 `validation_failed`); never echoes it. */
export function checkAuthInput(auth: AuthInput): void {
  if (auth.type === 'none') return;
  if (auth.type === 'oauth') {
    checkOAuthInput(auth);
    return;
  }
  const check = auth.type === 'header' ? checkCredentialHeader(auth.headerName, auth.value) : checkCredentialValue(auth.value);
  if (!check.ok)
    throw new AppError('validation_failed', check.problem, { details: { issues: [{ path: 'auth', message: check.problem }] } });
}

export function reentryRequired(connectionId: string): AppError {
  return new AppError(
    'credential_reentry_required',
    "The connection was registered, or its credential entered, by another wallet than the agent's current owner: confirm or replace it with PUT …/mcp/connection/{id}/auth",
    { details: { connectionId } },
  );
}

/** A pre-registered client's id and secret: printable, and the secret only with an id. */
function checkOAuthInput(auth: OAuthInput): void {
  const problem =
    auth.clientSecret !== undefined && auth.clientId === undefined
      ? 'clientSecret needs clientId'
      : auth.clientId !== undefined && !checkCredentialValue(auth.clientId).ok
        ? 'clientId must be printable ASCII without leading or trailing spaces'
        : auth.clientSecret !== undefined && !checkCredentialValue(auth.clientSecret).ok
          ? 'clientSecret must be printable ASCII without leading or trailing spaces'
          : undefined;
  if (problem) throw new AppError('validation_failed', problem, { details: { issues: [{ path: 'auth', message: problem }] } });
}
