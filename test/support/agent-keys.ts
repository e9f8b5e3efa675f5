import { expect } from 'vitest';
import type { TestAgent } from './agent';
import { call, type JsonResponse } from './http';
import { agentPath } from './login';

export interface CreatedKey {
  id: string;
  key: string;
  name: string;
  scopes: string[];
  tools: string[] | null;
  createdAt: string;
  expiresAt: string | null;
  limits: { tokensPerDay: number | null };
}

/** `POST …/keys` as the agent's owner; asserts 200. */
export async function createKey(
  agent: TestAgent,
  scopes: string[],
  extra: { name?: string; expiresInSeconds?: number; limits?: { tokensPerDay?: number | null }; tools?: string[] } = {},
): Promise<CreatedKey> {
  const res = await agent.call<CreatedKey>('/keys', { method: 'POST', json: { name: extra.name ?? 'pipeline', scopes, ...extra } });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** Calls `/agent/{collection}/{tokenId}{rest}` of `agent` with an agent key (or any bearer value). */
export function withKey<T = any>(
  agent: TestAgent,
  key: string,
  rest: string,
  init: Parameters<typeof call>[2] = {},
): Promise<JsonResponse<T>> {
  return call<T>(agent.deployment.baseUrl, agentPath(agent.collection, agent.tokenId, rest), { ...init, token: key });
}

/** Polls `check` until it returns true (a `waitUntil` write lands just after the response). */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
