/**
 * Authorizations under way: each `state` sent to an authorization server names one record in KV
 * (`tool-oauth:state:<state>`, 10 minutes) with what the callback needs: the agent, connection and
 * wallet it is for, the PKCE verifier, the scopes and the issuer. Single use holds across isolates
 * through Postgres (`consumed_nonces`), not through KV, whose delete is eventually consistent.
 */
import { sha256Hex } from '../../encoding/sha256-hex';
import { databaseError, type Database } from '../../storage/db';

export const STATE_TTL_SECONDS = 600;
const PREFIX = 'tool-oauth:state:';
const STATE_FORMAT = /^[A-Za-z0-9_-]{43}$/;

export interface PendingAuthorization {
  chainId: number;
  collection: string;
  tokenId: string;
  connectionId: string;
  /** The wallet that asked (lower-case): the tokens are bound to it. */
  wallet: string;
  /** Who started the flow when not the owner (a delegate with admin leave): the audit trail names it. */
  actor?: { wallet: string; via: 'delegate' | 'renter' };
  verifier: string;
  redirectUri: string;
  scopes: string[];
  issuer: string;
  /** ms since the epoch: KV's TTL is the bound, this the check (KV may keep a key a little longer). */
  createdAt: number;
}

export function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

export const randomToken = () => base64url(crypto.getRandomValues(new Uint8Array(32)));

/** Keeps the record and returns its `state`. */
export async function startAuthorization(kv: KVNamespace, pending: PendingAuthorization): Promise<string> {
  const state = randomToken();
  await kv.put(PREFIX + state, JSON.stringify(pending), { expirationTtl: STATE_TTL_SECONDS });
  return state;
}

/**
 * The record of `state`, taken once: undefined when the state is malformed, unknown, expired or
 * used already (a second callback with it, even a concurrent one, gets undefined).
 */
export async function takeAuthorization(
  kv: KVNamespace,
  db: Database,
  state: string | undefined,
): Promise<PendingAuthorization | undefined> {
  if (state === undefined || !STATE_FORMAT.test(state)) return undefined;
  const pending = await kv.get<PendingAuthorization>(PREFIX + state, 'json');
  if (pending === null || typeof pending !== 'object') return undefined;
  if (!(pending.createdAt > Date.now() - STATE_TTL_SECONDS * 1000)) return undefined;
  let first: boolean;
  try {
    const { rowCount } = await db.sql.query('insert into "gateway"."consumed_nonces" (key) values ($1) on conflict do nothing', [
      `tool_oauth_state:${await sha256Hex(state)}`,
    ]);
    first = rowCount === 1;
  } catch (err) {
    throw databaseError(err);
  }
  await kv.delete(PREFIX + state).catch(() => {});
  return first ? pending : undefined;
}
