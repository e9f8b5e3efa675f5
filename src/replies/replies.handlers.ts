import type { RouteHandler } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';
import { idempotencyFor } from '../contexts/contexts.handlers';
import type { AuditActor } from '../audit/entry';
import { renderError } from '../errors';
import type { AppBindings } from '../types';
import { type Credential, keyCredential, walletCredential } from '../usage/record.service';
import { keyRing } from '../vault/store';
import type { LoopEvents } from './loop';
import type { RuntimeTracing } from './trace';
import { prepareReply, type ReplyAnswer, type ReplyDeps } from './reply.service';
import type * as routes from './replies.routes';

/** The reply service's dependencies from a request (also the agent's MCP server's `ask`: src/agent-mcp). */
export function replyDeps(c: Context<AppBindings>): ReplyDeps {
  const { config, db, ownerCheck } = c.var;
  const ring = () => keyRing(config);
  const outbound = { loopbackTargets: config.dev.loopbackTargets };
  return {
    store: {
      sql: db.sql,
      get pool() {
        return db.pool;
      },
      ownerCheck,
    },
    db,
    ring,
    mcp: { db, ring, timeoutMs: config.mcpTimeoutMs, ceilingMs: config.mcpCallCeilingMs, outbound },
    ai: c.env.AI,
    limits: {
      maxTokensPerRequest: config.maxTokensPerRequest,
      maxIterations: config.maxIterations,
      llmTimeoutMs: config.llmTimeoutMs,
      mcpTimeoutMs: config.mcpTimeoutMs,
    },
    later: afterResponse(c),
    tracing: { api: runtimeTracing(c), messageText: config.traceMessageText },
  };
}

/** `waitUntil` of the request (the summary after a reply); undefined without an execution context (app.request in unit tests). */
function afterResponse(c: Context<AppBindings>): ((work: Promise<unknown>) => void) | undefined {
  try {
    const ctx = c.executionCtx;
    return (work) => ctx.waitUntil(work);
  } catch {
    return undefined;
  }
}

/** The runtime's tracing API (`ctx.tracing`); none without an execution context (app.request in unit tests). */
function runtimeTracing(c: Context<AppBindings>): RuntimeTracing | undefined {
  try {
    return (c.executionCtx as { tracing?: RuntimeTracing }).tracing;
  } catch {
    return undefined;
  }
}

/** Who acted, for the audit trail: the agent key, or the owner's wallet (read after the owner check). */
export function auditActor(c: Context<AppBindings>): AuditActor {
  return c.var.agentKeyUse ? { keyId: c.var.agentKeyUse.id } : { wallet: c.var.wallet };
}

/** Who usage is counted for (DESIGN §15): the key (`key:{id}`, with its own daily limit) or the wallet. */
export function usageCaller(c: Context<AppBindings>): { credential: Credential; tokensPerDay: number | null } {
  const key = c.var.agentKeyUse;
  return key
    ? { credential: keyCredential(key.id), tokensPerDay: key.tokensPerDay }
    : { credential: walletCredential(c.var.wallet), tokensPerDay: null };
}

const quiet: LoopEvents = { delta: () => undefined, toolCall: () => undefined, toolResult: () => undefined };

/** Events in order over SSE: each write waits for the previous one. */
function sseEvents(stream: SSEStreamingApi) {
  let chain: Promise<void> = Promise.resolve();
  const send = (event: string, data: unknown) => {
    chain = chain.then(() => stream.writeSSE({ event, data: JSON.stringify(data) }));
  };
  const events: LoopEvents = {
    delta: (text) => send('delta', { text }),
    toolCall: (e) => send('tool_call', e),
    toolResult: (e) => send('tool_result', e),
  };
  return { events, send, flushed: () => chain };
}

/**
 * `work`, kept running after the client hangs up (`waitUntil`): workerd tears a request down at
 * once when its client goes, and a reply torn down mid-way would keep its lease until it runs out.
 */
function outliving<T>(c: Context<AppBindings>, work: Promise<T>): Promise<T> {
  try {
    c.executionCtx.waitUntil(
      work.then(
        () => undefined,
        () => undefined,
      ),
    );
  } catch {
    // no execution context (app.request in unit tests): nothing tears the request down
  }
  return work;
}

/** A reply whose client hung up: one log line, and an answer nobody reads (499, "client closed request"). */
function abandoned(c: Context<AppBindings>): Response {
  console.info(JSON.stringify({ level: 'info', requestId: c.get('requestId'), event: 'reply_abandoned' }));
  return new Response(null, { status: 499 });
}

export const replyHandler: RouteHandler<typeof routes.replyToContext, AppBindings> = async (c) => {
  const body = c.req.valid('json');
  const { contextKey } = c.req.valid('param');
  const idempotency = await idempotencyFor(c, c.req.valid('header')['Idempotency-Key'], contextKey, body);
  // The client's hang-up (workerd's `enable_request_signal`) ends the reply and frees the context.
  const gone = c.req.raw.signal;
  // Memory tools read with the caller's rights: the owner's, or the key's scopes (known once the owner check passed).
  const mayReadContexts = () => !c.var.agentKey || (c.var.agentKeyScopes?.includes('contexts:read') ?? false);
  const input = { contextKey, ...body, mayReadContexts, actor: () => auditActor(c), caller: () => usageCaller(c), idempotency };
  const prepared = await outliving(c, prepareReply(replyDeps(c), c.var.agent, input));
  const streaming = (c.req.header('accept') ?? '').includes('text/event-stream');
  if ('remembered' in prepared) c.header('Idempotent-Replayed', 'true');
  if (!streaming) {
    let answer: ReplyAnswer;
    try {
      answer = 'remembered' in prepared ? prepared.remembered : await outliving(c, prepared.prepared.run(quiet, gone));
    } catch (err) {
      if (gone.aborted) return abandoned(c) as unknown as ReturnType<typeof c.json<ReplyAnswer, 200>>;
      throw err;
    }
    return c.json(answer, 200);
  }
  c.header('Cache-Control', 'no-store');
  return streamSSE(c, async (stream) => {
    const { events, send, flushed } = sseEvents(stream);
    try {
      send('done', 'remembered' in prepared ? prepared.remembered : await outliving(c, prepared.prepared.run(events, gone)));
    } catch (err) {
      if (gone.aborted) abandoned(c);
      else send('error', await renderError(c, err).json());
    }
    await flushed();
  }) as unknown as ReturnType<typeof c.json<ReplyAnswer, 200>>;
};
