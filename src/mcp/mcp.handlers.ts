import type { RouteHandler } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { AppError } from '../errors';
import type { AppBindings } from '../types';
import { keyRing } from '../vault/store';
import { addConnection, callTool, listConnections, liveTools, removeConnection, type McpDeps } from './connections.service';
import type * as routes from './mcp.routes';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function mcpDeps(c: Context<AppBindings>): McpDeps {
  return { db: c.var.db, ring: () => keyRing(c.var.config), timeoutMs: c.var.config.mcpTimeoutMs };
}

/** Ids are UUIDs; anything else cannot name a connection. */
function connectionId(id: string): string {
  if (!UUID.test(id)) throw new AppError('mcp_connection_not_found', 'MCP connection not found');
  return id.toLowerCase();
}

export const listHandler: RouteHandler<typeof routes.listConnections, AppBindings> = async (c) =>
  c.json({ connections: await listConnections(mcpDeps(c), c.var.agent) }, 200);

export const addHandler: RouteHandler<typeof routes.addConnection, AppBindings> = async (c) =>
  c.json(await addConnection(mcpDeps(c), c.var.agent, c.req.valid('json')), 200);

export const removeHandler: RouteHandler<typeof routes.removeConnection, AppBindings> = async (c) => {
  const id = connectionId(c.req.valid('param').id);
  await removeConnection(mcpDeps(c), c.var.agent, id);
  return c.json({ id, deleted: true as const }, 200);
};

export const toolsHandler: RouteHandler<typeof routes.listTools, AppBindings> = async (c) =>
  c.json(await liveTools(mcpDeps(c), c.var.agent, connectionId(c.req.valid('param').id)), 200);

export const callHandler: RouteHandler<typeof routes.callTool, AppBindings> = async (c) =>
  c.json(await callTool(mcpDeps(c), c.var.agent, connectionId(c.req.valid('param').id), c.req.valid('json')), 200);
