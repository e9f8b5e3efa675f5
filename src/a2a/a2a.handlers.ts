import type { RouteHandler } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { abandoned, outliving } from '../http/outliving';
import { agentStore } from '../http/agent-store';
import { replyCaller, replyDeps } from '../replies/request-deps';
import { prepareReply, type ReplyInput } from '../replies/reply.service';
import { onContext } from '../tools/on-context';
import type { AppBindings } from '../types';
import type * as routes from './a2a.routes';
import type { JsonRpcAnswer } from './server';
import type { TaskCaller } from './task-store';

type JsonAnswer = ReturnType<Context<AppBindings>['json']>;

/** JSON-RPC's own answer to a request that is JSON but not a JSON-RPC request (-32600). */
function invalidRequest(body: unknown): string | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'the body is not a JSON-RPC request object (no batches)';
  const { jsonrpc, method, id } = body as Record<string, unknown>;
  if (jsonrpc !== '2.0') return 'jsonrpc must be "2.0"';
  if (typeof method !== 'string') return 'method must be a string';
  if (id !== undefined && id !== null && typeof id !== 'string' && typeof id !== 'number') return 'id must be a string, a number or null';
  return null;
}

/** Who owns the tasks this request makes and reads (known once the owner check passed): an OAuth app's tasks are its own. */
function taskCaller(c: Context<AppBindings>): TaskCaller {
  const key = c.var.agentKeyUse;
  if (key) return { keyId: key.id };
  const clientId = c.var.oauthClientId;
  return clientId ? { wallet: c.var.wallet, clientId } : { wallet: c.var.wallet };
}

/** A reply runs at most its iterations' timeouts, its lease 30 s more; a minute on top for its last write. */
function staleAfterMs(limits: { maxIterations: number; llmTimeoutMs: number; mcpTimeoutMs: number }): number {
  return limits.maxIterations * (limits.llmTimeoutMs + limits.mcpTimeoutMs) + 90_000;
}

export const a2aHandler: RouteHandler<typeof routes.agentA2a, AppBindings> = async (c) => {
  const asAnswer = (res: Response) => res as unknown as JsonAnswer;
  const body: unknown = c.req.valid('json');
  const wrong = invalidRequest(body);
  if (wrong) return c.json({ jsonrpc: '2.0', id: null, error: { code: -32600, message: `Invalid Request: ${wrong}` } }, 200);
  await c.var.ownerCheck;
  const { agent } = c.var;
  const deps = replyDeps(c);
  const gone = c.req.raw.signal;
  // The SDK's server is loaded by the first A2A request only.
  const { serveA2a } = await import('./server');
  const answer = await serveA2a(body as Record<string, unknown>, {
    store: agentStore(c),
    agent,
    caller: taskCaller(c),
    staleAfterMs: staleAfterMs(deps.limits),
    gone,
    version: c.req.header('A2A-Version'),
    keep: (work) => outliving(c, work),
    prepare: (contextKey, message) => {
      const input: ReplyInput = { contextKey, message, role: 'user', variables: {}, tools: true, memoryTools: true, ...replyCaller(c) };
      return outliving(
        c,
        onContext(deps.store, agent, contextKey, () => prepareReply(deps, agent, input)),
      );
    },
  });
  if ('refused' in answer) throw answer.refused;
  if ('json' in answer) {
    if (gone.aborted) return asAnswer(abandoned(c));
    return c.json(answer.json, 200);
  }
  c.header('Cache-Control', 'no-store');
  const streamed = streamSSE(c, async (stream) => {
    for await (const event of answer.events as AsyncGenerator<JsonRpcAnswer>) {
      await stream.writeSSE({ data: JSON.stringify(event) });
    }
  });
  return asAnswer(streamed);
};
