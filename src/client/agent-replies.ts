/**
 * The agent answering: a reply to a context (whole or streamed), the same in OpenAI's chat
 * completion shape, and one JSON-RPC message to the agent's MCP server.
 */
import type { AgentCalls } from './agent-calls';
import { idempotencyHeader, replayed } from './agent-contexts';
import type { CallOptions } from './options';
import { replyStreamOf } from './reply-stream';
import type { CallInit } from './transport';
import type {
  ChatCompletion,
  ChatCompletionRequest,
  A2aAnswer,
  A2aRequest,
  PaidAskRequest,
  ReplyAnswer,
  McpAnswer,
  McpMessage,
  ReplyOptions,
  ReplyRequest,
  ReplyResult,
  ReplyStream,
} from './types';

export interface ReplyMethods {
  /**
   * `POST …/context/{key}/reply` (operationId `replyToContext`): the agent answers (its model over
   * the context, prompt template and tools); the reply is stored as one `assistant` message.
   */
  replyToContext(key: string, request?: ReplyRequest, options?: ReplyOptions): Promise<ReplyResult>;
  /** The same as `replyToContext`. */
  reply(key: string, request?: ReplyRequest, options?: ReplyOptions): Promise<ReplyResult>;
  /**
   * The same, streamed (`Accept: text/event-stream`): resolves once the gateway accepted the
   * request (a refusal throws `GatewayError` with its status and code), with the events in order:
   * `delta`, `tool_call`, `tool_result`, then `done` (the answer, after it is stored) or `error`.
   */
  replyStream(key: string, request?: ReplyRequest, options?: ReplyOptions): Promise<ReplyStream>;
  /**
   * `POST …/v1/chat/completions` (operationId `createChatCompletion`): the same reply in OpenAI's
   * shape, not streamed (for a stream, point an OpenAI client at `${path}/v1`).
   */
  createChatCompletion(request: Omit<ChatCompletionRequest, 'stream' | 'stream_options'>, options?: CallOptions): Promise<ChatCompletion>;

  /**
   * `POST …/mcp` (operationId `agentMcp`): one JSON-RPC message to the agent's MCP server (an MCP
   * client, e.g. the SDK's `StreamableHTTPClientTransport` on `agentMcpUrl`, is the usual way);
   * null for a notification or response (202, no body).
   */
  agentMcp(message: McpMessage, options?: CallOptions): Promise<McpAnswer | null>;

  /**
   * `POST …/a2a` (operationId `agentA2a`): one A2A JSON-RPC request, answered as JSON (an A2A
   * client such as `@a2a-js/sdk`'s, resolved from the agent's card, is the usual way; it streams too).
   */
  agentA2a(request: A2aRequest, options?: CallOptions): Promise<A2aAnswer>;

  /**
   * `POST …/paid/ask` (operationId `paidAsk`): a reply paid with x402, no token needed. The client's
   * `fetch` must pay: wrap it with `@x402/fetch`'s `wrapFetchWithPayment` (docs/paid-calls.md); a
   * plain fetch gets 402 `payment_required` (a `GatewayError`). `transaction` is the settlement's, read
   * from `PAYMENT-RESPONSE`.
   */
  paidAsk(request: PaidAskRequest, options?: CallOptions): Promise<ReplyAnswer & { transaction: string | null }>;
}

/** The transaction of x402's PAYMENT-RESPONSE (base64 JSON), or null. */
function settlementTransaction(header: string | null): string | null {
  if (!header) return null;
  try {
    const settlement = JSON.parse(atob(header)) as { transaction?: unknown };
    return typeof settlement.transaction === 'string' && settlement.transaction !== '' ? settlement.transaction : null;
  } catch {
    return null;
  }
}

export function replyMethods(agent: AgentCalls): ReplyMethods {
  const replyInit = (body: ReplyRequest, o: ReplyOptions, stream: boolean): CallInit => ({
    body,
    signal: o.signal,
    headers: { ...idempotencyHeader(o), ...(stream ? { accept: 'text/event-stream' } : {}) },
    stream,
    timeoutMs: o.timeoutMs,
  });
  const self: ReplyMethods = {
    reply: (key, request = {}, o = {}) => self.replyToContext(key, request, o),
    replyToContext: async (key, request = {}, o = {}) => {
      const answer = await agent.send('replyToContext', { contextKey: key }, replyInit(request, o, false));
      return { ...(answer.body as Omit<ReplyResult, 'replayed'>), replayed: replayed(answer.headers) };
    },
    replyStream: async (key, request = {}, o = {}) => {
      const answer = await agent.send('replyToContext', { contextKey: key }, replyInit(request, o, true));
      const operation = `POST ${agent.pathOf('replyToContext', { contextKey: key })}`;
      return replyStreamOf({ ...answer, replayed: replayed(answer.headers) }, operation, o.signal);
    },
    createChatCompletion: (request, o = {}) =>
      agent.json('createChatCompletion', {}, { body: { ...request, stream: false }, signal: o.signal }),
    agentMcp: async (message, o = {}) => {
      const headers = { accept: 'application/json, text/event-stream' };
      const answer = await agent.send('agentMcp', {}, { body: message, signal: o.signal, headers });
      return answer.status === 202 ? null : (answer.body as McpAnswer);
    },
    agentA2a: (request, o = {}) => agent.json('agentA2a', {}, { body: request, signal: o.signal }),
    paidAsk: async (request, o = {}) => {
      const answer = await agent.send('paidAsk', {}, { body: request, signal: o.signal, agent: false });
      return { ...(answer.body as ReplyAnswer), transaction: settlementTransaction(answer.headers.get('payment-response')) };
    },
  };
  return self;
}
