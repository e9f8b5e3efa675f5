import type { RouteHandler } from '@hono/zod-openapi';
import type { AppBindings } from '../types';
import { usageReport } from './report.service';
import type * as routes from './usage.routes';

export const getUsageHandler: RouteHandler<typeof routes.getUsage, AppBindings> = async (c) => {
  const { db, ownerCheck, agent } = c.var;
  const store = {
    sql: db.sql,
    get pool() {
      return db.pool; // opened only when a lazy template upgrade needs a transaction
    },
    ownerCheck,
  };
  return c.json(await usageReport(store, agent, c.req.valid('query')), 200);
};
