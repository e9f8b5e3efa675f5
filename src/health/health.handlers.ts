import type { RouteHandler } from '@hono/zod-openapi';
import { chainClient } from '../chain/client';
import type { AppBindings } from '../types';
import type { getHealth } from './health.routes';
import { checkHealth } from './health.service';

export const healthHandler: RouteHandler<typeof getHealth, AppBindings> = async (c) => {
  const config = c.var.config;
  const report = await checkHealth({ db: c.var.db, chain: chainClient(config), chainId: config.chainId });
  c.header('Cache-Control', 'no-store');
  if (report.status === 'ok') return c.json(report, 200);
  c.header('Retry-After', '5');
  return c.json(report, 503);
};
