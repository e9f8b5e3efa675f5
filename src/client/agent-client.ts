/** The agent-scoped API of one agent (`/agent/{collection}/{tokenId}/…`): its methods, by resource. */
import { type AgentCalls, agentCalls } from './agent-calls';
import { type AccessMethods, accessMethods } from './agent-access';
import { type ContextMethods, contextMethods } from './agent-contexts';
import { type MemoryMethods, memoryMethods } from './agent-memory';
import { type ProfileMethods, profileMethods } from './agent-profile';
import { type RecordMethods, recordMethods } from './agent-records';
import { type ReplyMethods, replyMethods } from './agent-replies';
import { type SettingsMethods, settingsMethods } from './agent-settings';
import { type ToolServerMethods, toolServerMethods } from './agent-tool-servers';
import type { CallOptions } from './options';
import type { Transport } from './transport';
import type { AgentSummary } from './types';

export interface AgentClient
  extends ContextMethods,
    MemoryMethods,
    SettingsMethods,
    ProfileMethods,
    AccessMethods,
    RecordMethods,
    ToolServerMethods,
    ReplyMethods {
  readonly collection: string;
  readonly tokenId: string;
  /** The path prefix `/agent/{collection}/{tokenId}`. */
  readonly path: string;

  /** `GET …` (operationId `getAgent`): the agent after the three gates. */
  getAgent(options?: CallOptions): Promise<AgentSummary>;
  /** The same as `getAgent`. */
  summary(options?: CallOptions): Promise<AgentSummary>;
}

export function createAgentClient(transport: Transport, collection: string, tokenId: string): AgentClient {
  const agent: AgentCalls = agentCalls(transport, collection, tokenId);
  const getAgent = (o: CallOptions = {}) => agent.json('getAgent', {}, { signal: o.signal });
  return {
    collection,
    tokenId,
    path: agent.path,
    getAgent,
    summary: getAgent,
    ...contextMethods(agent),
    ...memoryMethods(agent),
    ...settingsMethods(agent),
    ...profileMethods(agent),
    ...accessMethods(agent),
    ...recordMethods(agent),
    ...toolServerMethods(agent),
    ...replyMethods(agent),
  };
}
