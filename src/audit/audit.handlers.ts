import type { RouteHandler } from '@hono/zod-openapi';
import type { AppBindings } from '../types';
import { listAuditEntries } from './audit.service';
import type * as routes from './audit.routes';

export const listHandler: RouteHandler<typeof routes.listAuditEntries, AppBindings> = async (c) =>
  c.json(await listAuditEntries(c.var.db, c.var.agent, c.req.valid('query')), 200);
