import type { RouteHandler } from '@hono/zod-openapi';
import { AppError } from '../errors';
import { resourceId } from '../http/openapi';
import type { AppBindings } from '../types';
import { createAgentKey, listAgentKeys, revokeAgentKey } from './keys.service';
import type * as routes from './keys.routes';

export const createHandler: RouteHandler<typeof routes.createAgentKey, AppBindings> = async (c) =>
  c.json(
    await createAgentKey(
      c.var.db,
      c.var.agent,
      { wallet: c.var.wallet, via: c.var.role === 'delegate' ? 'delegate' : null },
      c.req.valid('json'),
    ),
    200,
  );

export const listHandler: RouteHandler<typeof routes.listAgentKeys, AppBindings> = async (c) =>
  c.json({ keys: await listAgentKeys(c.var.db, c.var.agent, c.var.agent.owner) }, 200);

export const revokeHandler: RouteHandler<typeof routes.revokeAgentKey, AppBindings> = async (c) => {
  const id = resourceId(c.req.valid('param').id);
  if (id === null) throw new AppError('agent_key_not_found', 'No live agent key with this id');
  return c.json(await revokeAgentKey(c.var.db, c.var.agent, c.var.agent.owner, id), 200);
};
