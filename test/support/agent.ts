import { mintFreshAgent, newWallet, type TestAccount } from './chain';
import { call, type JsonResponse } from './http';
import { agentPath, login } from './login';
import type { DeploymentInfo } from './stack-info';

/** A freshly minted agent owned by a fresh wallet that is logged in: tests own their data. */
export interface TestAgent {
  owner: TestAccount;
  token: string;
  tokenId: bigint;
  deployment: DeploymentInfo;
  collection: string;
  /** Calls `/agent/{collection}/{tokenId}{rest}` with the owner's token. */
  call<T = any>(rest: string, init?: Parameters<typeof call>[2]): Promise<JsonResponse<T>>;
}

export async function freshAgent(
  deployment: DeploymentInfo,
  options: { owner?: TestAccount; token?: string; collection?: string } = {},
): Promise<TestAgent> {
  const owner = options.owner ?? newWallet();
  const collection = options.collection ?? deployment.collection;
  const [tokenId, token] = await Promise.all([
    mintFreshAgent(deployment, owner.address, collection),
    options.token ? Promise.resolve(options.token) : login(deployment, owner),
  ]);
  return {
    owner,
    token,
    tokenId,
    deployment,
    collection,
    call: (rest, init = {}) => call(deployment.baseUrl, agentPath(collection, tokenId, rest), { token, ...init }),
  };
}

/** Percent-encodes a context key for a path segment (a `/` in a key becomes %2F). */
export const seg = (key: string) => encodeURIComponent(key);

/** A page of `GET …/contexts/keys`. */
export interface KeyPage {
  page: number;
  elementsPerPage: number;
  totalElements: number;
  contextKeys: string[];
  nextAfter: string | null;
}

/** `GET …/contexts/keys` with these query parameters, as the agent's owner. */
export const listKeys = (agent: TestAgent, params: Record<string, string | number> = {}): Promise<JsonResponse<KeyPage>> =>
  agent.call(`/contexts/keys?${new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]))}`);
