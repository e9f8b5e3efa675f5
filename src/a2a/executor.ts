/**
 * The A2A agent executor over the reply service (src/replies): one task per message, its reply run
 * as every reply runs (bounds, limits, usage, audit, the key's tools). The reply is prepared before
 * the SDK makes the task (./server.ts: a refused reply creates no task); the executor runs it,
 * publishing the task, `working`, the reply's text as artifact chunks as the model writes them
 * (streamed; one artifact otherwise) and the final state.
 */
import type { Artifact, Message } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { AppError } from '../errors';
import type { LoopEvents } from '../replies/loop';
import type { Prepared } from '../replies/reply.service';
import { markCanceled, watchCancel } from './running';

const WORKING = 2;
const COMPLETED = 3;
const FAILED = 4;
const CANCELED = 5;
const AGENT_ROLE = 2;
export const ARTIFACT_ID = 'reply';

/** The reply ready to run for this request's one message, and how its text is delivered. */
export interface PendingReply {
  prepared: Prepared;
  streaming: boolean;
  /** The client's hang-up (ends the reply, as on every reply route). */
  gone: AbortSignal;
  /** Whether the task is canceled in the table (a cancel that reached another isolate). */
  storedCanceled(taskId: string): Promise<boolean>;
  /** Keeps the run going after the client hangs up until it has released the context (`waitUntil`). */
  keep<T>(work: Promise<T>): Promise<T>;
}

const now = () => new Date().toISOString();

function textArtifact(text: string): Artifact {
  return {
    artifactId: ARTIFACT_ID,
    name: 'reply',
    description: "The agent's reply",
    parts: [{ content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: undefined }],
    metadata: undefined,
    extensions: [],
  };
}

export function agentMessage(taskId: string, contextId: string, text: string): Message {
  return {
    messageId: crypto.randomUUID(),
    taskId,
    contextId,
    role: AGENT_ROLE,
    parts: [{ content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: undefined }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** What a failed task says: the gateway's stable error code and its message, never a stack or a secret. */
function failure(err: unknown): string {
  return err instanceof AppError ? `${err.code}: ${err.message}` : 'internal_error: the reply failed';
}

/** An executor for one request: `pending()` is the reply the request prepared (undefined: none). */
export function replyExecutor(pending: () => PendingReply | undefined): AgentExecutor {
  return {
    async execute(request: RequestContext, bus: ExecutionEventBus) {
      const { taskId, contextId } = request;
      const status = (state: number, text?: string) =>
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: { state, message: text === undefined ? undefined : agentMessage(taskId, contextId, text), timestamp: now() },
          metadata: undefined,
        });
      bus.publish(
        AgentEvent.task({
          id: taskId,
          contextId,
          status: { state: WORKING, message: undefined, timestamp: now() },
          history: [request.userMessage],
          artifacts: [],
          metadata: undefined,
        }),
      );
      bus.publish(status(WORKING));
      const reply = pending();
      if (!reply) {
        bus.publish(status(FAILED, 'internal_error: no reply was prepared'));
        return;
      }
      const chunk = (text: string, append: boolean, lastChunk: boolean) =>
        AgentEvent.artifactUpdate({ taskId, contextId, artifact: textArtifact(text), append, lastChunk, metadata: undefined });
      let streamed = false;
      const ignore = () => undefined;
      const events: LoopEvents = {
        delta: (text) => {
          if (!reply.streaming || text === '') return;
          bus.publish(chunk(text, streamed, false));
          streamed = true;
        },
        toolCall: ignore,
        toolResult: ignore,
      };
      const stopping = new AbortController();
      let canceled = false;
      const stopWatching = watchCancel(
        taskId,
        () => reply.storedCanceled(taskId),
        () => {
          canceled = true;
          stopping.abort(new Error('The task was canceled'));
        },
      );
      const onGone = () => stopping.abort(reply.gone.reason);
      reply.gone.addEventListener('abort', onGone);
      try {
        const { prepared } = reply;
        const answer = 'remembered' in prepared ? prepared.remembered : await reply.keep(prepared.prepared.run(events, stopping.signal));
        const text = answer.reply?.message ?? '';
        if (reply.streaming) bus.publish(chunk('', streamed, true));
        else bus.publish(chunk(text, false, true));
        bus.publish(status(COMPLETED));
      } catch (err) {
        bus.publish(canceled ? status(CANCELED, 'Canceled by the caller') : status(FAILED, failure(err)));
      } finally {
        stopWatching();
        reply.gone.removeEventListener('abort', onGone);
      }
    },
    async cancelTask(taskId: string) {
      markCanceled(taskId);
    },
  };
}
