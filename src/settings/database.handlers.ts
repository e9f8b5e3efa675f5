import type { RouteHandler } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { AppError } from '../errors';
import type { AppBindings } from '../types';
import { keyRing } from '../vault/store';
import { databaseSettings, firstStep, secondStep, type DatabaseDeps } from './database.service';
import type * as routes from './database.routes';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function deps(c: Context<AppBindings>): DatabaseDeps {
  return { db: c.var.db, ring: () => keyRing(c.var.config) };
}

export const firstStepHandler: RouteHandler<typeof routes.firstStep, AppBindings> = async (c) =>
  c.json(await firstStep(deps(c), c.var.agent, c.req.valid('json')), 200);

export const secondStepHandler: RouteHandler<typeof routes.secondStep, AppBindings> = async (c) => {
  const body = c.req.valid('json');
  if (!UUID.test(body.setupId)) throw new AppError('database_setup_not_found', 'Database setup not found: run the first step again');
  return c.json(await secondStep(deps(c), c.var.agent, { setupId: body.setupId.toLowerCase(), tables: body.tables }), 200);
};

export const getDatabaseHandler: RouteHandler<typeof routes.getDatabaseSettings, AppBindings> = async (c) =>
  c.json(await databaseSettings(deps(c), c.var.agent), 200);
