/**
 * Helpers of the A2A server tests: `@a2a-js/sdk`'s own client on an agent (resolved from its
 * card, a bearer credential on every call), messages in the SDK's shapes, raw JSON-RPC posts, and
 * the agent's stored tasks read straight from its schema.
 */
import type { Message, Part, SendMessageRequest } from '@a2a-js/sdk';
import { type Client, ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { getAddress } from 'viem';
import { agentSchemaName } from '../../src/storage/agent-storage';
import type { TestAgent } from './agent';
import { call, type JsonResponse } from './http';
import { agentPath } from './login';
import { sql } from './pg';

export const PROFILE = { name: 'Warranty desk', description: 'Answers questions about orders.' };

/** A fetch that sends `Authorization: Bearer <credential>` on every request. */
export function bearerFetch(credential: string | undefined): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    if (credential) headers.set('authorization', `Bearer ${credential}`);
    return fetch(input, { ...init, headers });
  };
}

/** The SDK's client on the agent, resolved from its public card (the profile must be set). */
export async function a2aClient(agent: TestAgent, credential: string | undefined): Promise<Client> {
  const fetchImpl = bearerFetch(credential);
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl: fetch }),
    }),
  );
  return factory.createFromUrl(`${agent.deployment.baseUrl}/agent/${agent.collection}/${agent.tokenId}/`);
}

export function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: undefined };
}

/** A user message in the SDK's shape. */
export function userMessage(parts: Part[] | string, contextId = ''): Message {
  return {
    messageId: crypto.randomUUID(),
    contextId,
    taskId: '',
    role: 1,
    parts: typeof parts === 'string' ? [textPart(parts)] : parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

export const sendParams = (message: Message): SendMessageRequest => ({
  tenant: '',
  message,
  configuration: undefined,
  metadata: undefined,
});

/** One raw JSON-RPC POST to the agent's A2A route (a string body is sent as is). */
export function rpc(
  agent: TestAgent,
  credential: string | undefined,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<JsonResponse<any>> {
  const init = typeof body === 'string' ? { body, headers: { 'content-type': 'application/json', ...headers } } : { json: body, headers };
  return call(agent.deployment.baseUrl, agentPath(agent.collection, agent.tokenId, '/a2a'), { method: 'POST', token: credential, ...init });
}

/** The agent's stored A2A tasks (none when its storage or table does not exist yet). */
export async function storedTasks(
  databaseUrl: string,
  agent: TestAgent,
): Promise<{ id: string; caller: string; state: number; task: any }[]> {
  const schema = await agentSchemaName({
    chainId: agent.deployment.chainId,
    collection: getAddress(agent.collection),
    tokenId: agent.tokenId,
  });
  const exists = await sql(databaseUrl, 'select 1 from pg_tables where schemaname = $1 and tablename = $2', [schema.name, 'a2a_tasks']);
  if (exists.length === 0) return [];
  return sql(databaseUrl, `select id, caller, state, task from ${schema.quoted}.a2a_tasks order by created_at`);
}
