/**
 * A2A tasks in the agent's own schema (table `a2a_tasks`), behind the SDK's `TaskStore`. One store
 * per request, bound to one agent and one caller: a task is read by the caller that made it only
 * (another caller's or agent's task is simply not found). The SDK saves the task on every event;
 * this store writes a row only when the task's state changes (the stream's text chunks stay in the
 * request's memory until the task ends), so a streamed reply costs two writes, not one per chunk.
 * A task in a final state is never overwritten: a cancel from another request wins over a reply
 * that ends after it, and the reverse.
 */
import type { ListTasksRequest, ListTasksResponse, Task } from '@a2a-js/sdk';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import { UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { Agent } from '../identity/agent';
import { type AgentStore, findAgentSchema } from '../storage/agent-storage';
import { databaseError } from '../storage/db';
import { agentMessage } from './executor';
import { keyCredential, oauthCredential, walletCredential } from '../usage/record.service';

/** A2A's final task states (completed, failed, canceled, rejected). */
export const FINAL_STATES: readonly number[] = [3, 4, 5, 7];
export const CANCELED = 5;
const WORKING = 2;
const FAILED = 4;
/** What a task whose reply died with its worker says, read as failed. */
export const ABANDONED_TEXT = 'internal_error: the reply stopped without an answer (the worker running it ended); send the message again';
/** A stored task's JSON at most (its check in the table says the same). */
export const MAX_TASK_BYTES = 2 * 1024 * 1024;

/** Who owns a task: an agent key, a wallet's own token, or one OAuth app acting for a wallet (each app its own tasks). */
export type TaskCaller = { keyId: string } | { wallet: string; clientId?: string };

/** The table's bound on a task's owner (its check says the same). */
export const MAX_CALLER_LENGTH = 128;

/**
 * The task's owner, named as usage names the credential (`key:{id}`, `wallet:0x…`,
 * `oauth:0x…:{clientId}`). An OAuth client id is up to 400 bytes (a metadata document's URL): when
 * the name would pass the table's bound, the client id is replaced by `#` and its SHA-256 in hex.
 */
export async function callerId(caller: TaskCaller): Promise<string> {
  if ('keyId' in caller) return keyCredential(caller.keyId);
  const wallet = caller.wallet.toLowerCase();
  if (!caller.clientId) return walletCredential(wallet);
  const named = oauthCredential(wallet, caller.clientId);
  if (named.length <= MAX_CALLER_LENGTH) return named;
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(caller.clientId)));
  return oauthCredential(wallet, `#${Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('')}`);
}

/** The task with each artifact's streamed text chunks joined into one text part (as it is stored once final). */
function joinedText(task: Task): Task {
  const artifacts = task.artifacts.map((artifact) => {
    if (artifact.parts.length < 2 || !artifact.parts.every((p) => p.content?.$case === 'text')) return artifact;
    const value = artifact.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
    return { ...artifact, parts: [{ ...artifact.parts[0]!, content: { $case: 'text' as const, value } }] };
  });
  return { ...task, artifacts };
}

export interface A2aTaskStore extends TaskStore {
  /** The task's stored state, read from the table (not this request's memory); undefined: no such task. */
  storedState(taskId: string): Promise<number | undefined>;
}

/** Called when this store writes a task canceled (the running reply, if in this isolate, stops at once). */
export type OnCanceled = (taskId: string) => void;

/**
 * A `working` task not written for `staleAfterMs` (longer than its reply may run, and its context's
 * lease) has no reply behind it any more: its worker ended mid-reply. It is read as failed (not
 * written: a reply still running would be the one to say so; it cannot outlive its lease).
 */
function readAsFailedWhenStale(task: Task, state: number, ageMs: number, staleAfterMs: number): { task: Task; state: number } {
  if (state !== WORKING || ageMs <= staleAfterMs) return { task, state };
  const message = agentMessage(task.id, task.contextId, ABANDONED_TEXT);
  return { task: { ...task, status: { state: FAILED, message, timestamp: task.status?.timestamp } }, state: FAILED };
}

export function a2aTaskStore(
  store: AgentStore,
  agent: Agent,
  caller: TaskCaller,
  onCanceled: OnCanceled,
  staleAfterMs: number,
): A2aTaskStore {
  const owning = callerId(caller);
  const tasks = new Map<string, Task>();
  const written = new Map<string, number>();

  async function read(taskId: string): Promise<{ task: Task; state: number } | undefined> {
    const schema = await findAgentSchema(store, agent);
    if (!schema) return undefined;
    try {
      const { rows } = await store.sql.query<{ task: Task; state: number; age_ms: number }>(
        `select task, state, (extract(epoch from now() - updated_at) * 1000)::float8 as age_ms
         from ${schema.quoted}.a2a_tasks where id = $1 and caller = $2`,
        [taskId, await owning],
      );
      const row = rows[0];
      return row && readAsFailedWhenStale(row.task, row.state, row.age_ms, staleAfterMs);
    } catch (err) {
      throw databaseError(err);
    }
  }

  /** Writes the task; false when the row is final already (or another caller's): nothing written. */
  async function write(task: Task, state: number): Promise<boolean> {
    const json = JSON.stringify(FINAL_STATES.includes(state) ? joinedText(task) : task);
    if (new TextEncoder().encode(json).byteLength > MAX_TASK_BYTES) throw new Error('The task is over its stored bound');
    const schema = await findAgentSchema(store, agent);
    if (!schema) throw new Error("The agent's storage is not provisioned");
    try {
      // Insert, or update a task of this caller that is not final yet.
      const { rows } = await store.sql.query<{ id: string }>(
        `insert into ${schema.quoted}.a2a_tasks as t (id, caller, context_id, state, task) values ($1, $2, $3, $4, $5::jsonb)
         on conflict (id) do update set state = excluded.state, task = excluded.task, updated_at = now()
         where t.caller = excluded.caller and t.state <> all ($6::smallint[])
         returning id`,
        [task.id, await owning, task.contextId, state, json, FINAL_STATES],
      );
      return rows.length > 0;
    } catch (err) {
      throw databaseError(err);
    }
  }

  return {
    async load(taskId: string, _context: ServerCallContext) {
      const held = tasks.get(taskId);
      if (held) return structuredClone(held);
      const row = await read(taskId);
      if (!row) return undefined;
      written.set(taskId, row.state);
      return row.task;
    },
    async save(task: Task, _context: ServerCallContext) {
      const state = task.status?.state ?? 0;
      if (written.get(task.id) === state) {
        tasks.set(task.id, structuredClone(task));
        return;
      }
      if (!(await write(task, state))) {
        // Final already (a cancel or the reply's end came first): what is stored stands, and is what this request reads.
        const row = await read(task.id);
        if (row) {
          tasks.set(task.id, row.task);
          written.set(task.id, row.state);
        }
        return;
      }
      tasks.set(task.id, structuredClone(task));
      written.set(task.id, state);
      if (state === CANCELED) onCanceled(task.id);
    },
    async list(_params: ListTasksRequest, _context: ServerCallContext): Promise<ListTasksResponse> {
      throw new UnsupportedOperationError('ListTasks is not served: keep the task ids SendMessage answered');
    },
    async storedState(taskId: string) {
      return (await read(taskId))?.state;
    },
  };
}
