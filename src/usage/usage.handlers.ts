import type { RouteHandler } from '@hono/zod-openapi';
import type { AppBindings } from '../types';
import { usageReport } from './report.service';
import type * as routes from './usage.routes';
import { agentStore } from '../http/agent-store';

export const getUsageHandler: RouteHandler<typeof routes.getUsage, AppBindings> = async (c) => {
  return c.json(await usageReport(agentStore(c), c.var.agent, c.req.valid('query')), 200);
};
