/**
 * The typed clients the dashboard uses: same origin as the page (the worker serves both), and a
 * fetch that tells the shell when the gateway refuses the tab's token (expired or revoked), so it
 * goes back to login with a message instead of failing page by page.
 */
import { type AgentClient, createGatewayClient, type GatewayClient, type LoginAccount } from '../client';
import type { PickedAgent, StoredSession } from './session';

const origin = () => location.origin;

/** A client without a token: health and login. */
export function publicClient(login?: { account: LoginAccount; chainId: number }): GatewayClient {
  return createGatewayClient({ baseUrl: origin(), ...(login ? { login } : {}) });
}

/** A fetch that tells `onUnauthorized` when the gateway refuses the tab's token (a 401 to a call that sent it). */
function watching(onUnauthorized: (code: string) => void) {
  return async (input: string, init: RequestInit) => {
    const res = await fetch(input, init);
    if (res.status === 401) {
      const body = (await res
        .clone()
        .json()
        .catch(() => null)) as { error?: { code?: unknown } } | null;
      onUnauthorized(typeof body?.error?.code === 'string' ? body.error.code : 'unauthorized');
    }
    return res;
  };
}

/** The wallet's client with the tab's token (its own tokens of a collection); `onUnauthorized` as below. */
export function walletClient(session: StoredSession, onUnauthorized: (code: string) => void): GatewayClient {
  return createGatewayClient({ baseUrl: origin(), token: session.token, fetch: watching(onUnauthorized) });
}

/** The picked agent's client with the tab's token; `onUnauthorized` runs on a 401 to a call that sent it. */
export function agentClient(session: StoredSession, agent: PickedAgent, onUnauthorized: (code: string) => void): AgentClient {
  return walletClient(session, onUnauthorized).agent(agent.collection, agent.tokenId);
}
