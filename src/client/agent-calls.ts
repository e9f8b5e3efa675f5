/**
 * The calls of one agent's API: the operations under `/agent/{collection}/{tokenId}`, with the
 * agent's two path parameters filled in and its credential sent. Each `agent-*.ts` file builds its
 * methods on this.
 */
import { type AnswerOf, type OperationId, type PathParams, pathOf } from './operations';
import type { Answer, CallInit, Transport } from './transport';

/** An operation's path parameters other than the agent's own. */
export type AgentParams<Id extends OperationId> = Omit<PathParams<Id>, 'agentCollectionAddress' | 'agentTokenId'>;

export interface AgentCalls {
  readonly collection: string;
  readonly tokenId: string;
  /** The path prefix `/agent/{collection}/{tokenId}`. */
  readonly path: string;
  /** The path of an operation of this agent. */
  pathOf<Id extends OperationId>(id: Id, params: AgentParams<Id>): string;
  /** Agent-scoped (`init.agent` defaults to true): the whole answer. */
  send<Id extends OperationId>(id: Id, params: AgentParams<Id>, init?: CallInit): Promise<Answer>;
  /** The same, for the JSON its route answers with 200. */
  json<Id extends OperationId>(id: Id, params: AgentParams<Id>, init?: CallInit): Promise<AnswerOf<Id>>;
}

export function agentCalls(transport: Transport, collection: string, tokenId: string): AgentCalls {
  const full = <Id extends OperationId>(params: AgentParams<Id>) =>
    ({ ...params, agentCollectionAddress: collection, agentTokenId: tokenId }) as PathParams<Id>;
  return {
    collection,
    tokenId,
    path: `/agent/${encodeURIComponent(collection)}/${encodeURIComponent(tokenId)}`,
    pathOf: (id, params) => pathOf(id, full(params)),
    send: (id, params, init = {}) => transport.send(id, full(params), { agent: true, ...init }),
    json: (id, params, init = {}) => transport.json(id, full(params), { agent: true, ...init }),
  };
}
