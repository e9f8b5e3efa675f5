import type { RouteHandler } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppBindings } from '../types';
import type * as routes from './contexts.routes';
import { createKey, createKeys, listKeys } from './contexts.service';
import { idempotencyFor } from './idempotency';
import { appendMessages, readMessages } from './messages.service';
import { indexAfterResponse } from '../storage/search-index';
import { agentSchemaName } from '../storage/agent-storage';
import { agentStore } from '../http/agent-store';

/** The appended messages enter the search index after the response (src/storage/search-index.ts). */
async function indexSoon(c: Context<AppBindings>): Promise<void> {
  let waitUntil: (work: Promise<unknown>) => void;
  try {
    const ctx = c.executionCtx;
    waitUntil = (work) => ctx.waitUntil(work);
  } catch {
    return; // no execution context (app.request in unit tests): search reads the tail meanwhile
  }
  indexAfterResponse(waitUntil, c.var.db.sql, await agentSchemaName(c.var.agent));
}

export const listKeysHandler: RouteHandler<typeof routes.listContextKeys, AppBindings> = async (c) => {
  const query = c.req.valid('query');
  const page = await listKeys(agentStore(c), c.var.agent, {
    page: query.page,
    elementsPerPage: query.elementsPerPage,
    search: query.search,
    sortDirection: query.sortDirection,
    after: query.after,
  });
  return c.json(page, 200);
};

export const createContextHandler: RouteHandler<typeof routes.createContext, AppBindings> = async (c) => {
  await createKey(agentStore(c), c.var.agent, c.req.valid('json').key);
  return c.body(null, 200);
};

export const createContextsHandler: RouteHandler<typeof routes.createContexts, AppBindings> = async (c) => {
  const results = await createKeys(agentStore(c), c.var.agent, c.req.valid('json').keys);
  return c.json({ results }, 200);
};

export const appendMessageHandler: RouteHandler<typeof routes.appendMessage, AppBindings> = async (c) => {
  const body = c.req.valid('json');
  const { contextKey } = c.req.valid('param');
  const idempotency = await idempotencyFor(c, c.req.valid('header')['Idempotency-Key'], contextKey, body);
  const result = await appendMessages(agentStore(c), c.var.agent, contextKey, [body], idempotency);
  if (!result.replayed) await indexSoon(c);
  if (result.replayed) c.header('Idempotent-Replayed', 'true');
  return c.json(result.messages[0]!, 200);
};

export const appendMessagesHandler: RouteHandler<typeof routes.appendMessages, AppBindings> = async (c) => {
  const body = c.req.valid('json');
  const { contextKey } = c.req.valid('param');
  const idempotency = await idempotencyFor(c, c.req.valid('header')['Idempotency-Key'], contextKey, body);
  const result = await appendMessages(agentStore(c), c.var.agent, contextKey, body.messages, idempotency);
  if (!result.replayed) await indexSoon(c);
  if (result.replayed) c.header('Idempotent-Replayed', 'true');
  return c.json({ messages: result.messages }, 200);
};

export const readMessagesHandler: RouteHandler<typeof routes.readMessages, AppBindings> = async (c) => {
  const { contextKey } = c.req.valid('param');
  const query = c.req.valid('query');
  const page = await readMessages(agentStore(c), c.var.agent, contextKey, {
    cursor: query.cursor,
    limit: query.limit,
    order: query.order,
  });
  return c.json(page, 200);
};
