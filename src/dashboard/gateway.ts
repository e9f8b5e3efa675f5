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

/** The picked agent's client with the tab's token; `onUnauthorized` runs on a 401 to a call that sent it. */
export function agentClient(session: StoredSession, agent: PickedAgent, onUnauthorized: (code: string) => void): AgentClient {
  const fetchWatching = async (input: string, init: RequestInit) => {
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
  return createGatewayClient({ baseUrl: origin(), token: session.token, fetch: fetchWatching }).agent(agent.collection, agent.tokenId);
}
