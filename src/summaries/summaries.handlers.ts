import type { RouteHandler } from '@hono/zod-openapi';
import type { AppBindings } from '../types';
import type * as routes from './summaries.routes';
import { readSummary } from './summaries.service';
import { agentStore } from '../http/agent-store';

export const readSummaryHandler: RouteHandler<typeof routes.readSummary, AppBindings> = async (c) => {
  return c.json(await readSummary(agentStore(c), c.var.agent, c.req.valid('param').contextKey), 200);
};
