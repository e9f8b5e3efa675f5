/**
 * A2A JSON-RPC on `@a2a-js/sdk`'s server (loaded by the first A2A request only): the SDK's
 * transport and request handler, this gateway's executor (./executor.ts) and task store
 * (./task-store.ts). Before the SDK makes a task, a message is checked (text parts only, a context
 * id that forms a context key, the reply's bounds on its text; a message to an existing task is
 * refused: a task takes one message) and its reply prepared: a refused reply (a reached daily
 * limit, settings missing) creates no task and is answered as the gateway's HTTP error.
 */
import type { AgentCard, SendMessageRequest, StreamResponse, SubscribeToTaskRequest } from '@a2a-js/sdk';
import {
  ContentTypeNotSupportedError,
  RequestMalformedError,
  TaskNotFoundError,
  UnsupportedOperationError,
  VersionNotSupportedError,
} from '@a2a-js/sdk/errors';
import {
  DefaultExecutionEventBusManager,
  DefaultRequestHandler,
  JsonRpcTransportHandler,
  ServerCallContext,
  type User,
} from '@a2a-js/sdk/server';
import { KEY_PROBLEM_TEXT, keyProblem, MESSAGE_PROBLEM_TEXT, messageProblems } from '../contexts/rules';
import { AppError } from '../errors';
import type { Agent } from '../identity/agent';
import type { Prepared } from '../replies/reply.service';
import type { AgentStore } from '../storage/agent-storage';
import { type PendingReply, replyExecutor } from './executor';
import { markCanceled } from './running';
import { a2aTaskStore, CANCELED, type TaskCaller } from './task-store';
import { type WriteBehindStore, writeBehind } from './write-behind';
import { isObject } from '../tool-servers/types';

/** The A2A protocol version this server speaks. */
export const SERVED_VERSION = '1.0';

/** The context key of an A2A conversation. */
export const contextKeyOf = (contextId: string) => `a2a/${contextId}`;

/** What the SDK's handler reads of a card: streaming, no push notifications, no extended card, text only. */
const HANDLER_CARD: AgentCard = {
  name: 'agent',
  description: '',
  supportedInterfaces: [],
  provider: undefined,
  version: '1.0.0',
  documentationUrl: '',
  capabilities: { streaming: true, pushNotifications: false, extensions: [] },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
  signatures: [],
};

export interface A2aCall {
  store: AgentStore;
  agent: Agent;
  caller: TaskCaller;
  /** Prepares the reply (owner check passed): the message stored, the context's lease taken. */
  prepare(contextKey: string, message: string): Promise<Prepared>;
  gone: AbortSignal;
  keep<T>(work: Promise<T>): Promise<T>;
  /** How long after its last write a `working` task is read as failed (longer than any reply and its lease). */
  staleAfterMs: number;
  /** The `A2A-Version` header, if sent. */
  version: string | undefined;
}

export interface JsonRpcAnswer {
  jsonrpc: string;
  id: string | number | null;
  result?: unknown;
  error?: unknown;
}

/** The JSON-RPC answer, a stream of them (SendStreamingMessage), or the gateway's own error (a reply refused before any task). */
export type A2aAnswer = { json: JsonRpcAnswer } | { events: AsyncGenerator<JsonRpcAnswer> } | { refused: AppError };

class GatewayRequestHandler extends DefaultRequestHandler {
  refused: AppError | undefined;
  private pending: PendingReply | undefined;

  constructor(
    private readonly call: A2aCall,
    private readonly tasks: WriteBehindStore,
    slot: { pending: () => PendingReply | undefined },
  ) {
    super(
      HANDLER_CARD,
      tasks,
      replyExecutor(() => slot.pending()),
      new DefaultExecutionEventBusManager(),
    );
    slot.pending = () => this.pending;
  }

  /** Checks the message and prepares its reply; the request the SDK then runs (its context id set). */
  private async admit(params: SendMessageRequest, streaming: boolean): Promise<SendMessageRequest> {
    const message = params.message;
    if (!message?.messageId) throw new RequestMalformedError('params.message with a messageId is required');
    if (message.parts.length === 0) throw new RequestMalformedError('The message has no parts');
    const texts: string[] = [];
    for (const part of message.parts) {
      if (part.content?.$case !== 'text')
        throw new ContentTypeNotSupportedError('Only text parts are accepted: the whole message is refused');
      texts.push(part.content.value);
    }
    if (message.taskId) {
      const task = await this.tasks.load(message.taskId, new ServerCallContext());
      if (!task) throw new TaskNotFoundError(`Task not found: ${message.taskId}`);
      throw new UnsupportedOperationError('A task takes one message: send the next one without taskId, with the same contextId');
    }
    const contextId = message.contextId || crypto.randomUUID();
    const keyWrong = keyProblem(contextKeyOf(contextId));
    if (keyWrong) throw new RequestMalformedError(`contextId: the context key a2a/{contextId} ${KEY_PROBLEM_TEXT[keyWrong]}`);
    const text = texts.join('\n');
    const textWrong = messageProblems(text)[0];
    if (textWrong) throw new RequestMalformedError(`The message's text ${MESSAGE_PROBLEM_TEXT[textWrong]}`);
    let prepared: Prepared;
    try {
      prepared = await this.call.prepare(contextKeyOf(contextId), text);
    } catch (err) {
      if (err instanceof AppError) this.refused = err;
      throw err;
    }
    this.pending = {
      prepared,
      streaming,
      gone: this.call.gone,
      keep: (work) => this.call.keep(work),
      storedCanceled: async (taskId) => (await this.tasks.storedState(taskId)) === CANCELED,
    };
    this.tasks.creating();
    // The reply is awaited in the request (a worker's request ends with its answer); no references are read.
    const configuration = params.configuration && { ...params.configuration, returnImmediately: false };
    return { ...params, configuration, message: { ...message, contextId, referenceTaskIds: [] } };
  }

  override async sendMessage(params: SendMessageRequest, context: ServerCallContext) {
    return super.sendMessage(await this.admit(params, false), context);
  }

  override async *sendMessageStream(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    yield* super.sendMessageStream(await this.admit(params, true), context);
  }

  // biome-ignore lint/correctness/useYield: refuses before any event
  override async *resubscribe(
    _params: SubscribeToTaskRequest,
    _context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    throw new UnsupportedOperationError('SubscribeToTask is not served: use SendStreamingMessage, or GetTask');
  }
}

function requestUser(): User {
  const name = `request:${crypto.randomUUID()}`;
  return { isAuthenticated: true, userName: name };
}

/**
 * What the SDK's own parsing of a send request would trip over (it reads each part's members, so a
 * part that is null or not an object failed as an internal error with the runtime's message): said
 * as bad params instead. Everything else about the message is checked after parsing (`admit`).
 */
function messageShapeProblem(body: Record<string, unknown>): string | undefined {
  if (body.method !== 'SendMessage' && body.method !== 'SendStreamingMessage') return undefined;
  if (!isObject(body.params)) return 'params must be an object';
  const message = body.params.message;
  if (message === undefined) return undefined;
  if (!isObject(message)) return 'params.message must be an object';
  if (message.parts !== undefined && (!Array.isArray(message.parts) || !message.parts.every(isObject))) {
    return 'params.message.parts must be an array of part objects';
  }
  return undefined;
}

function isStream(value: unknown): value is AsyncGenerator<JsonRpcAnswer> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

/** One JSON-RPC request (its envelope checked by the route) answered by the SDK's transport. */
export async function serveA2a(body: Record<string, unknown>, call: A2aCall): Promise<A2aAnswer> {
  const tasks = writeBehind(a2aTaskStore(call.store, call.agent, call.caller, markCanceled, call.staleAfterMs), (work) => call.keep(work));
  const handler = new GatewayRequestHandler(call, tasks, { pending: () => undefined });
  const transport = new JsonRpcTransportHandler(handler);
  const id = (body.id ?? null) as string | number | null;
  // A2A 1.0 only: a client naming another version is told so (no header: served as 1.0).
  if (call.version !== undefined && call.version.trim() !== SERVED_VERSION) {
    const refused = new VersionNotSupportedError(`A2A-Version ${call.version.slice(0, 16)} is not served: only ${SERVED_VERSION}`);
    return { json: { jsonrpc: '2.0', id, error: JsonRpcTransportHandler.mapToJSONRPCError(refused) } };
  }
  // A user of its own per request: the SDK serializes a task's writes by user in a module-wide lock,
  // and one request must never wait on another's promises (workerd); the table's conditional
  // writes keep concurrent requests on one task right.
  const malformed = messageShapeProblem(body);
  if (malformed)
    return { json: { jsonrpc: '2.0', id, error: JsonRpcTransportHandler.mapToJSONRPCError(new RequestMalformedError(malformed)) } };
  const context = new ServerCallContext({ user: requestUser() });
  const answer = await transport.handle(body, context);
  if (!isStream(answer)) return handler.refused ? { refused: handler.refused } : { json: answer };
  // The first event decides: a refused reply is the gateway's HTTP error, not a stream.
  let first: IteratorResult<JsonRpcAnswer>;
  try {
    first = await answer.next();
  } catch (err) {
    if (handler.refused) return { refused: handler.refused };
    return { json: { jsonrpc: '2.0', id, error: JsonRpcTransportHandler.mapToJSONRPCError(err) } };
  }
  async function* events(): AsyncGenerator<JsonRpcAnswer> {
    if (first.done) return;
    yield first.value;
    try {
      for await (const event of answer as AsyncGenerator<JsonRpcAnswer>) yield event;
    } catch (err) {
      yield { jsonrpc: '2.0', id, error: JsonRpcTransportHandler.mapToJSONRPCError(err) };
    }
  }
  return { events: events() };
}
