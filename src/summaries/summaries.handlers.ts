import type { RouteHandler } from '@hono/zod-openapi';
import type { AppBindings } from '../types';
import type * as routes from './summaries.routes';
import { readSummary } from './summaries.service';

export const readSummaryHandler: RouteHandler<typeof routes.readSummary, AppBindings> = async (c) => {
  const { db, ownerCheck, agent } = c.var;
  const deps = {
    sql: db.sql,
    get pool() {
      return db.pool; // opened only when a lazy template upgrade needs a transaction
    },
    ownerCheck,
  };
  return c.json(await readSummary(deps, agent, c.req.valid('param').contextKey), 200);
};
