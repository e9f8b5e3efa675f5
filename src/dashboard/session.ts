/**
 * What the tab remembers (sessionStorage: this tab only, gone when it closes): the access token
 * with its wallet and expiry, and the agent picked. Logout clears both. The browser remembers one
 * thing past logout (localStorage): the collection last opened, a public contract address, so
 * that the picker starts with it.
 */
import { type LoginSession, tokenExpiresAt } from '../client';

const SESSION_KEY = 'agent-gateway.session';
const AGENT_KEY = 'agent-gateway.agent';
const COLLECTION_KEY = 'agent-gateway.collection';

export interface StoredSession {
  token: string;
  walletAddress: string;
  chainId: number;
  expiresAt: string | null;
}

export interface PickedAgent {
  collection: string;
  tokenId: string;
}

function read<T>(key: string, valid: (value: Record<string, unknown>) => boolean): T | undefined {
  try {
    const value = JSON.parse(sessionStorage.getItem(key) ?? 'null') as unknown;
    return typeof value === 'object' && value !== null && valid(value as Record<string, unknown>) ? (value as T) : undefined;
  } catch {
    return undefined;
  }
}

/** The kept session, or undefined (none, malformed or expired: `expired` says which). */
export function loadSession(now = Date.now()): { session?: StoredSession; expired: boolean } {
  const session = read<StoredSession>(SESSION_KEY, (v) => typeof v.token === 'string' && typeof v.walletAddress === 'string');
  if (!session) return { expired: false };
  const expiresAt = tokenExpiresAt(session.token);
  if (expiresAt !== null && Date.parse(expiresAt) <= now) {
    sessionStorage.removeItem(SESSION_KEY);
    return { expired: true };
  }
  return { session, expired: false };
}

export function saveSession(session: LoginSession): StoredSession {
  const stored: StoredSession = {
    token: session.token,
    walletAddress: session.walletAddress,
    chainId: session.chainId,
    expiresAt: session.expiresAt,
  };
  sessionStorage.setItem(SESSION_KEY, JSON.stringify(stored));
  return stored;
}

export function loadAgent(): PickedAgent | undefined {
  return read<PickedAgent>(AGENT_KEY, (v) => typeof v.collection === 'string' && typeof v.tokenId === 'string');
}

export function saveAgent(agent: PickedAgent | undefined): void {
  if (agent) sessionStorage.setItem(AGENT_KEY, JSON.stringify(agent));
  else sessionStorage.removeItem(AGENT_KEY);
  if (agent) {
    try {
      localStorage.setItem(COLLECTION_KEY, agent.collection);
    } catch {
      /* storage refused (private mode, quota): the picker starts empty next time */
    }
  }
}

/** The collection last opened in this browser, if any (kept past logout). */
export function lastCollection(): string | undefined {
  try {
    return localStorage.getItem(COLLECTION_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

/**
 * Logout (`forgetAgent`): the token and the agent picked are gone from the tab. A token the
 * gateway refused only drops the token: the next login goes back to the same agent.
 */
export function clearSession(forgetAgent: boolean): void {
  sessionStorage.removeItem(SESSION_KEY);
  if (forgetAgent) sessionStorage.removeItem(AGENT_KEY);
}
