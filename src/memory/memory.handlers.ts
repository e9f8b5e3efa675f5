import type { RouteHandler } from '@hono/zod-openapi';
import type { AgentSchema } from '../storage/agent-storage';
import type { AppBindings } from '../types';
import type * as routes from './memory.routes';
import { parseQuery } from './query';
import { indexAfterResponse } from '../storage/search-index';
import { searchMemory } from './search.service';
import { agentStore } from '../http/agent-store';

export const searchMemoryHandler: RouteHandler<typeof routes.searchMemory, AppBindings> = async (c) => {
  const { db, agent } = c.var;
  const { query, limit, cursor, contextKeys, contextPrefix, roles, after, before } = c.req.valid('json');
  // The route's schema refused a query with nothing to look for.
  const parsed = parseQuery(query)!;
  // A reply's messages (appended without this route) and any batch the appends' indexer missed.
  // Added to the store itself: spreading it would open the pool its getter guards.
  const deps = Object.assign(agentStore(c), {
    indexLater: (schema: AgentSchema) => indexAfterResponse((work) => c.executionCtx.waitUntil(work), db.sql, schema),
  });
  const page = await searchMemory(deps, agent, { query, parsed, limit, cursor, contextKeys, contextPrefix, roles, after, before });
  return c.json(page, 200);
};
