import type { RouteHandler } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { AppError } from '../errors';
import { resourceId } from '../http/openapi';
import type { AppBindings } from '../types';
import { keyRing } from '../vault/store';
import { databaseSettings, firstStep, secondStep, type DatabaseDeps } from './database.service';
import type * as routes from './database.routes';

function deps(c: Context<AppBindings>): DatabaseDeps {
  return { db: c.var.db, ring: () => keyRing(c.var.config), outbound: { loopbackTargets: c.var.config.dev.loopbackTargets } };
}

export const firstStepHandler: RouteHandler<typeof routes.firstStep, AppBindings> = async (c) =>
  c.json(await firstStep(deps(c), c.var.agent, c.req.valid('json')), 200);

export const secondStepHandler: RouteHandler<typeof routes.secondStep, AppBindings> = async (c) => {
  const body = c.req.valid('json');
  const setupId = resourceId(body.setupId);
  if (setupId === null) throw new AppError('database_setup_not_found', 'Database setup not found: run the first step again');
  return c.json(await secondStep(deps(c), c.var.agent, { setupId, tables: body.tables }), 200);
};

export const getDatabaseHandler: RouteHandler<typeof routes.getDatabaseSettings, AppBindings> = async (c) =>
  c.json(await databaseSettings(deps(c), c.var.agent), 200);
